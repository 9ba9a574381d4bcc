// Shape and type inference for the common ops, keeping symbolic dims by name ("batch").
// Values no rule covers stay unknown: the CPU kernels compute real shapes at run time, so
// inference only serves planning, inspection and folding, never correctness.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "passes/passes.h"

namespace kiln::passes {

namespace {

struct Known {
  std::map<std::string, ValueInfo> values;
  const ir::Graph* graph = nullptr;
  const ValueInfo* get(const std::string& name) const {
    auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second;
  }
  const Tensor* constant(const std::string& name) const {
    auto it = graph->initializers.find(name);
    return it == graph->initializers.end() ? nullptr : &it->second;
  }
};

Dim fixed(int64_t v) { return Dim{v, ""}; }

ValueInfo tensor_info(DataType dtype, std::vector<Dim> dims) {
  ValueInfo v;
  v.dtype = dtype;
  v.has_shape = true;
  v.shape = std::move(dims);
  return v;
}

ValueInfo type_only(DataType dtype) {
  ValueInfo v;
  v.dtype = dtype;
  return v;
}

std::optional<Dim> broadcast_dim(const Dim& a, const Dim& b) {
  if (a.is_fixed() && a.value == 1) return b;
  if (b.is_fixed() && b.value == 1) return a;
  if (a == b) return a;
  if (a.is_fixed() && !b.is_fixed()) return a;  // b must be a (or 1, which broadcasts)
  if (b.is_fixed() && !a.is_fixed()) return b;
  return Dim{};
}

int64_t get_int(const ir::Node& n, const char* name, int64_t fallback) {
  const auto* a = n.find_attribute(name);
  return a && a->type == ir::Attribute::Type::Int ? a->i : fallback;
}
std::vector<int64_t> get_ints(const ir::Node& n, const char* name) {
  const auto* a = n.find_attribute(name);
  return a && a->type == ir::Attribute::Type::Ints ? a->ints : std::vector<int64_t>{};
}
std::vector<int64_t> const_ints(const Known& k, const ir::Node& n, size_t input) {
  if (input >= n.inputs.size() || n.inputs[input].empty()) return {};
  const Tensor* t = k.constant(n.inputs[input]);
  if (!t || (t->dtype() != DataType::Int64 && t->dtype() != DataType::Int32)) return {};
  std::vector<int64_t> v;
  for (int64_t i = 0; i < t->element_count(); ++i) {
    v.push_back(t->dtype() == DataType::Int64 ? t->data<int64_t>()[i] : t->data<int32_t>()[i]);
  }
  return v;
}

using Rule = std::function<std::vector<ValueInfo>(const ir::Node&, const Known&, int opset)>;

const ValueInfo* in(const Known& k, const ir::Node& n, size_t i) {
  return i < n.inputs.size() && !n.inputs[i].empty() ? k.get(n.inputs[i]) : nullptr;
}

std::vector<ValueInfo> same_as_first(const ir::Node& n, const Known& k, int) {
  const ValueInfo* x = in(k, n, 0);
  return x ? std::vector<ValueInfo>{*x} : std::vector<ValueInfo>{};
}

std::optional<ValueInfo> broadcast_inputs(const ir::Node& n, const Known& k, size_t first,
                                          DataType dtype) {
  std::vector<Dim> out;
  for (size_t i = first; i < n.inputs.size(); ++i) {
    const ValueInfo* x = in(k, n, i);
    if (!x || !x->has_shape)
      return dtype == DataType::Undefined ? std::nullopt : std::optional(type_only(dtype));
    if (x->shape.size() > out.size())
      out.insert(out.begin(), x->shape.size() - out.size(), fixed(1));
    const size_t off = out.size() - x->shape.size();
    for (size_t d = 0; d < x->shape.size(); ++d) {
      auto b = broadcast_dim(out[off + d], x->shape[d]);
      out[off + d] = b ? *b : Dim{};
    }
  }
  return tensor_info(dtype, out);
}

std::vector<ValueInfo> broadcast_rule(const ir::Node& n, const Known& k, int) {
  const ValueInfo* x = in(k, n, 0);
  auto v = broadcast_inputs(n, k, 0, x ? x->dtype : DataType::Undefined);
  return v ? std::vector<ValueInfo>{*v} : std::vector<ValueInfo>{};
}

std::vector<ValueInfo> compare_rule(const ir::Node& n, const Known& k, int) {
  auto v = broadcast_inputs(n, k, 0, DataType::Bool);
  return v ? std::vector<ValueInfo>{*v} : std::vector<ValueInfo>{};
}

// Spatial output size of a window op (Conv, pooling) along one axis.
Dim window_out(const Dim& in_dim, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_sum,
               const std::string& auto_pad, bool ceil_mode) {
  if (!in_dim.is_fixed()) return Dim{};
  const int64_t x = in_dim.value;
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") return fixed((x + stride - 1) / stride);
  const int64_t effective = (kernel - 1) * dilation + 1;
  if (auto_pad == "VALID") return fixed((x - effective) / stride + 1);
  const int64_t span = x + pad_sum - effective;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // A window that would start entirely in the end padding is dropped (ONNX ceil_mode rule).
  if (ceil_mode && (out - 1) * stride >= x + pad_sum / 2) --out;
  return fixed(out);
}

std::vector<ValueInfo> window_rule(const ir::Node& n, const Known& k, int) {
  const ValueInfo* x = in(k, n, 0);
  if (!x || !x->has_shape || x->shape.size() < 3) return {};
  const size_t spatial = x->shape.size() - 2;
  std::vector<int64_t> kernel = get_ints(n, "kernel_shape");
  Dim channels = x->shape[1];
  if (n.op_type == "Conv") {
    const ValueInfo* w = in(k, n, 1);
    if (!w || !w->has_shape || w->shape.size() != x->shape.size()) return {type_only(x->dtype)};
    channels = w->shape[0];
    if (kernel.empty()) {
      for (size_t i = 2; i < w->shape.size(); ++i) {
        if (!w->shape[i].is_fixed()) return {type_only(x->dtype)};
        kernel.push_back(w->shape[i].value);
      }
    }
  }
  if (kernel.size() != spatial) return {type_only(x->dtype)};
  std::vector<int64_t> strides = get_ints(n, "strides"), dilations = get_ints(n, "dilations"),
                       pads = get_ints(n, "pads");
  strides.resize(spatial, 1);
  dilations.resize(spatial, 1);
  pads.resize(2 * spatial, 0);
  const auto* ap = n.find_attribute("auto_pad");
  const std::string auto_pad = ap ? ap->s : "NOTSET";
  const bool ceil_mode = get_int(n, "ceil_mode", 0) != 0;
  std::vector<Dim> out = {x->shape[0], channels};
  for (size_t i = 0; i < spatial; ++i) {
    out.push_back(window_out(x->shape[2 + i], kernel[i], strides[i], dilations[i],
                             pads[i] + pads[i + spatial], auto_pad, ceil_mode));
  }
  std::vector<ValueInfo> result = {tensor_info(x->dtype, out)};
  if (n.op_type == "MaxPool") result.push_back(tensor_info(DataType::Int64, out));
  return result;
}

// Slice with bounds known at load time (attributes before opset 10, constant inputs after).
std::vector<ValueInfo> slice_rule(const ir::Node& n, const Known& k, int opset) {
  const ValueInfo* x = in(k, n, 0);
  if (!x) return {};
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset < 10) {
    starts = get_ints(n, "starts");
    ends = get_ints(n, "ends");
    axes = get_ints(n, "axes");
  } else {
    starts = const_ints(k, n, 1);
    ends = const_ints(k, n, 2);
    axes = const_ints(k, n, 3);
    steps = const_ints(k, n, 4);
    const bool bounds_known = !starts.empty() && !ends.empty() &&
                              (axes.empty() == (n.inputs.size() < 4 || n.inputs[3].empty())) &&
                              (steps.empty() == (n.inputs.size() < 5 || n.inputs[4].empty()));
    if (!bounds_known) return {type_only(x->dtype)};
  }
  const auto rank = static_cast<int64_t>(x->shape.size());
  if (!x->has_shape || starts.size() != ends.size() ||
      (!axes.empty() && axes.size() != starts.size()) ||
      (!steps.empty() && steps.size() != starts.size()))
    return {type_only(x->dtype)};
  ValueInfo out = *x;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes.empty() ? static_cast<int64_t>(i) : axes[i];
    if (a < 0) a += rank;
    const int64_t step = steps.empty() ? 1 : steps[i];
    if (a < 0 || a >= rank || step == 0) return {type_only(x->dtype)};
    const Dim& d = x->shape[static_cast<size_t>(a)];
    if (!d.is_fixed()) {
      out.shape[static_cast<size_t>(a)] = Dim{};
      continue;
    }
    const int64_t dim = d.value;
    int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
    int64_t count = 0;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      if (end > start) count = (end - start - 1) / step + 1;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      if (start > end) count = (start - end - 1) / -step + 1;
    }
    out.shape[static_cast<size_t>(a)] = fixed(count);
  }
  return {out};
}

