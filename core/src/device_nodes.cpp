// core/src/device_nodes.cpp — the device nodes a reader looks at (device_reader.hpp), for both
// builds: access(2) on one node, opendir(3)/readdir(3) for a numbered family (/dev/nvidia<N>,
// /dev/dri/renderD<N>). Vendor-neutral: device_reader_cuda.cpp and device_reader_hip.cpp name the nodes.
#include <dirent.h>
#include <unistd.h>

#include <string>

#include "device_reader.hpp"

namespace porter::detail {

device_node node_at(const std::string& path) {
  device_node n;
  n.path = path;
  n.present = ::access(path.c_str(), F_OK) == 0;
  n.usable = n.present && ::access(path.c_str(), R_OK | W_OK) == 0;
  return n;
}

device_node numbered_nodes(const std::string& dir, const std::string& prefix, const std::string& fallback) {
  device_node n;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
      if (name.find_first_not_of("0123456789", prefix.size()) != std::string::npos) continue;
      const device_node one = node_at(dir + "/" + name);
      if (!n.present) n.path = one.path;
      n.present = true;
      n.usable |= one.usable;
    }
    ::closedir(d);
  }
  if (!n.present) n.path = dir + "/" + prefix + fallback;
  return n;
}

}  // namespace porter::detail
