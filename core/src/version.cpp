// core/src/version.cpp — porter::version(): the version this library was compiled as (see
// porter/version.hpp). Shared by the CUDA and HIP builds.
#include "porter/version.hpp"

namespace porter {

version_info version() noexcept { return header_version; }

}  // namespace porter