std::vector<ValueInfo> global_pool_rule(const ir::Node& n, const Known& k, int) {
  const ValueInfo* x = in(k, n, 0);
  if (!x || !x->has_shape || x->shape.size() < 2) return {};
  std::vector<Dim> out = {x->shape[0], x->shape[1]};
  out.resize(x->shape.size(), fixed(1));
  return {tensor_info(x->dtype, out)};
}

std::vector<ValueInfo> gemm_rule(const ir::Node& n, const Known& k, int) {
  const ValueInfo *a = in(k, n, 0), *b = in(k, n, 1);
  if (!a || !b || !a->has_shape || !b->has_shape || a->shape.size() != 2 || b->shape.size() != 2) {
    return a ? std::vector<ValueInfo>{type_only(a->dtype)} : std::vector<ValueInfo>{};
  }
  const Dim m = get_int(n, "transA", 0) ? a->shape[1] : a->shape[0];
  const Dim cols = get_int(n, "transB", 0) ? b->shape[0] : b->shape[1];
  return {tensor_info(a->dtype, {m, cols})};
}

std::vector<ValueInfo> matmul_rule(const ir::Node& n, const Known& k, int) {
  const ValueInfo *a = in(k, n, 0), *b = in(k, n, 1);
  if (!a || !b) return {};
  if (!a->has_shape || !b->has_shape || a->shape.empty() || b->shape.empty())
    return {type_only(a->dtype)};
  std::vector<Dim> sa = a->shape, sb = b->shape;
  const bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), fixed(1));
  if (b_vec) sb.push_back(fixed(1));
  std::vector<Dim> batch;
  const size_t ra = sa.size() - 2, rb = sb.size() - 2, r = std::max(ra, rb);
  for (size_t i = 0; i < r; ++i) {
    const Dim da = i < r - ra ? fixed(1) : sa[i - (r - ra)];
    const Dim db = i < r - rb ? fixed(1) : sb[i - (r - rb)];
    auto d = broadcast_dim(da, db);
    batch.push_back(d ? *d : Dim{});
  }
  if (!a_vec) batch.push_back(sa[sa.size() - 2]);
  if (!b_vec) batch.push_back(sb.back());
  return {tensor_info(a->dtype, batch)};
}

