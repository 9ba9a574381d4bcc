#include "opdefs/non_max_suppression.h"

#include <algorithm>
#include <string>

#include "core/element_storage.h"
#include "opdefs/node_info.h"

namespace kiln {
namespace {

// An optional float scalar input (absent or empty: `fallback`).
double optional_float_scalar(const NodeInputs& in, size_t index, const char* what,
                             double fallback) {
  if (!in.has_input(index) || in.inputs[index].element_count() == 0) return fallback;
  const Tensor& t = in.inputs[index];
  if (t.element_count() != 1) {
    in.fail(std::string(what) + " must hold one value, got shape " + t.shape().to_string());
  }
  switch (t.dtype()) {
    case DataType::Float32:
      return t.data<float>()[0];
    case DataType::Float64:
      return t.data<double>()[0];
    case DataType::Float16:
      return static_cast<double>(static_cast<float>(t.data<Float16>()[0]));
    case DataType::BFloat16:
      return static_cast<double>(static_cast<float>(t.data<BFloat16>()[0]));
    default:
      in.fail(std::string(what) + " must be float32, float64, float16 or bfloat16, got " +
              std::string(dtype_name(t.dtype())));
  }
}

}  // namespace

bool parse_center_point_box(const NodeInfo& info) {
  const int64_t center_point_box = info.attr_int("center_point_box", 0);
  if (center_point_box != 0 && center_point_box != 1) {
    info.fail("center_point_box must be 0 or 1, got " + std::to_string(center_point_box));
  }
  return center_point_box == 1;
}

NmsParams resolve_nms(const NodeInputs& inputs) {
  const Shape& bs = inputs.input(0).shape();
  const Shape& ss = inputs.input(1).shape();
  if (bs.size() != 3 || bs[2] != 4) {
    inputs.fail("boxes must have shape (batches, boxes, 4), got " + bs.to_string());
  }
  if (ss.size() != 3 || ss[0] != bs[0] || ss[2] != bs[1]) {
    inputs.fail("scores must have shape (batches, classes, boxes) = (" + std::to_string(bs[0]) +
                ", classes, " + std::to_string(bs[1]) + "), got " + ss.to_string());
  }
  NmsParams p;
  p.batches = bs[0];
  p.boxes = bs[1];
  p.classes = ss[1];
  if (inputs.has_input(2) && inputs.inputs[2].element_count() > 0) {
    const Tensor& m = inputs.inputs[2];
    Shape values;
    if (m.element_count() != 1 || !copy_int_list(m, values)) {
      inputs.fail("max_output_boxes_per_class must be one int64 value, got " +
                  std::string(dtype_name(m.dtype())) + m.shape().to_string());
    }
    p.max_per_class = std::max<int64_t>(values[0], 0);
  }
  p.iou_threshold = optional_float_scalar(inputs, 3, "iou_threshold", 0.0);
  p.has_score_threshold = inputs.has_input(4) && inputs.inputs[4].element_count() > 0;
  p.score_threshold = optional_float_scalar(inputs, 4, "score_threshold", 0.0);
  return p;
}

}  // namespace kiln
