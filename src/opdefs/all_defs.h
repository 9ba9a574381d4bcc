// The op definitions' families. Each family file (src/opdefs/*.cpp) declares itself with one line
// at namespace scope and defines the function that line names:
//   KILN_OP_DEFS(window);
//   void define_window_ops(OpDefs& defs) { OpDef& conv = defs.define("Conv"); ... }
// The build generates define_all_ops from those lines (cmake/op_families.cmake): a new family
// file is defined without editing any list.
#pragma once

#include "opdefs/op_def.h"  // the generated calls name each family to OpDefs

namespace kiln {

// Declares define_<family>_ops, and marks the file for the generated define_all_ops.
#define KILN_OP_DEFS(family) void define_##family##_ops(OpDefs& defs)

// Defines every family (generated).
void define_all_ops(OpDefs& defs);

}  // namespace kiln
