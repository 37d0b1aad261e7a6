// tests/device/harness.cpp — host machinery of the device tests (see harness.hpp).
#include "harness.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>

namespace porter_test {

// ---- run-wide settings ---------------------------------------------------------------------------

bool sanitizer_scale() {
  static const bool s = [] {
    const char* v = std::getenv("PORTER_DEVICE_TEST_SCALE");
    return v != nullptr && std::strcmp(v, "sanitizer") == 0;
  }();
  return s;
}

std::uint64_t base_seed() {
  static const std::uint64_t s = [] {
    if (const char* v = std::getenv("PORTER_DEVICE_TEST_SEED"); v != nullptr && *v != '\0')
      return std::uint64_t(std::strtoull(v, nullptr, 0));
    std::random_device rd;
    return (std::uint64_t(rd()) << 32) ^ std::uint64_t(rd());
  }();
  return s;
}

namespace {
std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

std::uint64_t case_seed(const std::string& label, int index) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a of the label
  for (unsigned char c : label) h = (h ^ c) * 0x100000001b3ull;
  return mix(base_seed() ^ mix(h) ^ mix(std::uint64_t(index) + 0x51ed270b27a4d93bull));
}

// ---- the GPU -------------------------------------------------------------------------------------

namespace {
struct gpu_state {
  bool ok = false;
  std::string why;
  porter::device_caps caps;
};
const gpu_state& state() {
  static const gpu_state s = [] {
    gpu_state g;
    auto c = porter::query_device(-1, &g.why);
    if (c) {
      g.ok = true;
      g.caps = *c;
    }
    return g;
  }();
  return s;
}
std::mutex broken_mu;
std::string broken_why;
}  // namespace

const porter::device_caps* gpu(std::string* why) {
  const gpu_state& s = state();
  if (!s.ok) {
    if (why) *why = s.why;
    return nullptr;
  }
  return &s.caps;
}

bool context_ok(std::string* why) {
  std::lock_guard<std::mutex> lock(broken_mu);
  if (broken_why.empty()) return true;
  if (why) *why = broken_why;
  return false;
}

void context_failed(const std::string& what) {
  std::lock_guard<std::mutex> lock(broken_mu);
  if (broken_why.empty())
    broken_why = "the CUDA context is unusable after an earlier failure (" + what +
                 "); later device tests cannot run in this process";
}

int path_status(const char* path_name, int min_cc, std::string* why) {
  std::string w;
  if (!context_ok(&w)) {
    *why = w;
    return 2;
  }
  const porter::device_caps* c = gpu(&w);
  if (c == nullptr) {
    *why = "no usable GPU: " + w;
    return 1;
  }
  if (min_cc > 0 && c->compute_capability() < min_cc) {
    *why = std::string("path ") + path_name + " needs compute capability " + std::to_string(min_cc / 10) + "." +
           std::to_string(min_cc % 10) + (min_cc >= 90 ? " (TMA)" : " (cp.async)") + "; this GPU is " + c->describe();
    return 1;
  }
  return 0;
}

// ---- counting ------------------------------------------------------------------------------------

tally& run_tally() {
  static tally t;
  return t;
}

test_tally::test_tally() = default;

void test_tally::note(const std::string& s) {
  if (std::find(notes_.begin(), notes_.end(), s) == notes_.end()) notes_.push_back(s);
}

test_tally::~test_tally() {
  tally& r = run_tally();
  r.cases += t.cases;
  r.refusals += t.refusals;
  r.mismatches += t.mismatches;
  r.tiles += t.tiles;
  r.bytes += t.bytes;
  r.skipped_instantiations += t.skipped_instantiations;
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : std::string("?");
  std::printf("[ porter   ] %s: %lld cases, %lld refusals checked, %lld mismatches, %lld destinations (%lld bytes)\n",
              name.c_str(), t.cases, t.refusals, t.mismatches, t.tiles, t.bytes);
  for (const auto& n : notes_) std::printf("[ porter   ]   note: %s\n", n.c_str());
  std::fflush(stdout);
  ::testing::Test::RecordProperty("porter_cases", std::to_string(t.cases));
  ::testing::Test::RecordProperty("porter_mismatches", std::to_string(t.mismatches));
}

// ---- tensors -------------------------------------------------------------------------------------

std::size_t geometry::span_bytes() const {
  std::int64_t last = 0;
  for (int d = 0; d < rank; ++d) last += (extent[d] - 1) * stride[d];
  return std::size_t(last + 1) * std::size_t(es);
}

std::string geometry::describe() const {
  std::ostringstream o;
  o << "rank " << rank << ", " << es << "-byte elements, extents [";
  for (int d = 0; d < rank; ++d) o << (d ? ", " : "") << extent[d];
  o << "], strides [";
  for (int d = 0; d < rank; ++d) o << (d ? ", " : "") << stride[d];
  o << "] (bytes [";
  for (int d = 0; d < rank; ++d) o << (d ? ", " : "") << stride[d] * es;
  o << "]), box [";
  for (int d = 0; d < rank; ++d) o << (d ? ", " : "") << box[d];
  o << "], first element " << offset << " B past a 256-byte boundary";
  if (swizzle) o << ", " << swizzle << " B swizzle";
  return o.str();
}

namespace {
template <class T>
T pick(std::mt19937_64& rng, const std::vector<T>& v) {
  return v[std::size_t(rng() % v.size())];
}
std::int64_t uniform(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {  // [lo, hi]
  if (hi <= lo) return lo;
  return lo + std::int64_t(rng() % std::uint64_t(hi - lo + 1));
}

enum pitch_mode { tight, aligned, aligned_plus, off_by_element, off_by_4 };

void fill_strides(geometry& g, const int* modes, std::mt19937_64& rng) {
  const int R = g.rank;
  const std::int64_t es = g.es;
  g.stride[R - 1] = 1;
  for (int d = R - 2; d >= 0; --d) {
    const std::int64_t base = g.stride[d + 1] * g.extent[d + 1];
    const std::int64_t al = (base * es + 15) / 16 * 16 / es;  // smallest 16-byte multiple >= base
    std::int64_t s = base;
    switch (modes[d]) {
      case tight: s = base; break;
      case aligned: s = al; break;
      case aligned_plus: s = al + uniform(rng, 1, 3) * (16 / es); break;
      case off_by_element: s = es < 16 ? al + 1 : al; break;
      case off_by_4: s = es <= 4 ? al + 4 / es : (es < 16 ? al + 1 : al); break;
    }
    g.stride[d] = s;
  }
}
}  // namespace

/// TMA box extent of dimension d as porter encodes it (dimension 0 split above 256 rows).
/// (0 when no split is legal: every copy must land on a 128-byte boundary.)
std::int64_t tma_box_dim(const geometry& g, int d) {
  if (d != 0 || g.rank < 2 || g.box[0] <= 256) return g.box[d];
  std::int64_t slab = g.es;
  for (int i = 1; i < g.rank; ++i) slab *= g.box[i];
  // Each copy of a split lands on 128 B, or on the swizzle's repeat (8 rows of 128 B in 128 B mode).
  // The repeat is 128 B x span / 16: 256, 512 or 1024 B.
  const std::int64_t align = g.swizzle == 0 ? 128 : 8 * std::int64_t(g.swizzle);
  for (std::int64_t split = 256; split >= 1; --split)
    if (g.box[0] % split == 0 && (split * slab) % align == 0) return split;
  return 0;
}

geometry random_geometry(std::mt19937_64& rng, int rank, int es, const int* box) {
  const bool small = sanitizer_scale();
  geometry g;
  g.rank = rank;
  g.es = es;
  for (int d = 0; d < rank; ++d) {
    const std::int64_t b = box[d];
    g.box[d] = box[d];
    std::vector<std::int64_t> cand = {1, std::max<std::int64_t>(1, b - 1), b, b + 1};
    if (small) {
      cand.push_back(uniform(rng, 1, 2 * b));
    } else {
      cand.push_back(2 * b + 3);
      cand.push_back(uniform(rng, 1, 3 * b));
      cand.push_back(uniform(rng, b, 3 * b + 7));
    }
    g.extent[d] = pick(rng, cand);
  }
  // Row pitches: 65 % of the cases keep every stride a multiple of 16 B (TMA-legal); the rest pick
  // a mode per dimension, including strides that are not multiples of 16 B.
  int modes[5] = {aligned, aligned, aligned, aligned, aligned};
  const bool all_aligned = rng() % 100 < 65;
  for (int d = 0; d + 1 < rank; ++d)
    modes[d] = all_aligned ? (rng() % 3 == 0 ? aligned_plus : aligned) : int(rng() % 5);
  // The first element's offset from a 256-byte boundary.
  std::vector<std::size_t> offs = {0, 4, 8, 12};
  if (es == 1) offs.insert(offs.end(), {1, 3, 7});
  if (es == 2) offs.insert(offs.end(), {2, 6});
  g.offset = rng() % 100 < 65 ? 0 : pick(rng, offs);
  // Keep tensors small enough to upload and check quickly.
  const std::size_t cap = small ? (std::size_t(1) << 18) : (std::size_t(1) << 22);
  for (;;) {
    fill_strides(g, modes, rng);
    if (g.span_bytes() <= cap) break;
    int big = 0;
    for (int d = 1; d < rank; ++d)
      if (g.extent[d] > g.extent[big]) big = d;
    g.extent[big] = std::max<std::int64_t>(1, g.extent[big] / 2);
  }
  return g;
}

geometry tma_legal_geometry(std::mt19937_64& rng, int rank, int es, const int* box) {
  geometry g = random_geometry(rng, rank, es, box);
  g.offset = 0;
  for (int d = 0; d < rank; ++d) g.extent[d] = std::max(g.extent[d], tma_box_dim(g, d));  // the box fits
  const int modes[5] = {aligned, aligned, aligned, aligned, aligned};
  fill_strides(g, modes, rng);  // the smallest 16-byte multiple pitch in every dimension
  return g;
}

geometry smaller_than_box_geometry(std::mt19937_64& rng, int rank, int es, const int* box) {
  geometry g = random_geometry(rng, rank, es, box);
  g.offset = 0;
  for (int d = 0; d < rank; ++d) g.extent[d] = box[d] > 1 ? uniform(rng, 1, box[d] - 1) : 1;
  const int modes[5] = {aligned, aligned_plus, aligned, aligned_plus, aligned};
  fill_strides(g, modes, rng);  // 16-byte multiple pitches
  return g;
}

host_tensor make_tensor(std::mt19937_64& rng, const geometry& g) {
  host_tensor t;
  t.g = g;
  t.origin = guard_bytes + g.offset;
  const std::size_t total = (t.origin + g.span_bytes() + guard_bytes + 255) / 256 * 256;
  t.image.resize(total);
  // Everything that is not a tensor element: random, never zero.
  for (std::size_t i = 0; i < total; i += 8) {
    std::uint64_t r = rng();
    for (std::size_t k = 0; k < 8 && i + k < total; ++k, r >>= 8) t.image[i + k] = static_cast<unsigned char>(1 + (r & 0xff) % 255);
  }
  // Tensor elements: random bytes, zero included. One innermost row at a time.
  const int R = g.rank;
  const std::size_t row_bytes = std::size_t(g.extent[R - 1]) * std::size_t(g.es);
  std::int64_t idx[5] = {};
  for (;;) {
    std::int64_t e = 0;
    for (int d = 0; d + 1 < R; ++d) e += idx[d] * g.stride[d];
    unsigned char* p = t.image.data() + t.origin + std::size_t(e) * std::size_t(g.es);
    for (std::size_t i = 0; i < row_bytes; i += 8) {
      std::uint64_t r = rng();
      for (std::size_t k = 0; k < 8 && i + k < row_bytes; ++k, r >>= 8) p[i + k] = static_cast<unsigned char>(r & 0xff);
    }
    int d = R - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < g.extent[d]) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  }
  return t;
}

void random_coord(std::mt19937_64& rng, const geometry& g, int* at) {
  for (int d = 0; d < g.rank; ++d) {
    const std::int64_t b = g.box[d], e = g.extent[d];
    const unsigned r = unsigned(rng() % 100);
    std::int64_t c;
    if (r == 0) {
      c = (rng() & 1) ? (std::int64_t(1) << 20) : -(std::int64_t(1) << 20);  // far outside
    } else if (r <= 30) {
      c = uniform(rng, 0, std::max<std::int64_t>(0, e - b));  // inside where the box fits
    } else if (r <= 50) {
      c = uniform(rng, -b + 1, e - 1);  // anywhere the box touches the tensor
    } else if (r <= 90) {
      const std::int64_t touching[] = {-b + 1, -1, 0, 1, e - b, e - b + 1, e - 1};  // across an edge, or on it
      c = touching[rng() % 7];
    } else {
      const std::int64_t outside[] = {-b, -b - 3, e, e + 3};  // just outside
      c = outside[rng() % 4];
    }
    at[d] = int(c);
  }
}

void reference_box(const host_tensor& t, const int* at, unsigned char* out) {
  const geometry& g = t.g;
  const int R = g.rank;
  const std::size_t es = std::size_t(g.es);
  const int inner = g.box[R - 1];
  int idx[5] = {};  // box indices of the outer dimensions
  unsigned char* o = out;
  for (;;) {
    bool inside = true;
    std::int64_t e = 0;
    for (int d = 0; d + 1 < R; ++d) {
      const std::int64_t gi = std::int64_t(at[d]) + idx[d];
      inside = inside && gi >= 0 && gi < g.extent[d];
      e += gi * g.stride[d];
    }
    for (int c = 0; c < inner; ++c, o += es) {
      const std::int64_t gc = std::int64_t(at[R - 1]) + c;
      if (inside && gc >= 0 && gc < g.extent[R - 1])
        std::memcpy(o, t.image.data() + t.origin + std::size_t(e + gc) * es, es);
      else
        std::memset(o, 0, es);
    }
    int d = R - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < g.box[d]) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  }
}

