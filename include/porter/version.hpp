// porter/version.hpp — the version of these headers, and porter::version(), the version of the
// compiled core library, so that a program can tell when the two come from different installs.
//
// This file is the one place the version is written: CMakeLists.txt and cmake/hip/CMakeLists.txt
// read the four macros below for project(... VERSION ...) and stop with an error when they do not
// agree with each other (cmake/porterVersion.cmake). Bump all four together, and add the release to
// CHANGELOG.md.
#pragma once

#define PORTER_VERSION_MAJOR 0
#define PORTER_VERSION_MINOR 1
#define PORTER_VERSION_PATCH 0
#define PORTER_VERSION_STRING "0.1.0"

/// The version as one number for preprocessor comparisons: MAJOR * 10000 + MINOR * 100 + PATCH
/// (0.1.0 is 100; 1.2.3 is 10203).
#define PORTER_VERSION (PORTER_VERSION_MAJOR * 10000 + PORTER_VERSION_MINOR * 100 + PORTER_VERSION_PATCH)

namespace porter {

/// A porter version: semantic versioning numbers and their text, "MAJOR.MINOR.PATCH".
struct version_info {
  int major = 0;               ///< incompatible API changes
  int minor = 0;               ///< additions
  int patch = 0;               ///< fixes
  const char* string = "";     ///< "0.1.0"; static storage, never null

  /// Same numbers (the text follows from them).
  constexpr bool operator==(const version_info& o) const { return major == o.major && minor == o.minor && patch == o.patch; }
  constexpr bool operator!=(const version_info& o) const { return !(*this == o); }
};

/// The version of the headers this translation unit was compiled with.
inline constexpr version_info header_version{PORTER_VERSION_MAJOR, PORTER_VERSION_MINOR, PORTER_VERSION_PATCH,
                                             PORTER_VERSION_STRING};

/// The version of the porter core library linked into the program (core/src/version.cpp: the
/// header_version the library was compiled with). Host only; never throws.
version_info version() noexcept;

/// True when the linked core library and the headers of this translation unit are the same version.
/// False means the include path and the library path name different porter installs: rebuild
/// against one of them.
inline bool library_matches_headers() noexcept { return version() == header_version; }

}  // namespace porter
