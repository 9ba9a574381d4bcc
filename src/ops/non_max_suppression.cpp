// NonMaxSuppression (opsets 10, 11): for every batch and class, greedily keeps the best-scoring
// boxes, dropping each box whose overlap (IoU) with an already kept one exceeds the threshold.
// The output lists the kept boxes as int64 rows (batch, class, box), by batch, class, then
// descending score. The attribute and the inputs' checks are the definition's
// (opdefs/non_max_suppression.h).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "core/element_storage.h"
#include "kernels/op_registry.h"
#include "opdefs/non_max_suppression.h"
#include "ops/all_ops.h"
#include "ops/vision_common.h"

namespace kiln {
namespace {

// A box as its extent on each axis, whichever corner order or format it came in.
struct Extent {
  double y_min, x_min, y_max, x_max;
  double area() const { return (y_max - y_min) * (x_max - x_min); }
};

Extent to_extent(const double* b, bool center_point) {
  if (center_point) {  // [x_center, y_center, width, height]
    const double half_w = b[2] / 2, half_h = b[3] / 2;
    return {b[1] - half_h, b[0] - half_w, b[1] + half_h, b[0] + half_w};
  }
  // [y1, x1, y2, x2] with the corners in either order.
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

// Whether the IoU of two boxes exceeds the threshold; boxes that do not overlap, or have no
// area, never suppress each other.
bool overlaps_too_much(const Extent& a, const Extent& b, double iou_threshold) {
  const double ix = std::min(a.x_max, b.x_max) - std::max(a.x_min, b.x_min);
  const double iy = std::min(a.y_max, b.y_max) - std::max(a.y_min, b.y_min);
  if (!(ix > 0) || !(iy > 0)) return false;
  const double inter = ix * iy;
  const double area_a = a.area(), area_b = b.area();
  const double uni = area_a + area_b - inter;
  if (!(area_a > 0) || !(area_b > 0) || !(uni > 0)) return false;
  return inter / uni > iou_threshold;
}

struct Selected {
  int64_t batch, cls, box;
};

CpuKernel make_non_max_suppression(const NodeInfo& info) {
  return [center_point = parse_center_point_box(info)](OpContext& ctx) {
    const NmsParams params = resolve_nms(NodeInputs{ctx.node(), ctx.inputs()});
    const Tensor& boxes_t = ctx.input(0);
    const Tensor& scores_t = ctx.input(1);
    const int64_t max_per_class = params.max_per_class;
    const double iou_threshold = params.iou_threshold;
    const bool has_score_threshold = params.has_score_threshold;
    const double score_threshold = params.score_threshold;
    const int64_t batches = params.batches, num_boxes = params.boxes, classes = params.classes;
    std::vector<double> boxes(static_cast<size_t>(boxes_t.element_count()));
    std::vector<double> scores(static_cast<size_t>(scores_t.element_count()));
    visit_float(ctx, boxes_t.dtype(), "boxes", [&]<class T>() {
      const T* p = boxes_t.data<T>();
      for (size_t i = 0; i < boxes.size(); ++i) boxes[i] = vision::load(p[i]);
    });
    visit_float(ctx, scores_t.dtype(), "scores", [&]<class T>() {
      const T* p = scores_t.data<T>();
      for (size_t i = 0; i < scores.size(); ++i) scores[i] = vision::load(p[i]);
    });

    std::vector<Selected> selected;
    std::vector<Extent> extents(static_cast<size_t>(num_boxes));
    std::vector<int64_t> order;
    std::vector<int64_t> kept;
    for (int64_t b = 0; b < batches && max_per_class > 0; ++b) {
      for (int64_t i = 0; i < num_boxes; ++i) {
        extents[i] = to_extent(&boxes[(b * num_boxes + i) * 4], center_point);
      }
      for (int64_t c = 0; c < classes; ++c) {
        // data() + offset: with no boxes, &scores[0] would index an empty vector.
        const double* s = scores.data() + (b * classes + c) * num_boxes;
        order.clear();
        for (int64_t i = 0; i < num_boxes; ++i) {
          if (!has_score_threshold || s[i] > score_threshold) order.push_back(i);
        }
        // Best score first; equal scores keep the lower box index first. NaN scores never
        // pass a threshold and sort last.
        std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
          const bool i_nan = s[i] != s[i], j_nan = s[j] != s[j];
          if (i_nan || j_nan) return !i_nan && j_nan;
          return s[i] > s[j];
        });
        kept.clear();
        for (int64_t i : order) {
          if (static_cast<int64_t>(kept.size()) >= max_per_class) break;
          const bool suppressed = std::any_of(kept.begin(), kept.end(), [&](int64_t k) {
            return overlaps_too_much(extents[i], extents[k], iou_threshold);
          });
          if (suppressed) continue;
          kept.push_back(i);
          selected.push_back({b, c, i});
        }
      }
    }
    Tensor& out =
        ctx.allocate_output(0, DataType::Int64, Shape{static_cast<int64_t>(selected.size()), 3});
    int64_t* o = out.mutable_data<int64_t>();
    for (const Selected& s : selected) {
      *o++ = s.batch;
      *o++ = s.cls;
      *o++ = s.box;
    }
  };
}

}  // namespace

KILN_CPU_OPS(non_max_suppression);
void register_non_max_suppression_ops(OpRegistry& registry) {
  registry.add("NonMaxSuppression", make_non_max_suppression);
}

}  // namespace kiln