void swizzle_in_place(int span, unsigned char* img, std::size_t bytes) {
  if (span == 0) return;
  std::vector<unsigned char> dense(img, img + bytes);
  const std::size_t per_span = std::size_t(span) / 16;
  for (std::size_t o = 0; o < bytes; ++o) {
    const std::size_t row = o / 128, group = o / std::size_t(span), chunk = (o % std::size_t(span)) / 16;
    img[group * std::size_t(span) + (chunk ^ (row % per_span)) * 16 + o % 16] = dense[o];
  }
}

unsigned expected_paths(const geometry& g, std::uintptr_t addr, const porter::device_caps& caps) {
  const int R = g.rank;
  const std::uint64_t es = std::uint64_t(g.es);
  const std::uint64_t inner_bytes = std::uint64_t(g.box[R - 1]) * es;
  unsigned mask = porter::path_bit(porter::path_id::staged);
  // TMA (cuTensorMapEncodeTiled, cp.async.bulk): 16-byte address, strides and box rows.
  bool tma = caps.has_tma() && addr % 16 == 0 && inner_bytes % 16 == 0;
  for (int d = 0; d + 1 < R; ++d) {
    const std::uint64_t sb = std::uint64_t(g.stride[d]) * es;
    tma = tma && sb % 16 == 0 && sb < (std::uint64_t(1) << 40);
  }
  if (R >= 2) {
    tma = tma && std::uint64_t(g.box[R - 1]) * (es == 16 ? 2 : 1) <= 256;  // innermost: no split
    for (int d = 1; d + 1 < R; ++d) tma = tma && g.box[d] <= 256;       // middle: no split
    for (int d = 0; d < R; ++d) tma = tma && std::uint64_t(g.extent[d]) <= (std::uint64_t(1) << 32);
    // The outermost box dimension may exceed 256: porter splits it into equal copies of its
    // largest divisor <= 256 landing on 128 bytes. A box may exceed the tensor in any dimension
    // (the elements outside read as zero).
    for (int d = 0; d < R; ++d) tma = tma && tma_box_dim(g, d) >= 1;
  }
  if (tma) mask |= porter::path_bit(porter::path_id::tma);
  // cp.async: 4-, 8- or 16-byte granules wherever a row can start.
  std::uint64_t bits = std::uint64_t(addr) | inner_bytes;
  for (int d = 0; d + 1 < R; ++d) bits |= std::uint64_t(g.stride[d]) * es;
  const std::uint64_t low = bits & (~bits + 1);
  const bool cp = caps.has_cp_async() && (bits == 0 || low >= 4);
  if (cp) mask |= porter::path_bit(porter::path_id::cp_async);
  return mask;
}

