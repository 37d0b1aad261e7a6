// tests/device/harness.hpp — host machinery shared by porter's device tests.
//
// A device test case is one kernel launch checked byte for byte against a CPU reference:
//   * fresh random data per case (seed printed on failure; PORTER_DEVICE_TEST_SEED repeats a run);
//   * the tensor sits inside a larger allocation whose other bytes (guards, row padding) are random
//     and never zero, so a read outside the tensor shows up as non-zero garbage where the reference
//     says zero;
//   * the output is poisoned (0xA5) before the launch and has 256-byte sentinel guards on each side,
//     checked after;
//   * where a forced path cannot read the source, the case checks that porter::launch refuses it on
//     the host (porter::error, errc::path_unsupported) instead of running it.
// Scale: PORTER_DEVICE_TEST_SCALE=sanitizer runs a reduced matrix (for compute-sanitizer); the
// default is the full matrix. Counters add up to the line "porter device matrix: N cases, M mismatches"
// printed when the test program ends.
//
// This header is plain C++ (host only) so that main.cpp and harness.cpp build without nvcc.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "porter/device.hpp"
#include "porter/error.hpp"
#include "porter/path.hpp"
#include "porter/source.hpp"

namespace porter_test {

// ---- run-wide settings ---------------------------------------------------------------------------

/// True when PORTER_DEVICE_TEST_SCALE=sanitizer (reduced matrix, small tensors).
bool sanitizer_scale();
/// Cases per instantiation: `full` normally, `sanitizer` at the reduced scale.
inline int cases(int full, int sanitizer) { return sanitizer_scale() ? sanitizer : full; }
/// The run's base seed: PORTER_DEVICE_TEST_SEED if set, else fresh from std::random_device.
std::uint64_t base_seed();
/// Seed of case `index` of the case list `label` (the same for every path: the matrix is differential).
std::uint64_t case_seed(const std::string& label, int index);

// ---- the GPU -------------------------------------------------------------------------------------

/// The current device, or nullptr with the runtime's reason in `why`.
const porter::device_caps* gpu(std::string* why = nullptr);
/// False once a launch has failed (the CUDA context is then unusable); `why` says which launch.
bool context_ok(std::string* why = nullptr);
/// Record that the context broke (every later device test fails at once with this reason).
void context_failed(const std::string& what);

/// Whether a path (name, minimum compute capability) runs on this GPU. 0: yes; 1: skip (reason in
/// `why`: no GPU, or the GPU lacks the path's instructions); 2: fail (the context is broken).
int path_status(const char* path_name, int min_cc, std::string* why);

// ---- counting ------------------------------------------------------------------------------------

struct tally {
  long long cases = 0;       ///< launches whose every output byte was compared
  long long refusals = 0;    ///< forced paths checked to be refused on the host
  long long mismatches = 0;  ///< failed checks (bytes, guards, support masks, refusals)
  long long tiles = 0;       ///< destinations (tiles, byte ranges) compared
  long long bytes = 0;       ///< bytes compared
  long long skipped_instantiations = 0;  ///< kernels not run (e.g. more shared memory than the GPU has)
};
/// Sum over the run.
tally& run_tally();

/// Per-test counter: prints "[ porter ] <test>: N cases, ..." when the test ends and adds to the run.
class test_tally {
 public:
  test_tally();
  ~test_tally();
  test_tally(const test_tally&) = delete;
  test_tally& operator=(const test_tally&) = delete;
  void ran(long long tiles, long long bytes) { t.cases++; t.tiles += tiles; t.bytes += bytes; }
  void refused() { t.refusals++; }
  /// Count a mismatch; true when its details should be printed (the first few per test).
  bool mismatch() { return ++t.mismatches <= 6; }
  void note(const std::string& s);  ///< printed once at the end of the test
  tally t;

