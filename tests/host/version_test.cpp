// tests/host/version_test.cpp — porter/version.hpp and porter::version(): the macros agree with each
// other, with the package version CMake read, and with the linked core library.
#include <string>

#include <gtest/gtest.h>

#include "porter/version.hpp"

namespace {

std::string dotted(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

TEST(Version, MacrosAgreeWithEachOther) {
  EXPECT_EQ(std::string(PORTER_VERSION_STRING), dotted(PORTER_VERSION_MAJOR, PORTER_VERSION_MINOR, PORTER_VERSION_PATCH));
  EXPECT_EQ(PORTER_VERSION, PORTER_VERSION_MAJOR * 10000 + PORTER_VERSION_MINOR * 100 + PORTER_VERSION_PATCH);
  static_assert(PORTER_VERSION_MINOR < 100 && PORTER_VERSION_PATCH < 100, "PORTER_VERSION packs minor and patch into two digits each");
}

TEST(Version, HeaderVersionIsTheMacros) {
  constexpr porter::version_info h = porter::header_version;
  EXPECT_EQ(h.major, PORTER_VERSION_MAJOR);
  EXPECT_EQ(h.minor, PORTER_VERSION_MINOR);
  EXPECT_EQ(h.patch, PORTER_VERSION_PATCH);
  EXPECT_STREQ(h.string, PORTER_VERSION_STRING);
}

TEST(Version, PackageVersionIsTheHeaders) {
  // CMake's project(VERSION) comes from this header (cmake/porterVersion.cmake); a build that
  // passed a different one would show here.
  EXPECT_EQ(std::string(PORTER_TEST_PROJECT_VERSION), PORTER_VERSION_STRING);
}

TEST(Version, LinkedLibraryMatchesTheseHeaders) {
  const porter::version_info v = porter::version();
  EXPECT_EQ(v, porter::header_version);
  ASSERT_NE(v.string, nullptr);
  EXPECT_STREQ(v.string, PORTER_VERSION_STRING);
  EXPECT_TRUE(porter::library_matches_headers());
}

TEST(Version, ComparisonLooksAtEveryNumber) {
  const porter::version_info a{0, 1, 0, "0.1.0"};
  EXPECT_EQ(a, (porter::version_info{0, 1, 0, "0.1.0"}));
  EXPECT_NE(a, (porter::version_info{1, 1, 0, "1.1.0"}));
  EXPECT_NE(a, (porter::version_info{0, 2, 0, "0.2.0"}));
  EXPECT_NE(a, (porter::version_info{0, 1, 1, "0.1.1"}));
}

}  // namespace