std::string mask_names(unsigned mask) {
  std::string s;
  const porter::path_id all[3] = {porter::path_id::tma, porter::path_id::cp_async, porter::path_id::staged};
  for (porter::path_id p : all)
    if (mask & porter::path_bit(p)) s += (s.empty() ? "" : "|") + std::string(porter::path_id_name(p));
  return s.empty() ? "none" : s;
}

// ---- per-launch work -----------------------------------------------------------------------------

work_plan make_work(std::mt19937_64& rng, int stages) {
  const int S = stages;
  std::vector<int> trips = {0, 1, S - 1, S, S + 1};
  if (!sanitizer_scale()) {
    trips.push_back(2 * S + 1);
    trips.push_back(3 * S + 2);
    if (rng() % 3 == 0) {
      const std::vector<int> again = trips;
      trips.insert(trips.end(), again.begin(), again.end());
    }
  }
  std::shuffle(trips.begin(), trips.end(), rng);
  work_plan w;
  for (int t : trips) {
    w.work.push_back(make_int2(w.total, t));
    w.total += t;
  }
  return w;
}

dim3 pick_block(int index, int max_threads) {
  static const dim3 shapes[] = {dim3(128), dim3(67), dim3(256), dim3(32), dim3(16, 4, 2), dim3(96), dim3(1), dim3(1024)};
  dim3 b = shapes[unsigned(index) % (sizeof(shapes) / sizeof(shapes[0]))];
  if (int(block_threads(b)) > max_threads) b = dim3(unsigned(std::min(128, max_threads)));
  return b;
}