 private:
  std::vector<std::string> notes_;
};

// ---- tensors -------------------------------------------------------------------------------------

/// A tensor layout in the conventions of porter (outermost first, elements), its box, and where its
/// first element sits: `offset` bytes past a 256-byte boundary.
struct geometry {
  int rank = 1;
  int es = 1;                    ///< element size, bytes
  std::int64_t extent[5] = {};   ///< elements
  std::int64_t stride[5] = {};   ///< elements; stride[rank-1] == 1
  int box[5] = {};               ///< box dimensions, elements
  std::size_t offset = 0;        ///< bytes of the first element past a 256-byte boundary
  int swizzle = 0;               ///< the box's shared-memory swizzle span, bytes (0: none)
  /// Bytes from the first element to one past the last.
  std::size_t span_bytes() const;
  std::string describe() const;
};
using geometry_fn = std::function<geometry(std::mt19937_64&)>;

/// A random layout for a box: extents around the box (1, box-1, box, box+1, 2*box+3, random), row
/// pitches tight, 16-byte aligned, padded or deliberately not a multiple of 16 bytes, first-element
/// offsets 0, 4, 8, 12 bytes (and odd ones for 1- and 2-byte elements). Smaller at sanitizer scale.
geometry random_geometry(std::mt19937_64& rng, int rank, int es, const int* box);
/// As random_geometry, but TMA-legal apart from the box itself: first element at a 256-byte
/// boundary, every stride a multiple of 16 bytes.
geometry tma_legal_geometry(std::mt19937_64& rng, int rank, int es, const int* box);

/// A TMA-legal layout (first element at a 256-byte boundary, every stride a multiple of 16 bytes)
/// whose extent is smaller than the box in every dimension where the box is 2 or more (1 ..
/// box-1, random): a problem smaller than one tile.
geometry smaller_than_box_geometry(std::mt19937_64& rng, int rank, int es, const int* box);

/// Host image of a tensor inside its guarded allocation: [256 B guard][offset][span][256 B guard],
/// every byte random; bytes that are not tensor elements (guards, padding) are never zero.
struct host_tensor {
  geometry g;
  std::vector<unsigned char> image;
  std::size_t origin = 0;   ///< index of element (0, ..., 0) in image (a multiple of 256, plus g.offset)
};
host_tensor make_tensor(std::mt19937_64& rng, const geometry& g);

/// A random box origin for `g`, per dimension: inside where the box fits (30 %), anywhere it
/// touches the tensor (20 %), across or on an edge: -box+1, -1, 0, 1, extent-box, extent-box+1,
/// extent-1 (40 %), just outside: -box, -box-3, extent, extent+3 (9 %), +-2^20 (1 %).
void random_coord(std::mt19937_64& rng, const geometry& g, int* at);

/// The CPU reference of the box at `at`: Box bytes, dense row-major, zero outside the tensor.
void reference_box(const host_tensor& t, const int* at, unsigned char* out);
/// Lay `bytes` dense box bytes at `img` out in swizzle mode `span` (0: unchanged), in place: the
/// test's own model of the tensor-map swizzle (in 128-byte row r, 16-byte chunk c of each span
/// moves to chunk c XOR (r mod span/16)).
void swizzle_in_place(int span, unsigned char* img, std::size_t bytes);

/// The paths porter should allow for this layout at device address `addr` on `caps` (the test's own
/// model of the rules: TMA 16-byte address, strides and box rows, box dims <= 256 except the
/// outermost, which is split; cp.async 4-byte granules; staged always).
unsigned expected_paths(const geometry& g, std::uintptr_t addr, const porter::device_caps& caps);
/// "tma|cp_async|staged" for a path mask.
std::string mask_names(unsigned mask);

// ---- per-launch work -----------------------------------------------------------------------------

/// CTAs of a launch: work[b] = {first destination slot, trips}. Trip counts 0, 1, S-1, S, S+1,
/// 2S+1, 3S+2 (sanitizer scale: 0, 1, S-1, S, S+1), shuffled, sometimes twice over.
struct work_plan {
  std::vector<int2> work;
  int total = 0;   ///< sum of trips (destination slots)
};
work_plan make_work(std::mt19937_64& rng, int stages);

/// A CTA shape for case `index`: 128, 67, 256, 32, 16x4x2, 96, 1 or 1024 threads, capped at
/// `max_threads` (the kernel's limit).
dim3 pick_block(int index, int max_threads);
inline unsigned block_threads(dim3 b) { return b.x * b.y * b.z; }

/// The byte written by the test kernels' stage fill at offset j (host mirror of the device pattern).
inline unsigned char stage_pattern(std::size_t j) { return static_cast<unsigned char>(0xC3u ^ (unsigned(j) * 29u)); }
inline constexpr unsigned char poison_byte = 0xA5;
inline constexpr std::size_t guard_bytes = 256;

/// Host blobs for one launch (inputs, small argument arrays, output image) uploaded to device
/// buffers that persist between cases and grow when needed.
class staging {
 public:
  /// Append `bytes` to the input blob at a 256-byte aligned offset; returns the offset.
  std::size_t add_input(const std::vector<unsigned char>& bytes);
  /// Append an argument array (16-byte aligned); returns its offset.
  template <class T>
  std::size_t add_arg(const std::vector<T>& v) {
    return add_arg_bytes(v.data(), v.size() * sizeof(T));
  }
  std::size_t add_arg_bytes(const void* p, std::size_t n);
  /// Output: `slots` destinations of `slot_bytes` each, poisoned, between two sentinel guards.
  void set_output(std::size_t slots, std::size_t slot_bytes);
  /// Copy everything to the device. False (with the reason) on a CUDA error.
  bool upload(std::string* err);
  /// Device addresses (valid after upload).
  const unsigned char* input(std::size_t off) const;
  template <class T>
  const T* arg(std::size_t off) const {
    return reinterpret_cast<const T*>(arg_base() + off);
  }
  unsigned char* output() const;  ///< the first slot
  /// Copy the output image back. False (with the reason) on a CUDA error.
  bool fetch(std::string* err);
  /// Host copy of slot i after fetch.
  const unsigned char* slot(std::size_t i) const { return out_.data() + guard_bytes + i * slot_bytes_; }
  std::size_t slot_bytes() const { return slot_bytes_; }
  /// Both sentinel guards intact (after fetch)? Else `what` names the first damaged byte.
  bool guards_intact(std::string* what) const;

