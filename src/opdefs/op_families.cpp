#include "opdefs/op_families.h"

#include "kiln/error.h"

namespace kiln {

void OpFamilies::claim(const char* table, const std::string& name, bool may_repeat) {
  const std::string family = current_.empty() ? "(none)" : current_;
  auto [it, fresh] = owner_.try_emplace(name, family);
  if (fresh || (may_repeat && it->second == family)) return;
  if (it->second == family) {
    throw Error(std::string(table) + ": op '" + name + "' is registered twice by op family '" +
                family + "'");
  }
  throw Error(std::string(table) + ": op '" + name + "' is registered by op family '" + it->second +
              "' and again by op family '" + family + "'; an op belongs to one family");
}

}  // namespace kiln
