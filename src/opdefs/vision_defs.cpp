// Vision ops outside the window family: sampling grids (AffineGrid, GridSample), regions
// (RoiAlign, CenterCropPad), the inverses of windows (Col2Im, MaxUnpool), DeformConv and
// ImageDecoder. Sizes given as values are shape-deciding inputs.
#include <optional>
#include <string>
#include <vector>

#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

// A rank-`rank` shape of unknown dims.
std::vector<Dim> unknown_dims(size_t rank) { return std::vector<Dim>(rank, Dim{}); }

// Dim `d` of input `i`, unknown when its rank is not known (or too small).
Dim dim_of(const InferenceContext& ctx, size_t i, size_t d) {
  const std::vector<Dim>* s = ctx.shape(i);
  return s && d < s->size() ? (*s)[d] : Dim{};
}

// The length of a 1-D input whose one dim is fixed (a shape given as a value); nullopt otherwise.
std::optional<size_t> list_length(const InferenceContext& ctx, size_t i) {
  const std::vector<Dim>* s = ctx.shape(i);
  if (!s || s->size() != 1 || !(*s)[0].is_fixed()) return std::nullopt;
  return static_cast<size_t>((*s)[0].value);
}

// Either of two dims that must be equal: a fixed one when one is.
Dim same_dim(const Dim& a, const Dim& b) { return a.is_fixed() || !b.is_fixed() ? a : b; }

// AffineGrid(theta [N, r, r + 1], size (N, C, [D,] H, W)): [N, [D,] H, W, r] of theta's type.
std::vector<ValueInfo> affine_grid_rule(const InferenceContext& ctx) {
  const ValueInfo* theta = ctx.input(0);
  if (!theta) return {};
  if (const auto size = ctx.constant_ints(1)) {
    if (size->size() != 4 && size->size() != 5) return {dtype_only(theta->dtype)};
    for (int64_t d : *size) {
      if (d < 0) return {dtype_only(theta->dtype)};
    }
    const auto r = static_cast<int64_t>(size->size()) - 2;
    std::vector<Dim> out = {fixed_dim((*size)[0])};
    for (int64_t d = 0; d < r; ++d) out.push_back(fixed_dim((*size)[2 + d]));
    out.push_back(fixed_dim(r));
    return {tensor_type(theta->dtype, out)};
  }
  const std::optional<size_t> length = list_length(ctx, 1);
  if (!length || (*length != 4 && *length != 5)) return {dtype_only(theta->dtype)};
  const size_t r = *length - 2;
  std::vector<Dim> out = unknown_dims(r + 2);
  out[0] = dim_of(ctx, 0, 0);
  out.back() = fixed_dim(static_cast<int64_t>(r));
  return {tensor_type(theta->dtype, out)};
}

// Col2Im(input [N, C * prod(block_shape), L], image_shape, block_shape): [N, C, image...].
std::vector<ValueInfo> col2im_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const auto image = ctx.constant_ints(1), block = ctx.constant_ints(2);
  const std::optional<size_t> image_rank =
      image ? std::optional(image->size()) : list_length(ctx, 1);
  if (!image_rank || *image_rank == 0) return {dtype_only(x->dtype)};
  std::vector<Dim> out = {dim_of(ctx, 0, 0), Dim{}};
  const Dim columns = dim_of(ctx, 0, 1);
  if (block && block->size() == *image_rank && columns.is_fixed()) {
    int64_t block_size = 1;
    for (int64_t b : *block) {
      if (b <= 0 || b > (int64_t{1} << 30)) return {dtype_only(x->dtype)};
      block_size *= b;
    }
    if (columns.value % block_size != 0) return {dtype_only(x->dtype)};  // the kernel reports it
    out[1] = fixed_dim(columns.value / block_size);
  }
  for (size_t d = 0; d < *image_rank; ++d) {
    if (image && (*image)[d] <= 0) return {dtype_only(x->dtype)};
    out.push_back(image ? fixed_dim((*image)[d]) : Dim{});
  }
  return {tensor_type(x->dtype, out)};
}

// GridSample(X [N, C, D1...], grid [N, D1_out..., r]): [N, C, D1_out...] of X's type.
std::vector<ValueInfo> grid_sample_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>*xs = ctx.shape(0), *gs = ctx.shape(1);
  const size_t rank = xs ? xs->size() : gs ? gs->size() : 0;
  if (rank < 3 || (xs && gs && xs->size() != gs->size())) return {dtype_only(x->dtype)};
  std::vector<Dim> out = {same_dim(dim_of(ctx, 0, 0), dim_of(ctx, 1, 0)), dim_of(ctx, 0, 1)};
  for (size_t d = 1; d + 1 < rank; ++d) out.push_back(dim_of(ctx, 1, d));
  return {tensor_type(x->dtype, out)};
}

// RoiAlign(X [N, C, H, W], rois [R, 4], batch_indices [R]): [R, C, output_height, output_width].
std::vector<ValueInfo> roi_align_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const int64_t h = ctx.info().attr_int("output_height", 1),
                w = ctx.info().attr_int("output_width", 1);
  const std::vector<Dim>* xs = ctx.shape(0);
  if (h <= 0 || w <= 0 || (xs && xs->size() != 4)) return {dtype_only(x->dtype)};
  return {tensor_type(x->dtype, {same_dim(dim_of(ctx, 1, 0), dim_of(ctx, 2, 0)), dim_of(ctx, 0, 1),
                                 fixed_dim(h), fixed_dim(w)})};
}

