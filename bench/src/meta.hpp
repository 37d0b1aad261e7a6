// bench/src/meta.hpp — what a result needs to be reproduced: device, clocks, driver, toolkit, commit.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <porter/device.hpp>

namespace pb {

/// Run `cmd` through the shell; its stdout (trimmed), or "" when it fails or is absent.
std::string shell_output(const std::string& cmd);
/// Key/value metadata of this run (device may be null: no GPU).
std::vector<std::pair<std::string, std::string>> collect_meta(const porter::device_caps* caps, const std::string& argv_line);
/// Directory of the running executable.
std::string executable_dir();

}  // namespace pb
