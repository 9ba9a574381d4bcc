// GridSample, AffineGrid, RoiAlign, NonMaxSuppression, MaxUnpool, DeformConv, Col2Im,
// CenterCropPad.
#include "ops/all_ops.h"
#include "ops/op_registry.h"

namespace kiln {

void register_vision_ops(OpRegistry& registry) { (void)registry; }

}  // namespace kiln
