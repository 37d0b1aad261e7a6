// tests/device/main.cpp — gtest main of the device test programs: prints the run's seed, scale and
// GPU first, and the matrix summary last ("porter device matrix: N cases, M mismatches").
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>

#include "harness.hpp"

namespace {

class matrix_summary : public ::testing::Environment {
 public:
  explicit matrix_summary(std::string program) : program_(std::move(program)) {}
  void SetUp() override {
    std::string why;
    const porter::device_caps* caps = porter_test::gpu(&why);
    std::printf("porter device tests: seed %#" PRIx64 " (PORTER_DEVICE_TEST_SEED=%#" PRIx64 " repeats this run), scale %s, %s\n",
                porter_test::base_seed(), porter_test::base_seed(), porter_test::sanitizer_scale() ? "sanitizer" : "full",
                caps ? ("GPU " + caps->describe()).c_str() : ("no usable GPU (" + why + "): every device test skips").c_str());
    std::fflush(stdout);
  }
  void TearDown() override {
    porter_test::release_device_buffers();
    const porter_test::tally& t = porter_test::run_tally();
    std::string why;
    const bool have_gpu = porter_test::gpu(&why) != nullptr;
    std::printf("porter device matrix: %lld cases, %lld mismatches (%lld forced-path refusals checked, %lld destinations, %lld bytes compared%s) [%s, %s scale]%s\n",
                t.cases, t.mismatches, t.refusals, t.tiles, t.bytes,
                t.skipped_instantiations ? (", " + std::to_string(t.skipped_instantiations) + " kernels not run").c_str() : "",
                program_.c_str(), porter_test::sanitizer_scale() ? "sanitizer" : "full",
                have_gpu ? "" : (" -- SKIPPED: no usable GPU: " + why).c_str());
    std::string broken;
    if (!porter_test::context_ok(&broken)) std::printf("porter device matrix: %s\n", broken.c_str());
    std::fflush(stdout);
  }

 private:
  std::string program_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Death tests (the PORTER_DEBUG program) re-execute the binary: a forked child cannot use CUDA.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string program = argc > 0 ? argv[0] : "porter_device_tests";
  program = program.substr(program.find_last_of('/') + 1);
  ::testing::AddGlobalTestEnvironment(new matrix_summary(program));
  return RUN_ALL_TESTS();
}