// ---- staging -------------------------------------------------------------------------------------

namespace {
struct device_buffer {
  unsigned char* p = nullptr;
  std::size_t cap = 0;
  bool ensure(std::size_t n, std::string* err) {
    if (n <= cap) return true;
    if (p) cudaFree(p);
    p = nullptr;
    cap = 0;
    const std::size_t want = std::max<std::size_t>(n + n / 2, std::size_t(1) << 20);
    if (cudaError_t e = cudaMalloc(&p, want); e != cudaSuccess) {
      *err = std::string("cudaMalloc(") + std::to_string(want) + "): " + cudaGetErrorString(e);
      p = nullptr;
      return false;
    }
    cap = want;
    return true;
  }
  void release() {
    if (p) cudaFree(p);
    p = nullptr;
    cap = 0;
  }
};
device_buffer d_in, d_args, d_out;

unsigned char guard_pattern(std::size_t i) { return static_cast<unsigned char>(0x5Cu ^ (unsigned(i) * 131u)); }
}  // namespace

void release_device_buffers() {
  d_in.release();
  d_args.release();
  d_out.release();
}

std::size_t staging::add_input(const std::vector<unsigned char>& bytes) {
  const std::size_t off = (in_.size() + 255) / 256 * 256;
  in_.resize(off + bytes.size());
  std::memcpy(in_.data() + off, bytes.data(), bytes.size());
  return off;
}

std::size_t staging::add_arg_bytes(const void* p, std::size_t n) {
  const std::size_t off = (args_.size() + 15) / 16 * 16;
  args_.resize(off + std::max<std::size_t>(n, 1));
  if (n) std::memcpy(args_.data() + off, p, n);
  return off;
}

