// tests/device/test_cta_threads.cu — pipelines built with porter::cta_threads<N> (the CTA size a
// compile-time constant), on every path.
//
// With N known, the copies' per-thread tests ("does this thread have a chunk, and another one?")
// fold at compile time, so the boxes here are chosen around N: fewer chunks than threads (most
// threads idle), exactly one chunk per thread (sgemm's 8 x 128 fp32 box in 256 threads), several
// per thread, a chunk count that is not a multiple of N (N = 96), 48-byte rows (three 16-byte
// chunks), and boxes that move in 1-byte and 4-byte pieces (the general walk). Each case runs the
// random geometries of the matrix (edges, pitches, offsets, depths, trip counts, prefill) and
// compares every landed byte with the CPU reference, guard regions included. Swizzled boxes with
// several chunks per thread take cp_async's stepped walk (porter/detail/box_geometry.hpp
// stepped_chunks: a thread's next chunk by two constant adds), whose landing offsets go through the
// swizzle; those cases check it on the device, the host test BoxGeometry.SteppedWalk... chunk by chunk.
#include "runners.cuh"

namespace pt = porter_test;

namespace {

using sgemm_box = porter::box<float, 8, 128>;   // 4 KiB: 256 chunks of 16 B
using small_box = porter::box<float, 16, 16>;   // 1 KiB: 64 chunks
using rows48_box = porter::box<float, 5, 12>;   // 48-byte rows: 15 chunks
using bytes_box = porter::box<unsigned char, 7, 33>;  // 33-byte rows: 1-byte pieces
using cube_box = porter::box<std::uint32_t, 4, 6, 8>;  // 3D, 32-byte rows
template <class B, porter::swizzle S> using sw = porter::swizzled<B, S>;
using bf16_b128 = sw<porter::box<std::uint16_t, 64, 64>, porter::swizzle::b128>;  // 8 KiB: 512 chunks
using fp32_b64 = sw<porter::box<float, 32, 16>, porter::swizzle::b64>;             // 2 KiB: 128 chunks
using fp32_b32 = sw<porter::box<float, 24, 8>, porter::swizzle::b32>;              // 768 B: 48 chunks

template <class P>
class CtaThreads : public ::testing::Test {};
TYPED_TEST_SUITE(CtaThreads, pt::all_paths, pt::path_names);

TYPED_TEST(CtaThreads, one_chunk_per_thread_256) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, sgemm_box, 0, 256>(tt, "cta_threads", {pt::cases(30, 2)});
  pt::box_cases<TypeParam, 4, sgemm_box, 0, 256>(tt, "cta_threads", {pt::cases(30, 2)});
}
TYPED_TEST(CtaThreads, several_chunks_per_thread_128_and_32) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 3, sgemm_box, 0, 128>(tt, "cta_threads", {pt::cases(30, 2)});
  pt::box_cases<TypeParam, 2, sgemm_box, 0, 32>(tt, "cta_threads", {pt::cases(30, 2)});
}
TYPED_TEST(CtaThreads, chunk_count_not_a_multiple_of_96) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, sgemm_box, 0, 96>(tt, "cta_threads", {pt::cases(30, 2)});
  pt::box_cases<TypeParam, 3, rows48_box, 0, 96>(tt, "cta_threads", {pt::cases(30, 2)});
}
TYPED_TEST(CtaThreads, fewer_chunks_than_threads) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 4, small_box, 0, 256>(tt, "cta_threads", {pt::cases(30, 2)});
  pt::box_cases<TypeParam, 2, rows48_box, 0, 64>(tt, "cta_threads", {pt::cases(30, 2)});
}
TYPED_TEST(CtaThreads, narrow_pieces_and_3d_boxes) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, bytes_box, 0, 96>(tt, "cta_threads", {pt::cases(30, 2)});
  pt::box_cases<TypeParam, 3, cube_box, 0, 128>(tt, "cta_threads", {pt::cases(30, 2)});
}

TYPED_TEST(CtaThreads, swizzled_boxes_several_chunks_per_thread) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 3, bf16_b128, 0, 128>(tt, "cta_threads swizzled", {pt::cases(30, 2)});   // 4 per thread
  pt::box_cases<TypeParam, 2, bf16_b128, 384, 256>(tt, "cta_threads swizzled", {pt::cases(30, 2)}); // 2 per thread, ring base off the atom
  pt::box_cases<TypeParam, 2, fp32_b64, 0, 32>(tt, "cta_threads swizzled", {pt::cases(30, 2)});     // 4 per thread
  pt::box_cases<TypeParam, 3, fp32_b32, 128, 16>(tt, "cta_threads swizzled", {pt::cases(30, 2)});   // 3 per thread
}

}  // namespace
