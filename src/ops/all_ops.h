// The CPU kernels' op families. Each family file (src/ops/*.cpp) declares itself with one line
// at namespace scope and defines the function that line names:
//   KILN_CPU_OPS(pool);
//   void register_pool_ops(OpRegistry& registry) { registry.add("MaxPool", make_max_pool); ... }
// The build generates register_all_ops from those lines (cmake/op_families.cmake): a new family
// file is registered without editing any list.
#pragma once

#include "kernels/op_registry.h"  // the generated calls name each family to OpRegistry

namespace kiln {

// Declares register_<family>_ops, and marks the file for the generated register_all_ops.
#define KILN_CPU_OPS(family) void register_##family##_ops(OpRegistry& registry)

// Registers every family (generated).
void register_all_ops(OpRegistry& registry);

}  // namespace kiln