void staging::set_output(std::size_t slots, std::size_t slot_bytes) {
  slots_ = slots;
  slot_bytes_ = slot_bytes;
  out_.assign(2 * guard_bytes + slots * slot_bytes, poison_byte);
  for (std::size_t i = 0; i < guard_bytes; ++i) {
    out_[i] = guard_pattern(i);
    out_[out_.size() - guard_bytes + i] = guard_pattern(i + guard_bytes);
  }
}

bool staging::upload(std::string* err) {
  if (!d_in.ensure(std::max<std::size_t>(in_.size(), 1), err) || !d_args.ensure(std::max<std::size_t>(args_.size(), 1), err) ||
      !d_out.ensure(out_.size(), err))
    return false;
  cudaError_t e = cudaSuccess;
  if (!in_.empty() && e == cudaSuccess) e = cudaMemcpy(d_in.p, in_.data(), in_.size(), cudaMemcpyHostToDevice);
  if (!args_.empty() && e == cudaSuccess) e = cudaMemcpy(d_args.p, args_.data(), args_.size(), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(d_out.p, out_.data(), out_.size(), cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    *err = std::string("cudaMemcpy (upload): ") + cudaGetErrorString(e);
    context_failed(*err);
    return false;
  }
  return true;
}

const unsigned char* staging::input(std::size_t off) const { return d_in.p + off; }
const unsigned char* staging::arg_base() const { return d_args.p; }
unsigned char* staging::output() const { return d_out.p + guard_bytes; }

bool staging::fetch(std::string* err) {
  if (cudaError_t e = cudaMemcpy(out_.data(), d_out.p, out_.size(), cudaMemcpyDeviceToHost); e != cudaSuccess) {
    *err = std::string("cudaMemcpy (fetch): ") + cudaGetErrorString(e);
    context_failed(*err);
    return false;
  }
  return true;
}

bool staging::guards_intact(std::string* what) const {
  for (std::size_t i = 0; i < guard_bytes; ++i) {
    if (out_[i] != guard_pattern(i)) {
      *what = "the guard before the output was overwritten at byte " + std::to_string(i) + " of 256";
      return false;
    }
    if (out_[out_.size() - guard_bytes + i] != guard_pattern(i + guard_bytes)) {
      *what = "the guard after the output was overwritten at byte " + std::to_string(i) + " of 256";
      return false;
    }
  }
  return true;
}

bool sync_launch(const std::string& what, std::string* err) {
  const cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) return true;
  *err = what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  context_failed(*err);
  return false;
}

long long first_difference(const unsigned char* got, const unsigned char* want, std::size_t n, std::size_t* count) {
  long long first = -1;
  std::size_t c = 0;
  if (std::memcmp(got, want, n) != 0) {
    for (std::size_t i = 0; i < n; ++i)
      if (got[i] != want[i]) {
        if (first < 0) first = (long long)i;
        ++c;
      }
  }
  if (count) *count = c;
  return first;
}

std::string bytes_around(const unsigned char* got, const unsigned char* want, std::size_t n, std::size_t at) {
  const std::size_t lo = at >= 4 ? at - 4 : 0, hi = std::min(n, at + 12);
  char buf[8];
  std::string g = "got ", w = "want";
  for (std::size_t i = lo; i < hi; ++i) {
    std::snprintf(buf, sizeof buf, " %02x", got[i]);
    g += buf;
    std::snprintf(buf, sizeof buf, " %02x", want[i]);
    w += buf;
  }
  return "bytes " + std::to_string(lo) + ".." + std::to_string(hi - 1) + ": " + g + " / " + w;
}

}  // namespace porter_test

// ---- case loops ----------------------------------------------------------------------------------

