// Every op the CPU backend registers has a definition with a shape rule: shape inference, the
// drift check (--verify-shapes) and the GPU backends' planning read that rule, so an op without
// one is an op nothing checks. The test names the ops that lack one and prints the count.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "kernels/op_registry.h"
#include "opdefs/op_def.h"

namespace kiln::testing {
namespace {

TEST(OpDefCoverage, EveryRegisteredOpHasAShapeRule) {
  const OpRegistry& registry = OpRegistry::global();
  std::vector<std::string> without_rule;
  size_t registered = 0;
  for (const std::string& name : registry.op_names()) {
    ++registered;
    const size_t sep = name.find("::");
    const std::string domain = sep == std::string::npos ? "" : name.substr(0, sep);
    const std::string op_type = sep == std::string::npos ? name : name.substr(sep + 2);
    const OpDef* def = OpDefs::global().find(domain, op_type);
    if (!def || !def->infer) without_rule.push_back(name);
  }
  std::string missing;
  for (const std::string& name : without_rule) missing += " " + name;
  std::cout << (registered - without_rule.size()) << " of " << registered
            << " registered ops have a shape rule\n";
  EXPECT_TRUE(without_rule.empty()) << "registered ops without a shape rule:" << missing;
}

}  // namespace
}  // namespace kiln::testing