std::vector<ValueInfo> reshape_rule(const ir::Node& n, const Known& k, int) {
  const ValueInfo* x = in(k, n, 0);
  const auto target = const_ints(k, n, 1);
  if (!x) return {};
  if (target.empty() && (n.inputs.size() < 2 || !k.constant(n.inputs[1])))
    return {type_only(x->dtype)};
  const bool allow_zero = get_int(n, "allowzero", 0) != 0;
  std::vector<Dim> out;
  int64_t known_product = 1;
  int infer_at = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      infer_at = static_cast<int>(i);
      out.push_back(Dim{});
    } else if (target[i] == 0 && !allow_zero) {
      if (!x->has_shape || i >= x->shape.size()) return {type_only(x->dtype)};
      out.push_back(x->shape[i]);
      if (out.back().is_fixed())
        known_product *= out.back().value;
      else
        known_product = -1;
    } else {
      out.push_back(fixed(target[i]));
      if (known_product >= 0) known_product *= target[i];
    }
  }
  if (infer_at >= 0 && x->has_shape && known_product > 0) {
    int64_t total = 1;
    for (const auto& d : x->shape) total = d.is_fixed() && total >= 0 ? total * d.value : -1;
    if (total >= 0) out[static_cast<size_t>(infer_at)] = fixed(total / known_product);
  }
  return {tensor_info(x->dtype, out)};
}

std::vector<ValueInfo> transpose_rule(const ir::Node& n, const Known& k, int) {
  const ValueInfo* x = in(k, n, 0);
  if (!x || !x->has_shape)
    return x ? std::vector<ValueInfo>{type_only(x->dtype)} : std::vector<ValueInfo>{};
  std::vector<int64_t> perm = get_ints(n, "perm");
  if (perm.empty()) {
    for (size_t i = x->shape.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  }
  std::vector<Dim> out;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(x->shape.size())) return {type_only(x->dtype)};
    out.push_back(x->shape[static_cast<size_t>(p)]);
  }
  return {tensor_info(x->dtype, out)};
}

