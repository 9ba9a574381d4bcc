// GridSample, AffineGrid, RoiAlign, NonMaxSuppression, MaxUnpool, DeformConv, Col2Im,
// CenterCropPad: each lives in its own file and registers itself through vision_ops.h.
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/vision_ops.h"

namespace kiln {

void register_vision_ops(OpRegistry& registry) {
  register_grid_sample(registry);
  register_affine_grid(registry);
  register_roi_align(registry);
  register_non_max_suppression(registry);
  register_max_unpool(registry);
  register_deform_conv(registry);
  register_col2im(registry);
  register_center_crop_pad(registry);
}

}  // namespace kiln
