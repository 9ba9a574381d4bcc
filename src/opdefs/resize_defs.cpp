// Resize, Upsample and AffineGrid take their output sizes (or scales) as values.
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {

void define_resize_ops(OpDefs& defs) {
  defs.define("Resize").shape_inputs = {{10, {1}}, {11, {1, 2, 3}}};
  defs.define("Upsample").shape_inputs = {{9, {1}}};
  defs.define("AffineGrid").shape_inputs = {{20, {1}}};
}

}  // namespace kiln
