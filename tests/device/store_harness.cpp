// tests/device/store_harness.cpp — the case loops of the store and reduction tests (see the header).
#include "store_harness.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <vector>

namespace porter_test {
namespace {

/// A device allocation freed at scope exit.
struct dev_mem {
  void* p = nullptr;
  explicit dev_mem(std::size_t n) {
    if (cudaMalloc(&p, n ? n : 1) != cudaSuccess) {
      cudaGetLastError();
      p = nullptr;
    }
  }
  ~dev_mem() {
    if (p) cudaFree(p);
  }
  dev_mem(const dev_mem&) = delete;
  dev_mem& operator=(const dev_mem&) = delete;
  unsigned char* bytes() const { return static_cast<unsigned char*>(p); }
};

const char* mode_name(store_mode m) {
  switch (m) {
    case store_mode::store: return "store";
    case store_mode::add: return "add";
    case store_mode::min: return "min";
    case store_mode::max: return "max";
  }
  return "?";
}

/// A random value of the reduction's kind, as its bytes: f32 with a full 24-bit mantissa and an
/// exponent in [-12, 12] (rounding matters; no subnormal or overflow can arise), random integers.
void random_value(std::mt19937_64& rng, int kind, unsigned char* out) {
  if (kind == 0) {
    const float m = float(std::uint32_t(rng() & 0xFFFFFFu) | 0x800000u) / float(1u << 23);
    float f = std::ldexp(m, int(rng() % 25) - 12);
    if (rng() & 1) f = -f;
    std::memcpy(out, &f, 4);
  } else if (kind == 3) {
    const std::uint64_t v = rng();
    std::memcpy(out, &v, 8);
  } else {
    const std::uint32_t v = std::uint32_t(rng());
    std::memcpy(out, &v, 4);
  }
}

/// old <- op(old, v) for one element of the reduction's kind (the CPU model: IEEE single-precision
/// addition, round to nearest even; wrapping integer addition; signed or unsigned min/max).
void combine(store_mode m, int kind, unsigned char* old, const unsigned char* v) {
  if (kind == 0) {
    float a, b;
    std::memcpy(&a, old, 4);
    std::memcpy(&b, v, 4);
    const float r = a + b;  // only add is defined for f32
    std::memcpy(old, &r, 4);
  } else if (kind == 3) {
    std::uint64_t a, b;
    std::memcpy(&a, old, 8);
    std::memcpy(&b, v, 8);
    const std::uint64_t r = a + b;
    std::memcpy(old, &r, 8);
  } else {
    std::uint32_t a, b;
    std::memcpy(&a, old, 4);
    std::memcpy(&b, v, 4);
    std::uint32_t r = a;
    if (m == store_mode::add) r = a + b;
    else if (kind == 1) {
      const std::int32_t sa = std::int32_t(a), sb = std::int32_t(b);
      r = std::uint32_t(m == store_mode::min ? std::min(sa, sb) : std::max(sa, sb));
    } else {
      r = m == store_mode::min ? std::min(a, b) : std::max(a, b);
    }
    std::memcpy(old, &r, 4);
  }
}

/// Byte offset in the host image of element idx (tensor coordinates, inside).
std::size_t element_offset(const host_tensor& t, const std::int64_t* idx) {
  std::int64_t e = 0;
  for (int d = 0; d < t.g.rank; ++d) e += idx[d] * t.g.stride[d];
  return t.origin + std::size_t(e) * std::size_t(t.g.es);
}

/// Apply slot `tile` (dense box bytes) at `at` to the reference image.
void apply_tile(host_tensor& ref, const source_spec& b, store_mode m, int kind, const int* at, const unsigned char* tile) {
  const int R = b.rank;
  const std::size_t es = std::size_t(b.es);
  int idx[5] = {};
  for (std::size_t e = 0;; ++e) {
    bool inside = true;
    std::int64_t g[5];
    for (int d = 0; d < R; ++d) {
      g[d] = std::int64_t(at[d]) + idx[d];
      inside = inside && g[d] >= 0 && g[d] < ref.g.extent[d];
    }
    if (inside) {
      unsigned char* p = ref.image.data() + element_offset(ref, g);
      if (m == store_mode::store) std::memcpy(p, tile + e * es, es);
      else combine(m, kind, p, tile + e * es);
    }
    int d = R - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < b.box[d]) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  }
}

bool copy_up(void* d, const void* h, std::size_t n, std::string* err) {
  if (n == 0) return true;
  if (cudaMemcpy(d, h, n, cudaMemcpyHostToDevice) == cudaSuccess) return true;
  *err = std::string("cudaMemcpy to the device failed: ") + cudaGetErrorString(cudaGetLastError());
  return false;
}

}  // namespace

