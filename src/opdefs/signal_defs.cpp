// Signal processing: DFT, STFT, the window functions and MelWeightMatrix take their lengths and
// sizes as values.
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {

void define_signal_ops(OpDefs& defs) {
  defs.define("DFT").shape_inputs = {{17, {1}}, {20, {1, 2}}};
  defs.define("STFT").shape_inputs = {{17, {1, 3}}};
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    defs.define(op).shape_inputs = {{17, {0}}};
  }
  defs.define("MelWeightMatrix").shape_inputs = {{17, {0, 1, 2, 3, 4}}};
}

}  // namespace kiln
