// Ops that rearrange or resize a tensor without computing on its values: Reshape, Flatten,
// Squeeze / Unsqueeze, Transpose, Concat / Split, Slice, Expand / Tile / Pad, Shape / Size.
#include <algorithm>
#include <set>

#include "core/element_count.h"
#include "opdefs/all_defs.h"
#include "opdefs/concat.h"
#include "opdefs/op_def.h"
#include "opdefs/shape_slice.h"

namespace kiln {
namespace {

// The input's dtype with an unknown shape; nothing when even the dtype is unknown.
std::vector<ValueInfo> dtype_of_input0(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  return x ? std::vector<ValueInfo>{dtype_only(x->dtype)} : std::vector<ValueInfo>{};
}

// `product` times `d`: -1 (unknown) once either is unknown or negative, or when the product
// would pass what a tensor can hold (the target shape is a value, and may be anything).
int64_t times(int64_t product, const Dim& d) {
  if (product < 0 || !d.is_fixed() || d.value < 0) return -1;
  if (d.value > 0 && product > kMaxTensorElements / d.value) return -1;
  return product * d.value;
}

std::vector<ValueInfo> reshape_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const auto target = ctx.constant_ints(1);
  if (!target) return {dtype_only(x->dtype)};
  const std::vector<Dim>* in = ctx.shape(0);
  const bool allow_zero = ctx.info().attr_int("allowzero", 0) != 0;
  std::vector<Dim> out;
  int64_t known_product = 1;  // -1 once a copied dim is symbolic
  int infer_at = -1;
  for (size_t i = 0; i < target->size(); ++i) {
    const int64_t t = (*target)[i];
    if (t == -1) {
      infer_at = static_cast<int>(i);
      out.push_back(Dim{});
    } else if (t == 0 && !allow_zero) {
      if (!in || i >= in->size()) return {dtype_only(x->dtype)};
      out.push_back((*in)[i]);
      known_product = times(known_product, out.back());
    } else {
      out.push_back(fixed_dim(t));
      known_product = times(known_product, fixed_dim(t));
    }
  }
  if (infer_at >= 0 && in && known_product > 0) {
    int64_t total = 1;
    for (const Dim& d : *in) total = times(total, d);
    if (total >= 0) out[static_cast<size_t>(infer_at)] = fixed_dim(total / known_product);
  }
  return {tensor_type(x->dtype, out)};
}

std::vector<ValueInfo> transpose_rule(const InferenceContext& ctx) {
  const std::vector<Dim>* in = ctx.shape(0);
  if (!in) return dtype_of_input0(ctx);
  std::vector<int64_t> perm = ctx.info().attr_ints("perm");
  if (perm.empty()) {
    for (size_t i = in->size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  }
  std::vector<Dim> out;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(in->size())) return dtype_of_input0(ctx);
    out.push_back((*in)[static_cast<size_t>(p)]);
  }
  return {tensor_type(ctx.input(0)->dtype, out)};
}

std::vector<ValueInfo> flatten_rule(const InferenceContext& ctx) {
  const std::vector<Dim>* in = ctx.shape(0);
  if (!in) return dtype_of_input0(ctx);
  const int64_t rank = static_cast<int64_t>(in->size());
  int64_t axis = ctx.info().attr_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return dtype_of_input0(ctx);  // the kernel reports it
  auto product = [&](int64_t b, int64_t e) -> Dim {
    int64_t p = 1;
    for (int64_t i = b; i < e; ++i) {
      const Dim& d = (*in)[static_cast<size_t>(i)];
      if (!d.is_fixed()) return e - b == 1 ? d : Dim{};
      p *= d.value;
    }
    return fixed_dim(p);
  };
  return {tensor_type(ctx.input(0)->dtype, {product(0, axis), product(axis, rank)})};
}

std::vector<ValueInfo> concat_rule(const InferenceContext& ctx) {
  const std::optional<std::vector<Dim>> dims = concatenated_dims(ctx, 0, 1);
  if (!dims) return dtype_of_input0(ctx);
  return {tensor_type(ctx.input(0)->dtype, *dims)};
}

std::vector<ValueInfo> shape_rule(const InferenceContext& ctx) {
  const std::vector<Dim>* in = ctx.shape(0);
  if (!in) return {dtype_only(DataType::Int64)};
  const ShapeSlice slice =
      resolve_shape_slice(parse_shape_slice_attrs(ctx.info()), static_cast<int64_t>(in->size()));
  return {tensor_type(DataType::Int64, {fixed_dim(slice.end - slice.begin)})};
}

std::vector<ValueInfo> size_rule(const InferenceContext&) {
  return {tensor_type(DataType::Int64, {})};
}

// Squeeze / Unsqueeze axes: an attribute before opset 13, an input from then on.
std::optional<std::vector<int64_t>> squeeze_axes(const InferenceContext& ctx) {
  if (ctx.opset() < 13) return ctx.info().attr_ints("axes");
  if (!ctx.info().has_input(1)) return std::vector<int64_t>{};
  return ctx.constant_ints(1);
}

