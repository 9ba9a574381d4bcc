// Softmax, LogSoftmax, Hardmax and the Reduce family as draws (backends/gl/softmax, reduce), on
// the tensor folded to (outer, axis, inner) around the softmax axis or a contiguous run of
// reduced axes. Non-contiguous reduction axes run on the CPU.
#include "backends/gl/ops/op_table.h"
#include "backends/gl/reduce.h"
#include "backends/gl/softmax.h"
#include "ops/op_utils.h"

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
      if (axes.empty() && noop_empty) throw RunOnCpu("no axes to reduce");
      std::vector<bool> reduced(x.size(), axes.empty());
      for (int64_t a : axes) {
        reduced[static_cast<size_t>(non_negative_axis(a, rank))] = true;
      }
      // One contiguous run of reduced axes (size-1 axes may sit anywhere).
      size_t first = x.size(), last = 0;
      for (size_t d = 0; d < x.size(); ++d) {
        if (reduced[d] && x[d] != 1) {
          first = std::min(first, d);
          last = d;
        }
      }
      if (first == x.size()) first = last = 0;
      for (size_t d = first; d <= last && d < x.size(); ++d) {
        if (!reduced[d] && x[d] != 1) throw RunOnCpu("non-contiguous reduction axes");
      }
      const ReduceShape s{product(x, 0, first), x.empty() ? 1 : product(x, first, last + 1),
                          x.empty() ? 1 : product(x, last + 1, x.size())};
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
      r.kernel<Reduce>().record(op, s, xt, r.output(0, y_shape));
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
