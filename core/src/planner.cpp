// Stage planner: Little's law over bytes in flight per SM (see porter/planner.hpp).
#include "porter/planner.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "porter/error.hpp"

namespace porter {
namespace {

constexpr int max_ctas_per_sm_hw = 32;  // sm_80 and newer (sm_75: 16; the thread limit binds first there)

double per_sm_dram(const device_caps& caps) {
  const double peak = caps.peak_dram_bytes_per_second();
  const int sms = caps.sm_count > 0 ? caps.sm_count : 1;
  // Unknown clock or bus width: 25 GB/s per SM, about an A100's or H100's share.
  return peak > 0 ? peak / sms : 25e9;
}

}  // namespace

double default_memory_latency_ns(const device_caps&) { return 700.0; }

double demand_from_flops(std::size_t stage_bytes, double flops_per_stage, double flops_per_second_per_sm) {
  if (flops_per_stage <= 0 || flops_per_second_per_sm <= 0) return 0;
  return double(stage_bytes) * flops_per_second_per_sm / flops_per_stage;
}

int ctas_by_shared_memory(const device_caps& caps, std::size_t smem_per_cta, std::size_t reserved_per_cta) {
  if (caps.smem_per_block_optin > 0 && smem_per_cta > caps.smem_per_block_optin) return 0;
  if (caps.smem_per_sm == 0) return max_ctas_per_sm_hw;
  const std::size_t per = smem_per_cta + reserved_per_cta;
  return int(std::min<std::size_t>(caps.smem_per_sm / (per ? per : 1), max_ctas_per_sm_hw));
}

namespace {
/// CTAs of `req`'s kernel per SM with `s` stages: threads, the caller's limit and shared memory.
int ctas_with_stages(const device_caps& caps, const stage_plan_request& req, int s) {
  const int threads = req.threads_per_cta > 0 ? req.threads_per_cta : 1;
  int limit = caps.max_threads_per_sm > 0 ? std::max(1, caps.max_threads_per_sm / threads) : max_ctas_per_sm_hw;
  limit = std::min(limit, max_ctas_per_sm_hw);
  const int by_stages = s >= 1 && s < int(req.ctas_per_sm_by_stages.size()) ? req.ctas_per_sm_by_stages[std::size_t(s)] : 0;
  if (by_stages < 0) return 0;  // that instantiation cannot be resident
  if (by_stages > 0) limit = std::min(limit, by_stages);
  else if (req.ctas_per_sm_limit > 0) limit = std::min(limit, req.ctas_per_sm_limit);
  const std::size_t smem = req.fixed_smem_bytes + req.static_smem_bytes + std::size_t(s) * req.stage_bytes;
  return std::min(limit, ctas_by_shared_memory(caps, smem, req.reserved_smem_per_cta));
}
/// The stage count in first..max_s with the most CTAs per SM (ties: fewer stages); 0 when none fits.
int most_ctas_stages(const device_caps& caps, const stage_plan_request& req, int max_s, int first = 1) {
  int best = 0, best_ctas = 0;
  for (int s = first; s <= max_s; ++s) {
    const int c = ctas_with_stages(caps, req, s);
    if (c > best_ctas) { best = s; best_ctas = c; }
  }
  return best;
}
/// ns for `bytes` to arrive at one SM at `fill` bytes/s (0 when fill is not known).
double transfer_ns(std::size_t bytes, double fill) { return fill > 0 ? double(bytes) / fill * 1e9 : 0; }
/// Little's law: bytes in flight per SM that `req`'s latency, demand and stage transfer time (or
/// their defaults) ask for: a stage is usable latency + stage_bytes / fill after its issue.
double needed_bytes(const device_caps& caps, const stage_plan_request& req) {
  const double latency = req.latency_ns > 0 ? req.latency_ns : default_memory_latency_ns(caps);
  const double demand = req.demand_bytes_per_second_per_sm > 0 ? req.demand_bytes_per_second_per_sm : per_sm_dram(caps);
  return (latency + transfer_ns(req.stage_bytes, req.fill_bytes_per_second_per_sm)) * 1e-9 * demand;
}
}  // namespace

stage_plan plan_stages(const device_caps& caps, const stage_plan_request& req) {
  if (req.stage_bytes == 0)
    throw error(errc::invalid_argument, "planner.stage_bytes", "stage_bytes is 0; a stage must bring in at least one byte");
  stage_plan p;
  p.latency_ns = req.latency_ns > 0 ? req.latency_ns : default_memory_latency_ns(caps);
  p.demand_bytes_per_second_per_sm = req.demand_bytes_per_second_per_sm > 0 ? req.demand_bytes_per_second_per_sm : per_sm_dram(caps);
  p.needed_bytes = needed_bytes(caps, req);
  p.transfer_ns = transfer_ns(req.stage_bytes, req.fill_bytes_per_second_per_sm);

  const int max_s = std::clamp(req.max_stages, 1, 8);
  auto ctas_at = [&](int s) { return ctas_with_stages(caps, req, s); };
  auto in_flight = [&](int s) { return double(s - 1) * double(req.stage_bytes) * double(ctas_at(s)); };

  std::ostringstream why;
  if (req.path == path_id::staged) {
    // A pipeline of many steps (plan_launch sends one-step tiles elsewhere). At 1 stage each step
    // pays two CTA barriers (the reuse guard before the refill, the wait after it) and its loads
    // are never in flight behind the consumer's work; from 2 stages on, one barrier per step and
    // the next stage's deferred chunks (porter/staged/protocol.hpp) load while the consumer works.
    // So: the smallest count >= 2 among those with the most CTAs per SM; 1 only where it keeps
    // strictly more CTAs per SM than every count >= 2 (occupancy hides the loads then).
    const int one = ctas_at(1);
    const int s2 = most_ctas_stages(caps, req, max_s, 2);
    const int s2_ctas = s2 > 0 ? ctas_at(s2) : 0;
    const int s = s2 > 0 && s2_ctas >= one ? s2 : one > 0 ? 1 : 0;
    p.stages = s > 0 ? s : 1;
    p.ctas_per_sm = ctas_at(p.stages);
    p.in_flight_bytes = 0;
    if (s == 0)
      why << "not even 1 stage of " << req.stage_bytes << " B fits the shared memory of one CTA";
    else if (s == 1)
      why << "staged: 1 stage keeps " << one << " CTAs per SM, more than any count >= 2 (" << s2_ctas
          << "): occupancy hides the synchronous loads";
    else
      why << "staged: " << s << " stages keep the most CTAs per SM (" << p.ctas_per_sm << ", " << one
          << " at 1 stage) with one CTA barrier per step (two at 1 stage) and the next stage's deferred loads in flight "
             "behind the consumer's work";
    p.reason = why.str();
    return p;
  }
  int best = 0;
  double best_bytes = -1;
  for (int s = 1; s <= max_s; ++s) {
    if (ctas_at(s) == 0) break;  // does not fit one CTA
    const double b = in_flight(s);
    if (b >= p.needed_bytes) { best = s; best_bytes = b; break; }
    if (b > best_bytes) { best = s; best_bytes = b; }
  }
  if (best == 0) {
    p.stages = 1;
    p.ctas_per_sm = 0;
    why << "not even 1 stage of " << req.stage_bytes << " B fits the shared memory of one CTA";
    p.reason = why.str();
    return p;
  }
  p.stages = best;
  p.ctas_per_sm = ctas_at(best);
  p.in_flight_bytes = best_bytes;
  why.setf(std::ios::fixed);
  why.precision(0);
  // "340 ns" or "(340 + 780 ns to land a 48 KiB stage at 63 GB/s per SM)"
  std::ostringstream time;
  time.setf(std::ios::fixed);
  time.precision(0);
  if (p.transfer_ns > 0)
    time << "(" << p.latency_ns << " + " << p.transfer_ns << " ns to land a " << double(req.stage_bytes) / 1024.0 << " KiB stage at "
         << req.fill_bytes_per_second_per_sm / 1e9 << " GB/s per SM)";
  else
    time << p.latency_ns << " ns";
  if (best_bytes >= p.needed_bytes)
    why << "Little's law: " << time.str() << " x " << p.demand_bytes_per_second_per_sm / 1e9 << " GB/s per SM = "
        << p.needed_bytes / 1024.0 << " KiB in flight per SM; " << best << " stages x " << p.ctas_per_sm
        << " CTAs/SM keep " << best_bytes / 1024.0 << " KiB in flight (" << (best - 1) << " loading + 1 consumed per CTA)";
  else
    why << "Little's law asks for " << p.needed_bytes / 1024.0 << " KiB in flight per SM; the most the shared memory allows is "
        << best_bytes / 1024.0 << " KiB at " << best << " stages x " << p.ctas_per_sm << " CTAs/SM";
  p.reason = why.str();
  return p;
}

int plan_stages(const device_caps& caps, std::size_t bytes_per_stage, int ctas_per_sm, double latency_ns, std::size_t smem_budget) {
  if (bytes_per_stage == 0)
    throw error(errc::invalid_argument, "planner.stage_bytes", "bytes_per_stage is 0; a stage must bring in at least one byte");
  const double lat = latency_ns > 0 ? latency_ns : default_memory_latency_ns(caps);
  const double needed = lat * 1e-9 * per_sm_dram(caps);
  const int ctas = ctas_per_sm > 0 ? ctas_per_sm : 1;
  int s = int(std::ceil(needed / (double(bytes_per_stage) * ctas))) + 1;
  s = std::clamp(s, 1, 8);
  while (s > 1 && std::size_t(s) * bytes_per_stage > smem_budget) --s;
  return s;
}

tile_schedule persistent_schedule(long long tiles, int grid) {
  if (grid < 1) throw error(errc::invalid_argument, "planner.grid", "a persistent grid needs at least 1 CTA; got " + std::to_string(grid));
  tile_schedule t;
  t.tiles = tiles;
  t.tiles_per_cta = 0;
  t.grid = grid;
  return t;
}

tile_schedule blocked_schedule(long long tiles, int tiles_per_cta) {
  if (tiles_per_cta < 1)
    throw error(errc::invalid_argument, "planner.tiles_per_cta", "a blocked schedule gives each CTA at least 1 tile; got " +
                                                                     std::to_string(tiles_per_cta));
  const long long grid = tiles > 0 ? (tiles + tiles_per_cta - 1) / tiles_per_cta : 1;
  if (grid > 0x7fffffffLL)
    throw error(errc::invalid_argument, "planner.grid", std::to_string(tiles) + " tiles at " + std::to_string(tiles_per_cta) +
                                                            " per CTA need " + std::to_string(grid) + " CTAs; gridDim.x allows 2^31 - 1");
  tile_schedule t;
  t.tiles = tiles;
  t.tiles_per_cta = tiles_per_cta;
  t.grid = int(grid);
  return t;
}

schedule_plan plan_schedule(const device_caps& caps, const schedule_request& req) {
  if (req.tile_bytes == 0)
    throw error(errc::invalid_argument, "planner.tile_bytes", "tile_bytes is 0; a tile must bring in at least one byte");
  if (req.ctas_per_sm < 1)
    throw error(errc::invalid_argument, "planner.ctas_per_sm",
                "ctas_per_sm is " + std::to_string(req.ctas_per_sm) + "; the kernel must fit at least one CTA per SM");
  if (req.tiles < 0) throw error(errc::invalid_argument, "planner.tiles", "tiles is " + std::to_string(req.tiles) + "; it must be >= 0");
  schedule_plan p;
  const double latency = req.latency_ns > 0 ? req.latency_ns : default_memory_latency_ns(caps);
  const double demand = req.demand_bytes_per_second_per_sm > 0 ? req.demand_bytes_per_second_per_sm : per_sm_dram(caps);
  const double transfer = transfer_ns(req.tile_bytes, req.fill_bytes_per_second_per_sm);
  p.needed_bytes = (latency + transfer) * 1e-9 * demand;
  const int sms = caps.sm_count > 0 ? caps.sm_count : 1;
  const long long resident = static_cast<long long>(sms) * req.ctas_per_sm;
  // One tile per CTA: each resident CTA keeps min(steps of its tile, stages - 1) stages in flight.
  const int ahead = req.stages > 1 ? req.stages - 1 : 1;
  const int steps = req.steps_per_tile > 0 ? req.steps_per_tile : 1;
  const double per_tile = double(req.ctas_per_sm) * double(steps < ahead ? steps : ahead) * double(req.tile_bytes);
  std::ostringstream why;
  why.setf(std::ios::fixed);
  why.precision(1);
  // A persistent CTA keeps `ahead` tiles' steps in flight; a one-tile CTA min(steps, ahead): with
  // tiles of at least `ahead` steps the two are the same, and persistence would buy nothing.
  const double persistent_bytes = double(req.ctas_per_sm) * double(ahead) * double(req.tile_bytes);
  if (req.tiles <= resident || per_tile >= p.needed_bytes || persistent_bytes <= per_tile) {
    p.schedule = blocked_schedule(req.tiles, 1);
    p.in_flight_bytes = per_tile;
    if (req.tiles <= resident)
      why << "one tile per CTA: the " << req.tiles << " tiles fit in one wave of " << resident << " resident CTAs";
    else if (per_tile >= p.needed_bytes)
      why << "one tile per CTA: " << req.ctas_per_sm << " resident CTAs/SM x " << (steps < ahead ? steps : ahead) << " x "
          << double(req.tile_bytes) / 1024.0 << " KiB = "
          << per_tile / 1024.0 << " KiB in flight per SM >= the " << p.needed_bytes / 1024.0 << " KiB Little's law asks for ("
          << latency + transfer << " ns x " << demand / 1e9 << " GB/s per SM); residency hides the latency";
    else
      why << "one tile per CTA: a tile of " << steps << " steps already keeps the pipeline's " << ahead << " stage"
          << (ahead == 1 ? "" : "s") << " in flight in each of " << req.ctas_per_sm << " resident CTAs/SM ("
          << per_tile / 1024.0 << " KiB per SM, below the " << p.needed_bytes / 1024.0
          << " KiB Little's law asks for); a persistent grid would keep no more";
  } else {
    p.schedule = persistent_schedule(req.tiles, int(resident));
    p.in_flight_bytes = persistent_bytes;
    why << "persistent: one tile per resident CTA keeps only " << per_tile / 1024.0 << " KiB in flight per SM, below the "
        << p.needed_bytes / 1024.0 << " KiB needed; " << resident << " CTAs each keep " << ahead << " tiles in flight ("
        << p.in_flight_bytes / 1024.0 << " KiB per SM)";
  }
  p.reason = why.str();
  return p;
}

launch_plan plan_launch(const device_caps& caps, const launch_plan_request& req) {
  const stage_plan_request& q = req.stages;
  if (q.stage_bytes == 0)
    throw error(errc::invalid_argument, "planner.stage_bytes", "stage_bytes is 0; a stage must bring in at least one byte");
  launch_plan p;
  // A one-step tile needs one stage; among the counts, the one whose instantiation fits the most
  // CTAs per SM (ties: fewer stages) — 1 unless ctas_per_sm_by_stages says otherwise.
  const int one_s = most_ctas_stages(caps, q, std::clamp(q.max_stages, 1, 8));
  const int one_ctas = one_s > 0 ? ctas_with_stages(caps, q, one_s) : 0;
  const double needed = needed_bytes(caps, q);
  const int sms = caps.sm_count > 0 ? caps.sm_count : 1;
  const double at_one = double(one_ctas) * double(q.stage_bytes);
  std::ostringstream why;
  why.setf(std::ios::fixed);
  why.precision(1);
  if (req.steps_per_tile <= 1 && one_ctas > 0 && (req.tiles <= static_cast<long long>(sms) * one_ctas || at_one >= needed)) {
    p.stages = one_s;
    p.one_tile_per_cta = true;
    p.ctas_per_sm = one_ctas;
    why << "one tile per CTA, " << one_s << (one_s == 1 ? " stage: " : " stages: ");
    if (at_one >= needed)
      why << one_ctas << " CTAs/SM x " << double(q.stage_bytes) / 1024.0 << " KiB = " << at_one / 1024.0
          << " KiB in flight per SM >= the " << needed / 1024.0 << " KiB Little's law asks for; ";
    else
      why << "the " << req.tiles << " tiles fit in one wave of " << static_cast<long long>(sms) * one_ctas << " resident CTAs ("
          << one_ctas << " per SM); ";
    if (one_s == 1)
      why << "more stages would only cut the CTAs per SM";
    else
      why << "a tile of one step uses one stage, and the " << one_s << "-stage instantiation fits the most CTAs per SM (against "
          << ctas_with_stages(caps, q, 1) << " at 1 stage)";
    p.reason = why.str();
    return p;
  }
  const stage_plan st = plan_stages(caps, q);
  p.stages = st.stages;
  p.ctas_per_sm = st.ctas_per_sm;
  schedule_request sr;
  sr.tiles = req.tiles;
  sr.tile_bytes = q.stage_bytes;
  sr.stages = st.stages;
  sr.ctas_per_sm = st.ctas_per_sm > 0 ? st.ctas_per_sm : 1;
  sr.steps_per_tile = req.steps_per_tile;
  sr.demand_bytes_per_second_per_sm = q.demand_bytes_per_second_per_sm;
  sr.latency_ns = q.latency_ns;
  sr.fill_bytes_per_second_per_sm = q.fill_bytes_per_second_per_sm;
  const schedule_plan sp = plan_schedule(caps, sr);
  p.one_tile_per_cta = !sp.schedule.persistent();
  p.reason = st.reason + "; grid: " + sp.reason;
  return p;
}

}  // namespace porter
