// tests/device/test_cta_threads.cu — pipelines built with porter::cta_threads<N> (the CTA size a
// compile-time constant), on every path.
//
// With N known, the copies' per-thread tests ("does this thread have a chunk, and another one?")
// fold at compile time, so the boxes here are chosen around N: fewer chunks than threads (most
// threads idle), exactly one chunk per thread (sgemm's 8 x 128 fp32 box in 256 threads), several
// per thread, a chunk count that is not a multiple of N (N = 96), 48-byte rows (three 16-byte
// chunks), and boxes that move in 1-byte and 4-byte pieces (the general walk). Each case runs the
// random geometries of the matrix (edges, pitches, offsets, depths, trip counts, prefill) and
// compares every landed byte with the CPU reference, guard regions included.
#include "runners.cuh"

namespace pt = porter_test;

namespace {

using sgemm_box = porter::box<float, 8, 128>;   // 4 KiB: 256 chunks of 16 B
using small_box = porter::box<float, 16, 16>;   // 1 KiB: 64 chunks
using rows48_box = porter::box<float, 5, 12>;   // 48-byte rows: 15 chunks
using bytes_box = porter::box<unsigned char, 7, 33>;  // 33-byte rows: 1-byte pieces
using cube_box = porter::box<std::uint32_t, 4, 6, 8>;  // 3D, 32-byte rows

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

}  // namespace
