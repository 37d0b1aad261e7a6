// porter/error.hpp — the host-side error type. Every message names the rule and the offending value.
#pragma once
#include <stdexcept>
#include <string>

namespace porter {

/// What kind of rule an error broke.
enum class errc {
  invalid_argument,    ///< a host input breaks a rule that no path can satisfy (null pointer, extent 0, ...)
  path_unsupported,    ///< the requested path cannot express this source or run on this device
  shared_memory,       ///< a launch asks for more shared memory than the device allows
  no_device,           ///< no usable GPU (no driver, no device, or the runtime failed to initialise)
  driver,              ///< a CUDA/HIP runtime or driver call failed; the message quotes it
};

/// Thrown by porter's host functions. what() is a full sentence naming the rule and the value,
/// e.g. "tma: row pitch 2002 B is not a multiple of 16 B (rule tma.stride_multiple_of_16)".
class error : public std::runtime_error {
 public:
  error(errc code, std::string rule, const std::string& message)
      : std::runtime_error(message + " [rule " + rule + "]"), code_(code), rule_(std::move(rule)) {}
  /// The kind of failure.
  errc code() const noexcept { return code_; }
  /// The short, stable identifier of the broken rule, e.g. "tma.box_dim_range".
  const std::string& rule() const noexcept { return rule_; }

 private:
  errc code_;
  std::string rule_;
};

}  // namespace porter