std::vector<ValueInfo> flatten_rule(const ir::Node& n, const Known& k, int) {
  const ValueInfo* x = in(k, n, 0);
  if (!x || !x->has_shape)
    return x ? std::vector<ValueInfo>{type_only(x->dtype)} : std::vector<ValueInfo>{};
  const int64_t rank = static_cast<int64_t>(x->shape.size());
  int64_t axis = get_int(n, "axis", 1);
  if (axis < 0) axis += rank;
  // Out of range: the kernel reports it at run time; here it must not index past the shape.
  if (axis < 0 || axis > rank) return {type_only(x->dtype)};
  auto product = [&](int64_t b, int64_t e) -> Dim {
    int64_t p = 1;
    for (int64_t i = b; i < e; ++i) {
      if (!x->shape[static_cast<size_t>(i)].is_fixed())
        return (e - b == 1) ? x->shape[static_cast<size_t>(i)] : Dim{};
      p *= x->shape[static_cast<size_t>(i)].value;
    }
    return fixed(p);
  };
  return {tensor_info(x->dtype, {product(0, axis), product(axis, rank)})};
}

std::vector<ValueInfo> concat_rule(const ir::Node& n, const Known& k, int) {
  const ValueInfo* x = in(k, n, 0);
  if (!x || !x->has_shape)
    return x ? std::vector<ValueInfo>{type_only(x->dtype)} : std::vector<ValueInfo>{};
  const int64_t rank = static_cast<int64_t>(x->shape.size());
  int64_t axis = get_int(n, "axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return {type_only(x->dtype)};  // the kernel reports it at run time
  std::vector<Dim> out = x->shape;
  int64_t total = 0;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ValueInfo* v = in(k, n, i);
    if (!v || !v->has_shape || static_cast<int64_t>(v->shape.size()) != rank)
      return {type_only(x->dtype)};
    const Dim& d = v->shape[static_cast<size_t>(axis)];
    total = d.is_fixed() && total >= 0 ? total + d.value : -1;
  }
  out[static_cast<size_t>(axis)] = total >= 0 ? fixed(total) : Dim{};
  return {tensor_info(x->dtype, out)};
}

std::vector<ValueInfo> shape_rule(const ir::Node& n, const Known& k, int) {
  const ValueInfo* x = in(k, n, 0);
  if (!x || !x->has_shape) return {type_only(DataType::Int64)};
  const int64_t rank = static_cast<int64_t>(x->shape.size());
  int64_t start = get_int(n, "start", 0), end = get_int(n, "end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  return {tensor_info(DataType::Int64, {fixed(end - start)})};
}

std::vector<ValueInfo> unsqueeze_rule(const ir::Node& n, const Known& k, int opset) {
  const ValueInfo* x = in(k, n, 0);
  std::vector<int64_t> axes = opset >= 13 ? const_ints(k, n, 1) : get_ints(n, "axes");
  if (!x || !x->has_shape || axes.empty())
    return x ? std::vector<ValueInfo>{type_only(x->dtype)} : std::vector<ValueInfo>{};
  const int64_t rank = static_cast<int64_t>(x->shape.size() + axes.size());
  std::set<int64_t> positions;
  for (int64_t a : axes) positions.insert(a < 0 ? a + rank : a);
  std::vector<Dim> out;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (positions.count(i)) {
      out.push_back(fixed(1));
    } else if (next < x->shape.size()) {
      out.push_back(x->shape[next++]);
    }
  }
  return {tensor_info(x->dtype, out)};
}

std::vector<ValueInfo> squeeze_rule(const ir::Node& n, const Known& k, int opset) {
  const ValueInfo* x = in(k, n, 0);
  if (!x || !x->has_shape)
    return x ? std::vector<ValueInfo>{type_only(x->dtype)} : std::vector<ValueInfo>{};
  std::vector<int64_t> axes = opset >= 13 ? const_ints(k, n, 1) : get_ints(n, "axes");
  const int64_t rank = static_cast<int64_t>(x->shape.size());
  std::set<int64_t> drop;
  for (int64_t a : axes) drop.insert(a < 0 ? a + rank : a);
  std::vector<Dim> out;
  for (int64_t i = 0; i < rank; ++i) {
    const Dim& d = x->shape[static_cast<size_t>(i)];
    if (axes.empty() ? (d.is_fixed() && d.value == 1) : drop.count(i) > 0) continue;
    if (axes.empty() && !d.is_fixed()) return {type_only(x->dtype)};
    out.push_back(d);
  }
  return {tensor_info(x->dtype, out)};
}

