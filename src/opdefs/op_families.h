// Which op family claimed each op name, for the tables that families fill one after another
// (the op definitions, the CPU registry, each GPU backend's op table). The generated
// registration (cmake/op_families.cmake) names each family before calling it, so a name that
// two families register is a kiln::Error naming both, raised when the table is built (the
// first model load, and every unit test), instead of the later family silently winning.
#pragma once

#include <map>
#include <string>

namespace kiln {

class OpFamilies {
 public:
  // The family whose registrations follow (its KILN_*_OPS / KILN_OP_DEFS name).
  void begin_family(std::string family) { current_ = std::move(family); }
  // Records that the current family registers `name` in `table` ("CPU kernels", ...).
  // kiln::Error when another family did, or, unless `may_repeat`, when this family already did.
  void claim(const char* table, const std::string& name, bool may_repeat = false);

 private:
  std::string current_;
  std::map<std::string, std::string> owner_;  // name -> family
};

}  // namespace kiln