void run_store_cases(test_tally& tt, const std::string& list, const case_options& opt, const store_kernel& k) {
  const porter::device_caps& caps = *gpu();
  const source_spec& b = k.box;
  std::string label = list + " " + mode_name(k.mode) + " " + std::to_string(b.es) + "B[";
  for (int d = 0; d < b.rank; ++d) label += (d ? "x" : "") + std::to_string(b.box[d]);
  label += "]" + (b.swizzle ? " sw" + std::to_string(b.swizzle) : std::string());
  if (k.shared_bytes > caps.smem_per_block_optin) {
    tt.t.skipped_instantiations++;
    tt.note(label + ": not run, needs " + std::to_string(k.shared_bytes) + " B of shared memory");
    return;
  }
  const bool exact_in_any_order = k.mode != store_mode::store && k.value_kind != 0;  // integer reductions
  for (int ci = 0; ci < opt.cases; ++ci) {
    if (!context_ok()) return;
    std::mt19937_64 rng(case_seed(label, ci));
    geometry g = opt.geometry ? opt.geometry(rng) : random_geometry(rng, b.rank, b.es, b.box);
    g.swizzle = b.swizzle;
    // Arithmetic elements are naturally aligned (rule destination.element_alignment): the layouts of
    // reductions put the first element on a multiple of the element size.
    if (k.mode != store_mode::store) g.offset -= g.offset % std::size_t(b.es);
    host_tensor t = make_tensor(rng, g);
    const int R = b.rank;
    if (k.mode != store_mode::store) {  // valid values of the kind in every element of the tensor
      int idx[5] = {};
      for (;;) {
        std::int64_t gi[5];
        for (int d = 0; d < R; ++d) gi[d] = idx[d];
        random_value(rng, k.value_kind, t.image.data() + element_offset(t, gi));
        int d = R - 1;
        for (; d >= 0; --d) {
          if (++idx[d] < g.extent[d]) break;
          idx[d] = 0;
        }
        if (d < 0) break;
      }
    }
    // A tile grid with a random origin (cut at every edge), its tiles in random order, a random
    // subset; integer reductions also repeat some tiles (overlap).
    int origin[5], ntile[5];
    long long total = 1;
    for (int d = 0; d < R; ++d) {
      origin[d] = -int(rng() % unsigned(b.box[d]));
      if (d == R - 1 && (rng() & 1)) {  // a 16-byte aligned inner origin: TMA can take every tile
        const int per16 = std::max(1, 16 / b.es);
        origin[d] = -(int(rng() % unsigned(std::max(1, b.box[d] / per16))) * per16);
      }
      ntile[d] = int((g.extent[d] - origin[d] + b.box[d] - 1) / b.box[d]) + 1;  // + one wholly outside
      total *= ntile[d];
    }
    const long long cap = sanitizer_scale() ? 6 : 48;
    std::vector<long long> order(std::size_t(std::min<long long>(total, 4096)));
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = (long long)((rng() % std::uint64_t(total)));
    std::sort(order.begin(), order.end());
    order.erase(std::unique(order.begin(), order.end()), order.end());
    std::shuffle(order.begin(), order.end(), rng);
    order.resize(std::size_t(std::min<long long>((long long)order.size(), 1 + (long long)(rng() % std::uint64_t(cap)))));
    if (exact_in_any_order && order.size() > 1)
      for (int r = 0; r < 3; ++r) order.push_back(order[rng() % order.size()]);
    const int m = int(order.size());
    std::vector<int> coords(std::size_t(m) * std::size_t(R));
    for (int j = 0; j < m; ++j) {
      long long rest = order[std::size_t(j)];
      for (int d = R - 1; d >= 0; --d) {
        coords[std::size_t(j) * std::size_t(R) + std::size_t(d)] = origin[d] + int(rest % ntile[d]) * b.box[d];
        rest /= ntile[d];
      }
    }
    // Tiles: fresh random data (valid values of the kind for reductions).
    std::vector<unsigned char> tiles(std::size_t(m) * b.bytes);
    if (k.mode == store_mode::store) {
      for (auto& x : tiles) x = static_cast<unsigned char>(rng());
    } else {
      const std::size_t vb = k.value_kind == 3 ? 8 : 4;
      for (std::size_t o = 0; o < tiles.size(); o += vb) random_value(rng, k.value_kind, tiles.data() + o);
    }
    // Work: contiguous runs of slots per CTA.
    const int ncta = 1 + int(rng() % unsigned(std::min(m, 6)));
    std::vector<int2> work;
    for (int c = 0, first = 0; c < ncta; ++c) {
      const int n = c + 1 == ncta ? m - first : (m - first) / (ncta - c);
      work.push_back(make_int2(first, n));
      first += n;
    }
    const dim3 block = pick_block(ci + int(rng() % 3), k.max_threads);
    // The reference: the image with each slot applied in order.
    host_tensor ref = t;
    for (int j = 0; j < m; ++j) apply_tile(ref, b, k.mode, k.value_kind, coords.data() + std::size_t(j) * std::size_t(R), tiles.data() + std::size_t(j) * b.bytes);

    std::string where = label + " case " + std::to_string(ci) + " [path " + k.path_name + ", PORTER_DEVICE_TEST_SEED=" + seed_text() +
                        "; " + g.describe() + "; " + std::to_string(m) + " tiles in " + std::to_string(ncta) + " CTAs of " + block_text(block) + "]";
    std::string err;
    dev_mem d_img(t.image.size()), d_tiles(tiles.size()), d_coords(coords.size() * sizeof(int)), d_work(work.size() * sizeof(int2));
    if (!d_img.p || !d_tiles.p || !d_coords.p || !d_work.p) {
      ADD_FAILURE() << where << ": cudaMalloc failed";
      return;
    }
    if (!copy_up(d_img.p, t.image.data(), t.image.size(), &err) || !copy_up(d_tiles.p, tiles.data(), tiles.size(), &err) ||
        !copy_up(d_coords.p, coords.data(), coords.size() * sizeof(int), &err) ||
        !copy_up(d_work.p, work.data(), work.size() * sizeof(int2), &err)) {
      ADD_FAILURE() << where << ": " << err;
      return;
    }
    void* ptr = d_img.bytes() + t.origin;
    try {
      k.build(g, ptr);
    } catch (const porter::error& e) {
      if (tt.mismatch()) ADD_FAILURE() << where << ": make_tiled_destination threw: " << e.what();
      continue;
    }
    const unsigned want = expected_paths(g, reinterpret_cast<std::uintptr_t>(ptr), caps);
    if (k.supported() != want && tt.mismatch())
      ADD_FAILURE() << where << ": porter allows {" << mask_names(k.supported()) << "}, the rules allow {" << mask_names(want) << "}\n"
                    << k.explain();
    if (k.forced && !(want & porter::path_bit(k.path))) {
      try {
        k.launch(dim3(1), dim3(32), d_tiles.bytes(), static_cast<const int*>(d_coords.p), static_cast<const int2*>(d_work.p));
        sync_launch("unrefused store launch", &err);
        if (tt.mismatch()) ADD_FAILURE() << where << ": porter::launch<" << k.path_name << "> accepted a destination the path cannot write";
      } catch (const porter::error& e) {
        if (e.code() == porter::errc::path_unsupported) tt.refused();
        else if (tt.mismatch()) ADD_FAILURE() << where << ": refused with the wrong error: " << e.what();
      }
      continue;
    }
    try {
      k.launch(dim3(unsigned(ncta)), block, d_tiles.bytes(), static_cast<const int*>(d_coords.p), static_cast<const int2*>(d_work.p));
    } catch (const porter::error& e) {
      if (tt.mismatch()) ADD_FAILURE() << where << ": porter::launch threw: " << e.what();
      continue;
    }
    if (!sync_launch(where, &err)) {
      ADD_FAILURE() << where << ": " << err;
      return;
    }
    std::vector<unsigned char> got(t.image.size());
    if (cudaMemcpy(got.data(), d_img.p, got.size(), cudaMemcpyDeviceToHost) != cudaSuccess) {
      ADD_FAILURE() << where << ": cudaMemcpy back failed";
      return;
    }
    std::size_t ndiff = 0;
    const long long first = first_difference(got.data(), ref.image.data(), got.size(), &ndiff);
    if (first >= 0 && tt.mismatch()) {
      std::ostringstream msg;
      msg << where << ": " << ndiff << " of " << got.size() << " destination bytes differ, first at byte " << first << " of the allocation";
      const long long rel = first - (long long)t.origin;
      if (rel < 0 || rel >= (long long)g.span_bytes()) msg << " (outside the tensor: a store wrote past an edge or a guard)";
      else msg << " (" << rel << " B past the first element)";
      msg << "; " << bytes_around(got.data(), ref.image.data(), got.size(), std::size_t(first)) << "\n" << k.explain();
      ADD_FAILURE() << msg.str();
    }
    tt.ran(m, (long long)got.size());
  }
}

