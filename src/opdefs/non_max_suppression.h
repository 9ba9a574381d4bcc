// NonMaxSuppression's attribute and its inputs resolved for one run, shared by the CPU kernel
// (src/ops/non_max_suppression.cpp) and the GPU one: the shapes of boxes and scores (read for
// their shapes only) and the host scalars max_output_boxes_per_class, iou_threshold and
// score_threshold (shape inputs, indexing_defs.cpp).
#pragma once

#include <cstdint>

#include "opdefs/node_inputs.h"

namespace kiln {

class NodeInfo;

// center_point_box: 0 (corners) or 1 (centre, width, height); kiln::Error otherwise.
bool parse_center_point_box(const NodeInfo& info);

struct NmsParams {
  int64_t batches = 0, boxes = 0, classes = 0;
  int64_t max_per_class = 0;  // 0 when absent or negative: nothing is kept
  double iou_threshold = 0.0;
  bool has_score_threshold = false;
  double score_threshold = 0.0;
};

// kiln::Error naming the node for shapes or scalars the op rejects.
NmsParams resolve_nms(const NodeInputs& inputs);

}  // namespace kiln