std::vector<ValueInfo> cast_rule(const ir::Node& n, const Known& k, int) {
  const ValueInfo* x = in(k, n, 0);
  ValueInfo out = x ? *x : ValueInfo{};
  out.dtype = static_cast<DataType>(get_int(n, "to", 0));
  if (n.op_type == "CastLike") {
    const ValueInfo* like = in(k, n, 1);
    out.dtype = like ? like->dtype : DataType::Undefined;
  }
  return {out};
}

std::vector<ValueInfo> reduce_rule(const ir::Node& n, const Known& k, int opset) {
  const ValueInfo* x = in(k, n, 0);
  if (!x || !x->has_shape)
    return x ? std::vector<ValueInfo>{type_only(x->dtype)} : std::vector<ValueInfo>{};
  const bool arg = n.op_type == "ArgMax" || n.op_type == "ArgMin";
  const DataType dtype = arg ? DataType::Int64 : x->dtype;
  const bool axes_as_input = !arg && (opset >= 18 || (n.op_type == "ReduceSum" && opset >= 13));
  std::vector<int64_t> axes = arg ? std::vector<int64_t>{get_int(n, "axis", 0)}
                                  : (axes_as_input ? const_ints(k, n, 1) : get_ints(n, "axes"));
  if (axes_as_input && axes.empty() && n.inputs.size() > 1 && !n.inputs[1].empty())
    return {type_only(dtype)};
  const bool keepdims = get_int(n, "keepdims", 1) != 0;
  const int64_t rank = static_cast<int64_t>(x->shape.size());
  if (axes.empty()) {
    if (get_int(n, "noop_with_empty_axes", 0)) return {*x};
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  std::set<int64_t> reduced;
  for (int64_t a : axes) reduced.insert(a < 0 ? a + rank : a);
  std::vector<Dim> out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.count(i)) {
      out.push_back(x->shape[static_cast<size_t>(i)]);
    } else if (keepdims) {
      out.push_back(fixed(1));
    }
  }
  return {tensor_info(dtype, out)};
}

