// Ops that make a tensor from a shape or a range given as values, and the random ops.
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {

void define_generator_ops(OpDefs& defs) {
  defs.define("ConstantOfShape").shape_inputs = {{9, {0}}};
  defs.define("Range").shape_inputs = {{11, {0, 1, 2}}};
  // Random draws differ between runs: never folded into constants at load time.
  for (const char* op : {"RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike",
                         "Bernoulli", "Multinomial"}) {
    defs.define(op).nondeterministic = true;
  }
}

}  // namespace kiln
