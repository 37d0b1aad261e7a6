// tests/lowering/ptx_module.hpp — a small PTX reader: functions (.entry/.func) with bodies, call graph, and the global strings they reference.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

namespace porter_test {

/// One PTX function: a kernel (.entry) or a device function (.func) with a body.
struct ptx_function {
  std::string name;                  ///< mangled name
  bool entry = false;                ///< .entry (a kernel) rather than .func
  std::string body;                  ///< the text between the outer braces
  std::set<std::string> callees;     ///< names after `call` in the body
};

/// A parsed PTX module (the output of nvcc -ptx).
class ptx_module {
 public:
  /// Parse PTX text. Declarations without a body (.extern .func vprintf) are not functions here.
  static ptx_module parse(const std::string& text);
  /// Read and parse a file; throws std::runtime_error when it cannot be read.
  static ptx_module load(const std::string& path);

  /// The `.target` of the module, e.g. "sm_90".
  const std::string& target() const { return target_; }
  /// Names of all kernels, in file order.
  std::vector<std::string> entries() const;
  /// The function called `name`, or nullptr.
  const ptx_function* find(const std::string& name) const;
  /// The body of `name` followed by the bodies of every function it calls, transitively: what one
  /// kernel executes, whether or not nvcc inlined its helpers.
  std::string closure(const std::string& name) const;
  /// Decoded text of every global byte-array string (`$str...`) referenced by `name`'s closure.
  std::vector<std::string> strings_used(const std::string& name) const;

 private:
  std::string target_;
  std::vector<std::string> order_;
  std::map<std::string, ptx_function> functions_;
  std::map<std::string, std::string> strings_;  // global name -> decoded bytes (trailing NUL dropped)
};

}  // namespace porter_test
