// Normalizations: output 0 has the input's type and shape.
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {

KILN_OP_DEFS(normalization);
void define_normalization_ops(OpDefs& defs) {
  for (const char* op :
       {"BatchNormalization", "LayerNormalization", "InstanceNormalization", "GroupNormalization",
        "RMSNormalization", "LpNormalization", "MeanVarianceNormalization", "LRN"}) {
    defs.define(op).infer = same_as_input0;
  }
}

}  // namespace kiln
