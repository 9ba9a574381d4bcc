// RoiAlign (opsets 10, 16, 22), defined once for the CPU kernel and the GPU backends: its
// attributes, the checks on a run's inputs, and each region's bilinear samples. Each output bin
// of a region averages (or takes the max of) bilinear samples on a regular sub-grid of the bin,
// as Mask R-CNN defines it; the samples are planned in double from the regions' values.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/shape.h"
#include "opdefs/node_inputs.h"

namespace kiln {

class NodeInfo;

struct RoiAlignAttrs {
  bool max_mode = false;
  bool half_pixel = true;
  int64_t out_h = 1, out_w = 1, sampling_ratio = 0;
  double spatial_scale = 1.0;
};

// kiln::Error naming the node for a mode or coordinate_transformation_mode the op lacks,
// non-positive output sizes, a negative sampling_ratio or a non-finite spatial_scale.
RoiAlignAttrs parse_roi_align_attrs(const NodeInfo& info);

// One run: each region's batch index (read from the host-held batch_indices) and the output
// shape [num_rois, C, output_height, output_width].
struct RoiAlignRun {
  std::vector<int64_t> batch;
  Shape out_shape;
};

// kiln::Error naming the node unless X is (N, C, H, W), rois (num_rois, 4) of X's type and
// batch_indices int32/int64 (num_rois) within the batch, or when the output's element count
// overflows.
RoiAlignRun resolve_roi_align(const NodeInputs& inputs, const RoiAlignAttrs& attrs);

// A bilinear sample: four input positions (in one H x W plane) and their weights.
struct RoiSample {
  int64_t pos[4] = {};
  double w[4] = {};
};

// One region's samples, bin by bin (row-major over the output bins), grid_h * grid_w per bin.
struct RoiPlan {
  int64_t grid_h = 0, grid_w = 0;
  std::vector<RoiSample> samples;
};

// Every region's plan from the host-held rois (input 1) for an H x W map; kiln::Error naming the
// node for an empty map or a region that is not finite or needs too many samples.
std::vector<RoiPlan> plan_roi_align(const NodeInputs& inputs, const RoiAlignAttrs& attrs,
                                    int64_t height, int64_t width);

}  // namespace kiln
