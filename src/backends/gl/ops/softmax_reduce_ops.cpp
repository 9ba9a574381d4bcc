// Softmax, LogSoftmax, Hardmax and the Reduce family as draws (backends/gl/softmax, reduce), on
// the tensor folded to (outer, axis, inner) around the softmax axis or a contiguous run of
// reduced axes; reduced axes that kept ones interrupt are transposed to the end first.
#include <algorithm>
#include <optional>
#include <vector>

#include "backends/gl/ops/op_table.h"
#include "backends/gl/reduce.h"
#include "backends/gl/region_copy.h"
#include "backends/gl/softmax.h"
#include "opdefs/broadcast.h"

namespace kiln::gl {
namespace {

int64_t product(const Shape& s, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t d = begin; d < end; ++d) n *= s[d];
  return n;
}

OpFactory softmax_factory(SoftmaxOp op) {
  return [op](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason)) return nullptr;
    const bool flatten = q.info.opset() < 13;  // older opsets coerce to 2-D at the axis
    const int64_t axis = q.info.attr_int("axis", flatten ? 1 : -1);
    return [=](OpRecorder& r) {
      const Shape& x = r.shape(0);
      const auto rank = static_cast<int64_t>(x.size());
      const int64_t a = axis < 0 ? axis + rank : axis;
      if (a < 0 || a > rank || (a == rank && !flatten)) throw RunOnCpu("axis out of range");
      const size_t ua = static_cast<size_t>(a);
      const SoftmaxShape s =
          flatten ? SoftmaxShape{product(x, 0, ua), product(x, ua, x.size()), 1}
                  : SoftmaxShape{product(x, 0, ua), x[ua], product(x, ua + 1, x.size())};
      const TextureTensor& xt = r.texture(0);
      r.kernel<Softmax>().record(op, s, xt, r.output(0, x));
    };
  };
}

// The (outer, reduced, inner) fold of `x` when its reduced axes longer than 1 form one run
// (size-1 axes may sit anywhere; no reduced axis at all is a fold of single-element lines);
// nullopt when kept axes interrupt the run.
std::optional<ReduceShape> fold_in_place(const Shape& x, const std::vector<bool>& reduced) {
  size_t first = x.size(), last = 0;
  for (size_t d = 0; d < x.size(); ++d) {
    if (reduced[d] && x[d] != 1) {
      first = std::min(first, d);
      last = d;
    }
  }
  if (first == x.size()) return ReduceShape{x.element_count(), 1, 1};
  for (size_t d = first; d <= last; ++d) {
    if (!reduced[d] && x[d] != 1) return std::nullopt;
  }
  return ReduceShape{product(x, 0, first), product(x, first, last + 1),
                     product(x, last + 1, x.size())};
}

// Reduce axes: an attribute before opset 18 (13 for ReduceSum), a host input after.
OpFactory reduce_factory(ReduceOp op, const char* name) {
  return [op, name](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
    if (!float_inputs(q, reason, 0, 1)) return nullptr;
    const bool axes_input = q.info.opset() >= (std::string(name) == "ReduceSum" ? 13 : 18);
    if (axes_input && !host_inputs(q, 1, reason)) return nullptr;
    const std::vector<int64_t> attr_axes =
        axes_input ? std::vector<int64_t>{} : q.info.attr_ints("axes");
    const bool keepdims = q.info.attr_int("keepdims", 1) != 0;
    const bool noop_empty = q.info.attr_int("noop_with_empty_axes", 0) != 0;
    return [=](OpRecorder& r) {
      const Shape& x = r.shape(0);
      const auto rank = static_cast<int64_t>(x.size());
      std::vector<int64_t> axes = attr_axes;
      if (axes_input && r.has_input(1)) axes = to_int64_vector(r.input(1), "axes");
      // noop_with_empty_axes and no axes: nothing is reduced, each element is its own line.
      std::vector<bool> reduced(x.size(), axes.empty() && !noop_empty);
      for (int64_t a : axes) {
        reduced[static_cast<size_t>(non_negative_axis(a, rank))] = true;
      }
      Shape y_shape;
      for (size_t d = 0; d < x.size(); ++d) {
        if (!reduced[d])
          y_shape.push_back(x[d]);
        else if (keepdims)
          y_shape.push_back(1);
      }
      if (x.element_count() == 0 && y_shape.element_count() != 0)
        throw RunOnCpu("reduction of an empty tensor");
      const TextureTensor& xt = r.texture(0);
      TextureTensor& y = r.output(0, y_shape);
      if (const std::optional<ReduceShape> s = fold_in_place(x, reduced)) {
        r.kernel<Reduce>().record(op, *s, xt, y);
        return;
      }
      // Kept axes interrupt the reduced ones: a transpose draw puts the kept axes first, in
      // order, and the reduced ones last.
      std::vector<int64_t> perm;
      int64_t kept = 1, reduced_length = 1;
      for (size_t d = 0; d < x.size(); ++d) {
        if (reduced[d]) continue;
        perm.push_back(static_cast<int64_t>(d));
        kept *= x[d];
      }
      for (size_t d = 0; d < x.size(); ++d) {
        if (!reduced[d]) continue;
        perm.push_back(static_cast<int64_t>(d));
        reduced_length *= x[d];
      }
      TextureTensor transposed = r.temporary(x.element_count());
      r.kernel<RegionCopy>().record(transpose_region(x, perm), xt, transposed);
      r.kernel<Reduce>().record(op, ReduceShape{kept, reduced_length, 1}, transposed, y);
    };
  };
}

}  // namespace

void register_softmax_reduce_ops(OpTable& t) {
  t.add("Softmax", softmax_factory(SoftmaxOp::Softmax));
  t.add("LogSoftmax", softmax_factory(SoftmaxOp::LogSoftmax));
  t.add("Hardmax", softmax_factory(SoftmaxOp::Hardmax));
  for (auto [name, op] : std::initializer_list<std::pair<const char*, ReduceOp>>{
           {"ReduceSum", ReduceOp::Sum},
           {"ReduceMean", ReduceOp::Mean},
           {"ReduceMax", ReduceOp::Max},
           {"ReduceMin", ReduceOp::Min},
           {"ReduceProd", ReduceOp::Prod},
           {"ReduceL1", ReduceOp::L1},
           {"ReduceL2", ReduceOp::L2},
           {"ReduceLogSum", ReduceOp::LogSum},
           {"ReduceLogSumExp", ReduceOp::LogSumExp},
           {"ReduceSumSquare", ReduceOp::SumSquare}}) {
    t.add(name, reduce_factory(op, name));
  }
}

}  // namespace kiln::gl