// DeformConv(X [N, C, H, W], W [oC, C / group, kH, kW], offset [N, 2 * taps, oH, oW], ...):
// [N, oC, oH, oW], the output's positions being the offset's (the kernel checks they agree).
std::vector<ValueInfo> deform_conv_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* xs = ctx.shape(0);
  if (xs && xs->size() != 4) return {dtype_only(x->dtype)};  // only 2-D is supported
  return {tensor_type(x->dtype, {same_dim(dim_of(ctx, 0, 0), dim_of(ctx, 2, 0)), dim_of(ctx, 1, 0),
                                 dim_of(ctx, 2, 2), dim_of(ctx, 2, 3)})};
}

// CenterCropPad(input, shape): the input's shape with the listed axes (all by default) set to
// the shape's values.
std::vector<ValueInfo> center_crop_pad_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* xs = ctx.shape(0);
  if (!xs) return {dtype_only(x->dtype)};
  const auto rank = static_cast<int64_t>(xs->size());
  std::vector<int64_t> axes = ctx.info().attr_ints("axes");
  if (!ctx.info().has_attr("axes")) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  const auto sizes = ctx.constant_ints(1);
  if (sizes && sizes->size() != axes.size()) return {dtype_only(x->dtype)};
  std::vector<Dim> out = *xs;
  std::vector<bool> seen(xs->size(), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank || seen[static_cast<size_t>(a)]) return {dtype_only(x->dtype)};
    seen[static_cast<size_t>(a)] = true;
    if (sizes && (*sizes)[i] < 0) return {dtype_only(x->dtype)};
    out[static_cast<size_t>(a)] = sizes ? fixed_dim((*sizes)[i]) : Dim{};
  }
  return {tensor_type(x->dtype, out)};
}

// MaxUnpool(X [N, C, D...], I, output_shape): output_shape when given, else the shape MaxPool
// was run on, (in - 1) * stride + kernel - pads per spatial axis.
std::vector<ValueInfo> max_unpool_rule(const InferenceContext& ctx) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  const std::vector<Dim>* xs = ctx.shape(0);
  if (ctx.info().has_input(2)) {
    if (const auto shape = ctx.constant_ints(2)) {
      if (xs && shape->size() != xs->size()) return {dtype_only(x->dtype)};
      std::vector<Dim> out;
      for (int64_t d : *shape) out.push_back(fixed_dim(d));
      return {tensor_type(x->dtype, out)};
    }
    const std::optional<size_t> rank = xs ? std::optional(xs->size()) : list_length(ctx, 2);
    return {rank ? tensor_type(x->dtype, unknown_dims(*rank)) : dtype_only(x->dtype)};
  }
  if (!xs || xs->size() < 3) return {dtype_only(x->dtype)};
  const size_t r = xs->size() - 2;
  const std::vector<int64_t> kernel = ctx.info().required_ints("kernel_shape");
  const std::vector<int64_t> strides = ctx.info().attr_ints("strides");
  const std::vector<int64_t> pads = ctx.info().attr_ints("pads");
  if (kernel.size() != r || (!strides.empty() && strides.size() != r) ||
      (!pads.empty() && pads.size() != 2 * r)) {
    return {dtype_only(x->dtype)};  // the kernel reports it
  }
  std::vector<Dim> out = {(*xs)[0], (*xs)[1]};
  for (size_t d = 0; d < r; ++d) {
    const Dim& in = (*xs)[2 + d];
    const int64_t stride = strides.empty() ? 1 : strides[d];
    const int64_t pad = pads.empty() ? 0 : pads[d] + pads[d + r];
    if (!in.is_fixed()) {
      out.push_back(Dim{});
      continue;
    }
    const int64_t size = (in.value - 1) * stride + kernel[d] - pad;
    if (size < 0) return {dtype_only(x->dtype)};
    out.push_back(fixed_dim(size));
  }
  return {tensor_type(x->dtype, out)};
}

// ImageDecoder(encoded_stream): uint8 [height, width, channels], the size known once decoded.
std::vector<ValueInfo> image_decoder_rule(const InferenceContext& ctx) {
  const bool gray = ctx.info().attr_string("pixel_format", "RGB") == "Grayscale";
  return {tensor_type(DataType::UInt8, {Dim{}, Dim{}, fixed_dim(gray ? 1 : 3)})};
}

}  // namespace

KILN_OP_DEFS(vision);
void define_vision_ops(OpDefs& defs) {
  OpDef& affine_grid = defs.define("AffineGrid");
  affine_grid.infer = affine_grid_rule;
  affine_grid.shape_inputs = {{20, {1}}};
  OpDef& col2im = defs.define("Col2Im");
  col2im.infer = col2im_rule;
  col2im.shape_inputs = {{18, {1, 2}}};
  OpDef& center_crop_pad = defs.define("CenterCropPad");
  center_crop_pad.infer = center_crop_pad_rule;
  center_crop_pad.shape_inputs = {{18, {1}}};
  OpDef& max_unpool = defs.define("MaxUnpool");
  max_unpool.infer = max_unpool_rule;
  max_unpool.shape_inputs = {{9, {2}}};
  defs.define("GridSample").infer = grid_sample_rule;
  defs.define("RoiAlign").infer = roi_align_rule;
  defs.define("DeformConv").infer = deform_conv_rule;
  defs.define("ImageDecoder").infer = image_decoder_rule;
}

}  // namespace kiln