std::vector<ValueInfo> gather_rule(const ir::Node& n, const Known& k, int) {
  const ValueInfo *x = in(k, n, 0), *idx = in(k, n, 1);
  if (!x || !x->has_shape || !idx || !idx->has_shape)
    return x ? std::vector<ValueInfo>{type_only(x->dtype)} : std::vector<ValueInfo>{};
  const int64_t rank = static_cast<int64_t>(x->shape.size());
  int64_t axis = get_int(n, "axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return {type_only(x->dtype)};
  std::vector<Dim> out(x->shape.begin(), x->shape.begin() + axis);
  out.insert(out.end(), idx->shape.begin(), idx->shape.end());
  out.insert(out.end(), x->shape.begin() + axis + 1, x->shape.end());
  return {tensor_info(x->dtype, out)};
}

const std::map<std::string, Rule>& rules() {
  static const std::map<std::string, Rule> table = [] {
    std::map<std::string, Rule> t;
    for (const char* op : {"Relu",
                           "LeakyRelu",
                           "PRelu",
                           "Elu",
                           "Selu",
                           "Celu",
                           "Gelu",
                           "HardSigmoid",
                           "HardSwish",
                           "Mish",
                           "Softplus",
                           "Softsign",
                           "Sigmoid",
                           "Tanh",
                           "ThresholdedRelu",
                           "Shrink",
                           "Swish",
                           "Clip",
                           "Abs",
                           "Neg",
                           "Reciprocal",
                           "Floor",
                           "Ceil",
                           "Round",
                           "Sqrt",
                           "Exp",
                           "Log",
                           "Sin",
                           "Cos",
                           "Tan",
                           "Asin",
                           "Acos",
                           "Atan",
                           "Sinh",
                           "Cosh",
                           "Asinh",
                           "Acosh",
                           "Atanh",
                           "Erf",
                           "Sign",
                           "Not",
                           "BitwiseNot",
                           "Softmax",
                           "LogSoftmax",
                           "Hardmax",
                           "Identity",
                           "Dropout",
                           "BatchNormalization",
                           "LayerNormalization",
                           "InstanceNormalization",
                           "GroupNormalization",
                           "RMSNormalization",
                           "LpNormalization",
                           "MeanVarianceNormalization",
                           "LRN",
                           "CumSum",
                           "CumProd",
                           "Trilu"}) {
      t[op] = same_as_first;
    }
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift", "BitwiseAnd",
                           "BitwiseOr", "BitwiseXor", "Min", "Max", "Sum", "Mean"}) {
      t[op] = broadcast_rule;
    }
    for (const char* op :
         {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor"})
      t[op] = compare_rule;
    for (const char* op : {"IsNaN", "IsInf"}) {
      t[op] = [](const ir::Node& n, const Known& k, int) {
        const ValueInfo* x = in(k, n, 0);
        ValueInfo v = x ? *x : ValueInfo{};
        v.dtype = DataType::Bool;
        return std::vector<ValueInfo>{v};
      };
    }
    t["Where"] = [](const ir::Node& n, const Known& k, int) {
      const ValueInfo* x = in(k, n, 1);
      auto v = broadcast_inputs(n, k, 0, x ? x->dtype : DataType::Undefined);
      return v ? std::vector<ValueInfo>{*v} : std::vector<ValueInfo>{};
    };
    for (const char* op : {"Conv", "MaxPool", "AveragePool", "LpPool"}) t[op] = window_rule;
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"})
      t[op] = global_pool_rule;
    t["Gemm"] = gemm_rule;
    t["MatMul"] = matmul_rule;
    t["Reshape"] = reshape_rule;
    t["Transpose"] = transpose_rule;
    t["Slice"] = slice_rule;
    t["Flatten"] = flatten_rule;
    t["Concat"] = concat_rule;
    t["Shape"] = shape_rule;
    t["Size"] = [](const ir::Node&, const Known&, int) {
      return std::vector<ValueInfo>{tensor_info(DataType::Int64, {})};
    };
    t["Unsqueeze"] = unsqueeze_rule;
    t["Squeeze"] = squeeze_rule;
    t["Cast"] = cast_rule;
    t["CastLike"] = cast_rule;
    t["Gather"] = gather_rule;
    for (const char* op :
         {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
          "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin"}) {
      t[op] = reduce_rule;
    }
    return t;
  }();
  return table;
}

void infer_graph(ir::Graph& graph, const std::map<std::string, int>& opsets, Known k) {
  k.graph = &graph;
  for (const auto& v : graph.inputs) k.values[v.name] = v;
  for (const auto& v : graph.value_infos) k.values[v.name] = v;  // declared by the exporter
  for (const auto& [name, t] : graph.initializers) {
    ValueInfo v = tensor_info(t.dtype(), {});
    v.name = name;
    for (int64_t d : t.shape()) v.shape.push_back(fixed(d));
    k.values[name] = v;
  }
  for (auto& node : graph.nodes) {
    auto rule = node.domain.empty() ? rules().find(node.op_type) : rules().end();
    if (rule != rules().end()) {
      auto it = opsets.find("");
      const auto outs = rule->second(node, k, it == opsets.end() ? 0 : it->second);
      for (size_t i = 0; i < outs.size() && i < node.outputs.size(); ++i) {
        if (node.outputs[i].empty() || outs[i].dtype == DataType::Undefined) continue;
        ValueInfo v = outs[i];
        v.name = node.outputs[i];
        auto declared = k.values.find(v.name);
        // An exporter's declaration with a known shape wins over a less precise inference.
        if (declared != k.values.end() && declared->second.has_shape && !v.has_shape) continue;
        k.values[v.name] = v;
      }
    }
    for (auto& a : node.attributes) {
      if (a.g) infer_graph(*a.g, opsets, k);
      for (auto& g : a.graphs) infer_graph(*g, opsets, k);
    }
  }
  std::set<std::string> io;
  for (const auto& v : graph.inputs) io.insert(v.name);
  graph.value_infos.clear();
  for (const auto& [name, v] : k.values) {
    if (io.count(name) || graph.initializers.count(name)) continue;
    graph.value_infos.push_back(v);
  }
  // Graph outputs take the inferred type where the file left it out.
  for (auto& out : graph.outputs) {
    auto it = k.values.find(out.name);
    if (it == k.values.end()) continue;
    if (out.dtype == DataType::Undefined) out.dtype = it->second.dtype;
    if (!out.has_shape && it->second.has_shape) {
      out.has_shape = true;
      out.shape = it->second.shape;
    }
  }
}

}  // namespace

void infer_shapes(ir::Model& model) { infer_graph(model.graph, model.opsets, Known{}); }

}  // namespace kiln::passes