void run_store_bytes_cases(test_tally& tt, const std::string& list, int ncases, const store_bytes_kernel& k) {
  static const int dst_offsets[] = {0, 16, 4, 8, 12, 1, 3, 7, 15, 33};
  static const int src_offsets[] = {0, 16, 4, 8, 1, 13};
  static const int counts[] = {0, 1, 3, 15, 16, 17, 48, 100, 1024, 1500, 2000};
  const std::string label = list + " store bytes";
  const int slot = 2048 + 64;  // each triple's destination: never overlaps the next one
  for (int ci = 0; ci < ncases; ++ci) {
    if (!context_ok()) return;
    std::mt19937_64 rng(case_seed(label, ci));
    std::vector<int3> tri;
    for (int d : dst_offsets)
      for (int s : src_offsets)
        for (int n : counts)
          if (s + n <= k.buffer_bytes && (rng() % 4 == 0 || ci == 0)) tri.push_back(make_int3(d, s, n));
    std::shuffle(tri.begin(), tri.end(), rng);
    if (sanitizer_scale() && tri.size() > 24) tri.resize(24);
    // The kernel ends with wait_read when n is odd, else wait_write (store_kernels.cuh): odd and
    // even cases take one ending each, at every scale.
    if (!tri.empty() && int(tri.size() & 1) != (ci & 1)) tri.pop_back();
    const int n = int(tri.size());
    std::vector<unsigned char> src(std::size_t(k.buffer_bytes) + 16), img(std::size_t(n) * slot + 512);
    for (auto& x : src) x = static_cast<unsigned char>(rng());
    for (auto& x : img) x = static_cast<unsigned char>(rng() | 1);
    std::vector<unsigned char> ref = img;
    for (int j = 0; j < n; ++j)
      std::memcpy(ref.data() + 256 + std::size_t(j) * slot + std::size_t(tri[std::size_t(j)].x), src.data() + tri[std::size_t(j)].y,
                  std::size_t(tri[std::size_t(j)].z));
    const dim3 block = pick_block(ci, k.max_threads);
    const std::string where = label + " case " + std::to_string(ci) + " [path " + k.path_name + ", PORTER_DEVICE_TEST_SEED=" + seed_text() +
                              "; " + std::to_string(n) + " ranges, CTA of " + block_text(block) + "]";
    dev_mem d_src(src.size()), d_img(img.size()), d_tri(tri.size() * sizeof(int3));
    std::string err;
    if (!d_src.p || !d_img.p || !d_tri.p || !copy_up(d_src.p, src.data(), src.size(), &err) ||
        !copy_up(d_img.p, img.data(), img.size(), &err) || !copy_up(d_tri.p, tri.data(), tri.size() * sizeof(int3), &err)) {
      ADD_FAILURE() << where << ": device setup failed " << err;
      return;
    }
    try {
      k.launch(block, d_src.bytes(), d_img.bytes() + 256, static_cast<const int3*>(d_tri.p), n);
    } catch (const porter::error& e) {
      if (tt.mismatch()) ADD_FAILURE() << where << ": porter::launch threw: " << e.what();
      continue;
    }
    if (!sync_launch(where, &err)) {
      ADD_FAILURE() << where << ": " << err;
      return;
    }
    std::vector<unsigned char> got(img.size());
    if (cudaMemcpy(got.data(), d_img.p, got.size(), cudaMemcpyDeviceToHost) != cudaSuccess) {
      ADD_FAILURE() << where << ": cudaMemcpy back failed";
      return;
    }
    std::size_t ndiff = 0;
    const long long first = first_difference(got.data(), ref.data(), got.size(), &ndiff);
    if (first >= 0 && tt.mismatch()) {
      const long long j = (first - 256) / slot;
      ADD_FAILURE() << where << ": " << ndiff << " bytes differ, first at byte " << first << " (range " << j << ": "
                    << (j >= 0 && j < n ? "dst offset " + std::to_string(tri[std::size_t(j)].x) + ", src offset " +
                                               std::to_string(tri[std::size_t(j)].y) + ", " + std::to_string(tri[std::size_t(j)].z) + " B"
                                         : std::string("outside every range"))
                    << "); " << bytes_around(got.data(), ref.data(), got.size(), std::size_t(first));
    }
    tt.ran(n, (long long)got.size());
  }
}

}  // namespace porter_test
