// The vision family's registrations, one per file: vision.cpp calls each from
// register_vision_ops.
#pragma once

#include "kernels/op_registry.h"

namespace kiln {

void register_grid_sample(OpRegistry& registry);          // GridSample
void register_affine_grid(OpRegistry& registry);          // AffineGrid
void register_roi_align(OpRegistry& registry);            // RoiAlign
void register_non_max_suppression(OpRegistry& registry);  // NonMaxSuppression
void register_max_unpool(OpRegistry& registry);           // MaxUnpool
void register_deform_conv(OpRegistry& registry);          // DeformConv
void register_col2im(OpRegistry& registry);               // Col2Im
void register_center_crop_pad(OpRegistry& registry);      // CenterCropPad

}  // namespace kiln