 private:
  const unsigned char* arg_base() const;
  std::vector<unsigned char> in_, args_, out_;
  std::size_t slots_ = 0, slot_bytes_ = 0;
};

// ---- kernels under test (type-erased; the case loops live in harness.cpp) -------------------------

/// One tiled source of a kernel: its box.
struct source_spec {
  int rank = 1;
  int es = 1;
  int box[5] = {};
  std::size_t bytes = 0;         ///< box bytes
  std::size_t buffer_bytes = 0;  ///< its stage buffer, padded to 128 B: its part of a destination slot
  int swizzle = 0;               ///< the box's swizzle span, bytes (0: none)
};

/// Options of one case list.
struct case_options {
  int cases = 1;              ///< number of cases (each one launch)
  geometry_fn geometry;       ///< layout of source 0 in each case (default: random_geometry)
  std::string tma_rule;       ///< when set: a refused tma launch must name this rule (e.g. "tma.box_dim_range")
  bool tma_must_run = false;  ///< layouts are TMA-legal by construction: on a TMA GPU, tma must be allowed
};

/// A kernel that copies boxes of one or more tiled sources through a pipeline and stores each
/// landed stage to a destination slot (the stage's buffers back to back, each padded to 128 B:
/// the padding holds the prefill pattern when prefilled, else stays poisoned). Made by the templates in
/// runners.cuh for one <Path, Stages, Boxes...>.
struct tile_kernel {
  const char* path_name = "";
  bool forced = true;                      ///< not path::automatic
  porter::path_id path = porter::path_id::staged;  ///< when forced
  int stages = 1;
  std::size_t shared_bytes = 0;
  int max_threads = 128;
  const char* schedule = "";               ///< "protocol" (ahead and prefill used) or "for_each_tile" (neither)
  /// The consumer stores each landed buffer as it lies in shared memory (swizzled boxes: in the
  /// swizzled order); false: in dense box order, read through tile_view.
  bool raw_layout = true;
  std::size_t smem_shift = 0;              ///< bytes past the dynamic shared memory base the pipeline is built at
  unsigned fixed_threads = 0;              ///< the kernel needs exactly this CTA size (role pipelines); 0: pick_block varies it
  std::vector<source_spec> sources;
  /// Build source i over device address `ptr` (throws porter::error from make_tiled_source).
  std::function<void(int, const geometry&, const void*)> build;
  std::function<unsigned(int)> supported;  ///< built source i's path mask
  std::function<std::string(int)> explain; ///< porter::explain of built source i
  /// porter::launch<Path> with coords[i] = device array of box origins of source i (int[rank] each).
  std::function<void(dim3, dim3, const std::vector<const int*>&, const int2*, unsigned char*, int, int)> launch;
};
/// Run `opt.cases` random cases of `k` (see the file comment) and count them in `tt`.
void run_tile_cases(test_tally& tt, const std::string& list, const case_options& opt, const tile_kernel& k);

/// A kernel that copies byte ranges (async_copy(buffer<0>(slot), ptr, n)) into a bytes_box stage.
struct bytes_kernel {
  const char* path_name = "";
  int stages = 1;
  std::size_t shared_bytes = 0;
  int max_threads = 128;
  std::size_t buffer_bytes = 0;
  std::function<void(dim3, dim3, const unsigned char*, const int*, const int*, const int2*, unsigned char*, int, int)> launch;
};
/// Run `ncases` cases: every (offset, count) pair of the lists in harness.cpp, and random ones.
void run_bytes_cases(test_tally& tt, const std::string& list, int ncases, const bytes_kernel& k);

/// cudaDeviceSynchronize after a launch; on failure records the broken context and returns false.
bool sync_launch(const std::string& what, std::string* err);

/// First differing byte of two ranges, or -1; `count` receives the number of differing bytes.
long long first_difference(const unsigned char* got, const unsigned char* want, std::size_t n, std::size_t* count);
/// "0x1f 0x00 ..." around byte `at` of both ranges, for failure messages.
std::string bytes_around(const unsigned char* got, const unsigned char* want, std::size_t n, std::size_t at);

/// The run's seed as text, "(x,y,z)" for a CTA shape, "(c0, c1, ...)" for a coordinate (messages).
std::string seed_text();
std::string block_text(dim3 b);
std::string coord_text(const int* at, int rank);

/// Free the persistent device buffers (end of the run).
void release_device_buffers();

}  // namespace porter_test

/// Start of a device test for path P: skip with the reason where there is no GPU or the GPU lacks
/// the path; fail at once when an earlier launch broke the CUDA context.
#define PORTER_DEVICE_TEST_REQUIRE(P)                                                             \
  do {                                                                                            \
    std::string porter_why_;                                                                      \
    const int porter_st_ = ::porter_test::path_status(P::name, P::min_compute_capability, &porter_why_); \
    if (porter_st_ == 1) GTEST_SKIP() << porter_why_;                                             \
    if (porter_st_ == 2) GTEST_FAIL() << porter_why_;                                             \
  } while (0)