std::vector<ValueInfo> unsqueeze_rule(const InferenceContext& ctx) {
  const std::vector<Dim>* in = ctx.shape(0);
  const auto axes = squeeze_axes(ctx);
  if (!in || !axes || axes->empty()) return dtype_of_input0(ctx);
  const int64_t rank = static_cast<int64_t>(in->size() + axes->size());
  std::set<int64_t> positions;
  for (int64_t a : *axes) {
    const int64_t p = a < 0 ? a + rank : a;
    if (p < 0 || p >= rank || !positions.insert(p).second) return dtype_of_input0(ctx);
  }
  std::vector<Dim> out;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i) {
    out.push_back(positions.count(i) ? fixed_dim(1) : (*in)[next++]);
  }
  return {tensor_type(ctx.input(0)->dtype, out)};
}

std::vector<ValueInfo> squeeze_rule(const InferenceContext& ctx) {
  const std::vector<Dim>* in = ctx.shape(0);
  const auto axes = squeeze_axes(ctx);
  if (!in || !axes) return dtype_of_input0(ctx);
  const int64_t rank = static_cast<int64_t>(in->size());
  std::set<int64_t> drop;
  for (int64_t a : *axes) {
    const int64_t p = a < 0 ? a + rank : a;
    if (p < 0 || p >= rank) return dtype_of_input0(ctx);
    drop.insert(p);
  }
  std::vector<Dim> out;
  for (int64_t i = 0; i < rank; ++i) {
    const Dim& d = (*in)[static_cast<size_t>(i)];
    if (axes->empty() && !d.is_fixed()) return dtype_of_input0(ctx);
    if (axes->empty() ? d.value == 1 : drop.count(i) > 0) continue;
    out.push_back(d);
  }
  return {tensor_type(ctx.input(0)->dtype, out)};
}

// Slice with bounds known at load time (attributes before opset 10, constant inputs after).
std::vector<ValueInfo> slice_rule(const InferenceContext& ctx) {
  const std::vector<Dim>* in = ctx.shape(0);
  if (!in) return dtype_of_input0(ctx);
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = ctx.info().attr_ints("starts");
    ends = ctx.info().attr_ints("ends");
    axes = ctx.info().attr_ints("axes");
  } else {
    // An optional input that is present must be known; an absent one takes its default.
    auto bound = [&](size_t i, std::vector<int64_t>& to) {
      if (!ctx.info().has_input(i)) return i >= 3;
      const auto v = ctx.constant_ints(i);
      if (v) to = *v;
      return v.has_value();
    };
    if (!bound(1, starts) || !bound(2, ends) || !bound(3, axes) || !bound(4, steps))
      return dtype_of_input0(ctx);
  }
  const auto rank = static_cast<int64_t>(in->size());
  if (starts.size() != ends.size() || (!axes.empty() && axes.size() != starts.size()) ||
      (!steps.empty() && steps.size() != starts.size()))
    return dtype_of_input0(ctx);
  std::vector<Dim> out = *in;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes.empty() ? static_cast<int64_t>(i) : axes[i];
    if (a < 0) a += rank;
    const int64_t step = steps.empty() ? 1 : steps[i];
    if (a < 0 || a >= rank || step == 0) return dtype_of_input0(ctx);
    const Dim& d = (*in)[static_cast<size_t>(a)];
    if (!d.is_fixed()) {
      out[static_cast<size_t>(a)] = Dim{};
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
    out[static_cast<size_t>(a)] = fixed_dim(count);
  }
  return {tensor_type(ctx.input(0)->dtype, out)};
}

// Expand(input, shape): the broadcast of the input's shape and the constant shape.
std::vector<ValueInfo> expand_rule(const InferenceContext& ctx) {
  const std::vector<Dim>* in = ctx.shape(0);
  const auto target = ctx.constant_ints(1);
  if (!in || !target) return dtype_of_input0(ctx);
  std::vector<Dim> out(std::max(in->size(), target->size()), fixed_dim(1));
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t from_end = out.size() - 1 - i;
    const Dim a = from_end < in->size() ? (*in)[in->size() - 1 - from_end] : fixed_dim(1);
    const Dim b = from_end < target->size() ? fixed_dim((*target)[target->size() - 1 - from_end])
                                            : fixed_dim(1);
    if (b.value < 0) return dtype_of_input0(ctx);
    out[i] = broadcast_dim(a, b);
  }
  return {tensor_type(ctx.input(0)->dtype, out)};
}

// Tile(input, repeats): each dim times its constant repeat.
std::vector<ValueInfo> tile_rule(const InferenceContext& ctx) {
  const std::vector<Dim>* in = ctx.shape(0);
  const auto repeats = ctx.constant_ints(1);
  if (!in || !repeats || repeats->size() != in->size()) return dtype_of_input0(ctx);
  std::vector<Dim> out;
  for (size_t d = 0; d < in->size(); ++d) {
    const int64_t r = (*repeats)[d];
    if (r < 0) return dtype_of_input0(ctx);
    out.push_back((*in)[d].is_fixed() ? fixed_dim((*in)[d].value * r)
                                      : (r == 1 ? (*in)[d] : Dim{}));
  }
  return {tensor_type(ctx.input(0)->dtype, out)};
}