namespace porter_test {

std::string seed_text() {
  char b[32];
  std::snprintf(b, sizeof b, "%#llx", (unsigned long long)base_seed());
  return b;
}

std::string block_text(dim3 b) {
  return "(" + std::to_string(b.x) + "," + std::to_string(b.y) + "," + std::to_string(b.z) + ")";
}

std::string coord_text(const int* at, int rank) {
  std::string s = "(";
  for (int d = 0; d < rank; ++d) s += (d ? ", " : "") + std::to_string(at[d]);
  return s + ")";
}

namespace {

std::string spec_label(const source_spec& s) {
  std::string l = std::to_string(s.es) + "B[";
  for (int d = 0; d < s.rank; ++d) l += (d ? "x" : "") + std::to_string(s.box[d]);
  return l + "]" + (s.swizzle ? " sw" + std::to_string(s.swizzle) : std::string());
}

/// The path `automatic` should pick for a source with model mask `want`.
porter::path_id expected_auto(unsigned want, const porter::device_caps& caps) {
  if (caps.has_tma() && (want & porter::path_bit(porter::path_id::tma))) return porter::path_id::tma;
  if (caps.has_cp_async() && (want & porter::path_bit(porter::path_id::cp_async))) return porter::path_id::cp_async;
  return porter::path_id::staged;
}

/// The refusal of a forced launch: `launch()` must throw porter::error(errc::path_unsupported),
/// naming `rule` when given (tma only). If porter lets it through, the launch has one CTA with
/// zero trips, so nothing is read.
void expect_refusal(test_tally& tt, const std::string& where, const tile_kernel& k, const std::string& rule,
                    const std::function<void()>& launch) {
  try {
    launch();
  } catch (const porter::error& e) {
    const std::string what = e.what();
    bool ok = e.code() == porter::errc::path_unsupported;
    if (ok && k.path == porter::path_id::tma && !rule.empty()) ok = what.find(rule) != std::string::npos;
    if (ok) {
      tt.refused();
    } else if (tt.mismatch()) {
      ADD_FAILURE() << where << ": porter::launch<" << k.path_name << "> refused with the wrong error"
                    << (rule.empty() ? std::string() : " (expected rule " + rule + ")") << ": " << what;
    }
    return;
  }
  std::string err;
  sync_launch(std::string("unrefused launch<") + k.path_name + ">", &err);
  if (tt.mismatch()) ADD_FAILURE() << where << ": porter::launch<" << k.path_name << "> accepted a source the path cannot read";
}

}  // namespace

void run_tile_cases(test_tally& tt, const std::string& list, const case_options& opt, const tile_kernel& k) {
  const porter::device_caps& caps = *gpu();
  const int nsrc = int(k.sources.size());
  std::string label = list;
  std::size_t slot_bytes = 0;
  for (int i = 0; i < nsrc; ++i) {
    label += (i ? "+" : " ") + spec_label(k.sources[std::size_t(i)]);
    slot_bytes += k.sources[std::size_t(i)].buffer_bytes;
  }
  label += " S=" + std::to_string(k.stages);
  if (std::string(k.schedule) != "protocol") label += std::string(" ") + k.schedule;
  if (k.smem_shift) label += " at base+" + std::to_string(k.smem_shift);
  if (k.shared_bytes > caps.smem_per_block_optin) {
    tt.t.skipped_instantiations++;
    tt.note(label + ": not run, needs " + std::to_string(k.shared_bytes) + " B of shared memory; " + caps.describe() +
            " allows " + std::to_string(caps.smem_per_block_optin));
    return;
  }
  for (int ci = 0; ci < opt.cases; ++ci) {
    if (!context_ok()) return;
    std::mt19937_64 rng(case_seed(label, ci));
    // Layouts, data, work, box origins.
    std::vector<geometry> g(static_cast<std::size_t>(nsrc));
    std::vector<host_tensor> t(static_cast<std::size_t>(nsrc));
    for (int i = 0; i < nsrc; ++i) {
      const source_spec& sp = k.sources[std::size_t(i)];
      g[std::size_t(i)] = (i == 0 && opt.geometry) ? opt.geometry(rng) : random_geometry(rng, sp.rank, sp.es, sp.box);
      g[std::size_t(i)].swizzle = sp.swizzle;
      t[std::size_t(i)] = make_tensor(rng, g[std::size_t(i)]);
    }
    const work_plan wp = make_work(rng, k.stages);
    std::vector<std::vector<int>> at(static_cast<std::size_t>(nsrc));
    for (int i = 0; i < nsrc; ++i) {
      const int R = k.sources[std::size_t(i)].rank;
      at[std::size_t(i)].resize(std::size_t(wp.total + 1) * std::size_t(R));
      for (int j = 0; j <= wp.total; ++j) random_coord(rng, g[std::size_t(i)], at[std::size_t(i)].data() + std::size_t(j) * std::size_t(R));
    }
    const dim3 block = k.fixed_threads ? dim3(k.fixed_threads) : pick_block(ci + int(rng() % 3), k.max_threads);
    const int ahead = ci % 3 == 0 ? k.stages : (ci % 3 == 1 ? 1 : 1 + int(rng() % unsigned(k.stages)));
    const bool protocol = std::string(k.schedule) == "protocol";
    const int prefill = protocol ? int(rng() & 1) : 0;
    std::string where = label + " case " + std::to_string(ci) + " [path " + k.path_name + ", PORTER_DEVICE_TEST_SEED=" +
                        seed_text() + "; ";
    for (int i = 0; i < nsrc; ++i) where += (nsrc > 1 ? (i ? "; B: " : "A: ") : "") + g[std::size_t(i)].describe();
    where += "; " + std::to_string(wp.work.size()) + " CTAs of " + block_text(block);
    if (protocol) where += ", ahead " + std::to_string(ahead) + (prefill ? ", prefilled" : "");
    where += "]";

    staging st;
    std::vector<std::size_t> in_off(static_cast<std::size_t>(nsrc)), at_off(static_cast<std::size_t>(nsrc));
    for (int i = 0; i < nsrc; ++i) in_off[std::size_t(i)] = st.add_input(t[std::size_t(i)].image);
    for (int i = 0; i < nsrc; ++i) at_off[std::size_t(i)] = st.add_arg(at[std::size_t(i)]);
    const std::size_t work_off = st.add_arg(wp.work);
    const std::size_t idle_off = st.add_arg(std::vector<int2>{make_int2(0, 0)});
    st.set_output(std::size_t(wp.total), slot_bytes);
    std::string err;
    if (!st.upload(&err)) {
      ADD_FAILURE() << where << ": " << err;
      return;
    }
    // Sources and the paths they allow.
    std::vector<const int*> d_at(static_cast<std::size_t>(nsrc));
    unsigned want_all = ~0u;
    bool built = true;
    for (int i = 0; i < nsrc && built; ++i) {
      const void* ptr = st.input(in_off[std::size_t(i)]) + t[std::size_t(i)].origin;
      d_at[std::size_t(i)] = st.arg<int>(at_off[std::size_t(i)]);
      try {
        k.build(i, g[std::size_t(i)], ptr);
      } catch (const porter::error& e) {
        if (tt.mismatch()) ADD_FAILURE() << where << ": make_tiled_source threw for source " << i << ": " << e.what();
        built = false;
        break;
      }
      const unsigned want = expected_paths(g[std::size_t(i)], reinterpret_cast<std::uintptr_t>(ptr), caps);
      want_all &= want;
      const unsigned got = k.supported(i);
      if (got != want && tt.mismatch())
        ADD_FAILURE() << where << ": source " << i << ": porter allows {" << mask_names(got) << "}, the rules allow {"
                      << mask_names(want) << "}\n" << k.explain(i);
      if (opt.tma_must_run && caps.has_tma() && !(want & porter::path_bit(porter::path_id::tma)) && tt.mismatch())
        ADD_FAILURE() << where << ": this layout was built TMA-legal, but the test's model refuses it";
      const porter::path_id ea = expected_auto(want, caps), ga = porter::select_path(got, caps.compute_capability(), false);
      if (ea != ga && tt.mismatch())
        ADD_FAILURE() << where << ": source " << i << ": automatic picks " << porter::path_id_name(ga) << ", expected "
                      << porter::path_id_name(ea);
    }
    if (!built) continue;
    if (k.forced && !(want_all & porter::path_bit(k.path))) {
      expect_refusal(tt, where, k, opt.tma_rule, [&] {
        k.launch(dim3(1), dim3(k.fixed_threads ? k.fixed_threads : 32), d_at, st.arg<int2>(idle_off), st.output(), 1, 0);
      });
      continue;
    }
    try {
      k.launch(dim3(unsigned(wp.work.size())), block, d_at, st.arg<int2>(work_off), st.output(), ahead, prefill);
    } catch (const porter::error& e) {
      if (tt.mismatch()) ADD_FAILURE() << where << ": porter::launch threw: " << e.what();
      continue;
    }
    if (!sync_launch(label + " case " + std::to_string(ci) + " on " + k.path_name, &err) || !st.fetch(&err)) {
      ADD_FAILURE() << where << ": " << err;
      return;
    }
    if (std::string what; !st.guards_intact(&what) && tt.mismatch()) ADD_FAILURE() << where << ": " << what;
    // Every destination, byte for byte.
    std::vector<unsigned char> ref(slot_bytes);
    for (int j = 0; j < wp.total; ++j) {
      std::size_t o = 0;
      for (int i = 0; i < nsrc; ++i) {
        const source_spec& sp = k.sources[std::size_t(i)];
        reference_box(t[std::size_t(i)], at[std::size_t(i)].data() + std::size_t(j) * std::size_t(sp.rank), ref.data() + o);
        if (k.raw_layout) swizzle_in_place(sp.swizzle, ref.data() + o, sp.bytes);
        for (std::size_t b = sp.bytes; b < sp.buffer_bytes; ++b) ref[o + b] = prefill ? stage_pattern(b) : poison_byte;
        o += sp.buffer_bytes;
      }
      std::size_t ndiff = 0;
      const unsigned char* got = st.slot(std::size_t(j));
      const long long first = first_difference(got, ref.data(), slot_bytes, &ndiff);
      if (first < 0 || !tt.mismatch()) continue;
      // Locate the first difference: which source, which element of its box.
      int src = 0;
      std::size_t local = std::size_t(first);
      while (src + 1 < nsrc && local >= k.sources[std::size_t(src)].buffer_bytes) local -= k.sources[std::size_t(src++)].buffer_bytes;
      const source_spec& sp = k.sources[std::size_t(src)];
      const std::size_t e = local / std::size_t(sp.es);
      const int R = sp.rank;
      std::ostringstream m;
      m << where << ": destination " << j << ", source " << src << " box at "
        << coord_text(at[std::size_t(src)].data() + std::size_t(j) * std::size_t(R), R) << ": " << ndiff << " of "
        << slot_bytes << " bytes differ, first at byte " << local << " of the buffer";
      if (local < sp.bytes)
        m << " (element " << e << ": row " << e / std::size_t(sp.box[R - 1]) << ", column " << e % std::size_t(sp.box[R - 1]) << ")";
      else
        m << " (in the buffer's padding past the box: " << (prefill ? "the copy wrote past its box" : "the consumer stored too much") << ")";
      m << "; " << bytes_around(got, ref.data(), slot_bytes, std::size_t(first)) << "\n";
      for (int i = 0; i < nsrc; ++i) m << k.explain(i);
      ADD_FAILURE() << m.str();
    }
    tt.ran(wp.total, (long long)wp.total * (long long)slot_bytes);
  }
}

void run_bytes_cases(test_tally& tt, const std::string& list, int ncases, const bytes_kernel& k) {
  static const int offsets[] = {0, 4, 8, 12, 16, 1, 2, 3, 7, 13};
  static const int counts[] = {4, 12, 40, 132, 508, 2046, 0, 1, 3, 15, 16, 17, 64, 1024, 2047, 2048};
  constexpr int n_off = int(sizeof(offsets) / sizeof(offsets[0])), n_cnt = int(sizeof(counts) / sizeof(counts[0]));
  const int buf = int(k.buffer_bytes);
  const std::string label = list + " bytes S=" + std::to_string(k.stages);
  int pair = 0;
  for (int ci = 0; ci < ncases; ++ci) {
    if (!context_ok()) return;
    std::mt19937_64 rng(case_seed(label, ci));
    // Source: buf + 64 random bytes at a 256-byte boundary, inside random guards.
    std::vector<unsigned char> image(guard_bytes + std::size_t(buf) + 64 + guard_bytes);
    for (auto& b : image) b = static_cast<unsigned char>(1 + rng() % 255);
    const unsigned char* data = image.data() + guard_bytes;
    for (std::size_t i = 0; i < std::size_t(buf) + 64; ++i) image[guard_bytes + i] = static_cast<unsigned char>(rng());
    const work_plan wp = make_work(rng, k.stages);
    std::vector<int> offs(std::size_t(wp.total) + 1), cnts(std::size_t(wp.total) + 1);
    for (int j = 0; j < wp.total; ++j, ++pair) {
      offs[std::size_t(j)] = offsets[(pair / n_cnt) % n_off];
      cnts[std::size_t(j)] = std::min(counts[pair % n_cnt], buf);
      if (rng() % 4 == 0) {  // and random pairs
        offs[std::size_t(j)] = int(rng() % 64);
        cnts[std::size_t(j)] = int(rng() % unsigned(buf + 1));
      }
    }
    const dim3 block = pick_block(ci + int(rng() % 3), k.max_threads);
    const int ahead = ci % 3 == 0 ? k.stages : (ci % 3 == 1 ? 1 : 1 + int(rng() % unsigned(k.stages)));
    const int prefill = int(rng() & 1);
    const std::string where = label + " case " + std::to_string(ci) + " [path " + k.path_name + ", PORTER_DEVICE_TEST_SEED=" +
                              seed_text() + "; " + std::to_string(wp.work.size()) + " CTAs of " + block_text(block) +
                              ", ahead " + std::to_string(ahead) + (prefill ? ", prefilled" : "") + "]";
    staging st;
    const std::size_t in_off = st.add_input(image);
    const std::size_t offs_off = st.add_arg(offs), cnts_off = st.add_arg(cnts), work_off = st.add_arg(wp.work);
    st.set_output(std::size_t(wp.total), std::size_t(buf));
    std::string err;
    if (!st.upload(&err)) {
      ADD_FAILURE() << where << ": " << err;
      return;
    }
    try {
      k.launch(dim3(unsigned(wp.work.size())), block, st.input(in_off) + guard_bytes, st.arg<int>(offs_off),
               st.arg<int>(cnts_off), st.arg<int2>(work_off), st.output(), ahead, prefill);
    } catch (const porter::error& e) {
      if (tt.mismatch()) ADD_FAILURE() << where << ": porter::launch threw: " << e.what();
      continue;
    }
    if (!sync_launch(label + " case " + std::to_string(ci) + " on " + k.path_name, &err) || !st.fetch(&err)) {
      ADD_FAILURE() << where << ": " << err;
      return;
    }
    if (std::string what; !st.guards_intact(&what) && tt.mismatch()) ADD_FAILURE() << where << ": " << what;
    std::vector<unsigned char> ref(static_cast<std::size_t>(buf));
    for (int j = 0; j < wp.total; ++j) {
      const int o = offs[std::size_t(j)], n = cnts[std::size_t(j)];
      std::memcpy(ref.data(), data + o, std::size_t(n));
      for (int b = n; b < buf; ++b) ref[std::size_t(b)] = prefill ? stage_pattern(std::size_t(b)) : poison_byte;
      std::size_t ndiff = 0;
      const long long first = first_difference(st.slot(std::size_t(j)), ref.data(), std::size_t(buf), &ndiff);
      if (first >= 0 && tt.mismatch())
        ADD_FAILURE() << where << ": destination " << j << " (" << n << " bytes from offset " << o << "): " << ndiff
                      << " bytes differ, first at byte " << first
                      << (first >= n ? (prefill ? " (past the copied range: the copy overwrote the stage beyond its count)"
                                                : " (past the copied range)")
                                     : "")
                      << "; " << bytes_around(st.slot(std::size_t(j)), ref.data(), std::size_t(buf), std::size_t(first));
    }
    tt.ran(wp.total, (long long)wp.total * buf);
  }
}

}  // namespace porter_test
