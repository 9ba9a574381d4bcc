// Control flow and sequences: a branch condition, a trip count and split lengths are read on
// the host.
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {

void define_control_flow_ops(OpDefs& defs) {
  defs.define("If").shape_inputs = {{1, {0}}};
  defs.define("Loop").shape_inputs = {{1, {0, 1}}};
  defs.define("SplitToSequence").shape_inputs = {{11, {1}}};
}

}  // namespace kiln