// Pad over every axis (no `axes` input): each dim grows by its begin and end pads.
std::vector<ValueInfo> pad_rule(const InferenceContext& ctx) {
  const std::vector<Dim>* in = ctx.shape(0);
  if (!in) return dtype_of_input0(ctx);
  std::optional<std::vector<int64_t>> pads;
  if (ctx.opset() < 11) {
    pads = ctx.info().attr_ints(ctx.opset() < 2 ? "paddings" : "pads");
  } else if (!ctx.info().has_input(3)) {
    pads = ctx.constant_ints(1);
  }
  if (!pads || pads->size() != 2 * in->size()) return dtype_of_input0(ctx);
  std::vector<Dim> out;
  for (size_t d = 0; d < in->size(); ++d) {
    const int64_t grow = (*pads)[d] + (*pads)[d + in->size()];
    if (!(*in)[d].is_fixed()) {
      out.push_back(grow == 0 ? (*in)[d] : Dim{});
    } else if ((*in)[d].value + grow < 0) {
      return dtype_of_input0(ctx);
    } else {
      out.push_back(fixed_dim((*in)[d].value + grow));
    }
  }
  return {tensor_type(ctx.input(0)->dtype, out)};
}

}  // namespace

namespace {

// DepthToSpace [N, C, H, W] -> [N, C / b^2, H * b, W * b]; SpaceToDepth the reverse.
std::vector<ValueInfo> depth_space_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* xs = ctx.shape(0);
  const int64_t b = ctx.info().required_int("blocksize");
  if (!xs || xs->size() != 4 || b < 1) return {dtype_only(x->dtype)};
  const bool to_space = ctx.node().op_type == "DepthToSpace";
  auto scaled = [&](const Dim& d, int64_t mul, int64_t div) {
    if (!d.is_fixed() || d.value % div != 0) return Dim{};
    return fixed_dim(d.value / div * mul);
  };
  std::vector<Dim> out = {(*xs)[0]};
  if (to_space) {
    out.push_back(scaled((*xs)[1], 1, b * b));
    out.push_back(scaled((*xs)[2], b, 1));
    out.push_back(scaled((*xs)[3], b, 1));
  } else {
    out.push_back(scaled((*xs)[1], b * b, 1));
    out.push_back(scaled((*xs)[2], 1, b));
    out.push_back(scaled((*xs)[3], 1, b));
  }
  return {tensor_type(x->dtype, out)};
}

}  // namespace

ShapeSliceAttrs parse_shape_slice_attrs(const NodeInfo& info) {
  ShapeSliceAttrs a;
  if (info.opset() < 15) return a;
  a.start = info.attr_int("start", 0);
  a.has_end = info.has_attr("end");
  a.end = a.has_end ? info.attr_int("end", 0) : 0;
  return a;
}

ShapeSlice resolve_shape_slice(const ShapeSliceAttrs& a, int64_t rank) {
  auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
  const int64_t begin = clamp(a.start);
  const int64_t end = a.has_end ? clamp(a.end) : rank;
  return {begin, std::max(begin, end)};
}

KILN_OP_DEFS(shape);
void define_shape_ops(OpDefs& defs) {
  for (const char* op : {"DepthToSpace", "SpaceToDepth"}) defs.define(op).infer = depth_space_rule;
  defs.define("ReverseSequence").infer = same_as_input0;
  OpDef& reshape = defs.define("Reshape");
  reshape.infer = reshape_rule;
  reshape.shape_inputs = {{5, {1}}};
  defs.define("Transpose").infer = transpose_rule;
  defs.define("Flatten").infer = flatten_rule;
  defs.define("Concat").infer = concat_rule;
  OpDef& shape = defs.define("Shape");
  shape.infer = shape_rule;
  shape.ends_shape_walk = true;
  OpDef& size = defs.define("Size");
  size.infer = size_rule;
  size.ends_shape_walk = true;
  OpDef& squeeze = defs.define("Squeeze");
  squeeze.infer = squeeze_rule;
  squeeze.shape_inputs = {{13, {1}}};
  OpDef& unsqueeze = defs.define("Unsqueeze");
  unsqueeze.infer = unsqueeze_rule;
  unsqueeze.shape_inputs = {{13, {1}}};
  OpDef& slice = defs.define("Slice");
  slice.infer = slice_rule;
  slice.shape_inputs = {{10, {1, 2, 3, 4}}};
  OpDef& expand = defs.define("Expand");
  expand.infer = expand_rule;
  expand.shape_inputs = {{8, {1}}};
  OpDef& tile = defs.define("Tile");
  tile.infer = tile_rule;
  tile.shape_inputs = {{6, {1}}};
  OpDef& pad = defs.define("Pad");
  pad.infer = pad_rule;
  pad.shape_inputs = {{11, {1}}, {18, {1, 3}}};
}

}  // namespace kiln
