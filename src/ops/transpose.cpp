// Transpose and the block rearrangements DepthToSpace / SpaceToDepth. All three are one strided
// copy: the output is the input read with permuted strides (DepthToSpace and SpaceToDepth are
// transposes of a 6-D view of the input).
#include "backends/cpu/strided_copy.h"
#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/index_list.h"
#include "ops/op_utils.h"

namespace kiln {

namespace {

CpuKernel make_transpose(const NodeInfo& info) {
  const bool has_perm = info.has_attr("perm");
  const Shape perm_attr(info.attr_ints("perm"));
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Shape& in = x.shape();
    const size_t rank = in.size();
    Shape perm = perm_attr;
    if (!has_perm) {
      perm.resize(rank);
      for (size_t d = 0; d < rank; ++d) perm[d] = static_cast<int64_t>(rank - 1 - d);
    }
    if (perm.size() != rank) {
      ctx.fail("perm has " + std::to_string(perm.size()) + " entries for an input of rank " +
               std::to_string(rank));
    }
    const Shape in_strides = strides_of(in);
    Shape out_shape, src_strides;
    Shape seen;
    seen.resize(rank, 0);
    // Dimensions of size 1 can move freely; if the others keep their order, the transpose
    // only relabels dimensions and a view of the input does.
    bool keeps_order = true;
    int64_t last_moved = -1;
    for (size_t d = 0; d < rank; ++d) {
      int64_t p = perm[d];
      if (p < 0) p += static_cast<int64_t>(rank);  // ONNX does not allow it, numpy does
      if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p]) {
        ctx.fail("perm " + perm.to_string() + " is not a permutation of the " +
                 std::to_string(rank) + " input dimensions");
      }
      seen[p] = 1;
      out_shape.push_back(in[p]);
      src_strides.push_back(in_strides[p]);
      if (in[p] != 1) {
        keeps_order = keeps_order && p > last_moved;
        last_moved = p;
      }
    }
    if (keeps_order) {
      ctx.set_output_view(0, x, out_shape);
      return;
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), out_shape);
    cpu::strided_copy_to_contiguous(x.dtype(), out_shape, y.mutable_raw_data(), x.raw_data(),
                                    src_strides);
  };
}

// Checks the NCHW input of DepthToSpace / SpaceToDepth.
void check_block_input(const OpContext& ctx, const Shape& in) {
  if (in.size() != 4) ctx.fail("expects a 4-D NCHW input, got shape " + in.to_string());
}

CpuKernel make_depth_to_space(const NodeInfo& info) {
  const int64_t b = info.required_int("blocksize");
  // The bound keeps blocksize^2 (and the strides built from it) from overflowing.
  if (b <= 0 || b > (int64_t{1} << 20))
    info.fail("blocksize must be in [1, 2^20], got " + std::to_string(b));
  const std::string mode = info.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") info.fail("mode must be DCR or CRD, got '" + mode + "'");
  const bool crd = mode == "CRD";
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Shape& in = x.shape();
    check_block_input(ctx, in);
    const int64_t n = in[0], c = in[1], h = in[2], w = in[3];
    if (c % (b * b) != 0) {
      ctx.fail("channels (" + std::to_string(c) + ") must be a multiple of blocksize^2 (" +
               std::to_string(b * b) + ")");
    }
    const int64_t oc = c / (b * b);
    // The input seen as [N, b, b, C', H, W] (DCR) or [N, C', b, b, H, W] (CRD), read in the
    // order [N, C', H, b, W, b].
    const int64_t hw = h * w;
    const int64_t s_c = crd ? b * b * hw : hw;
    const int64_t s_b1 = crd ? b * hw : b * oc * hw;
    const int64_t s_b2 = crd ? hw : oc * hw;
    const Shape view{n, oc, h, b, w, b};
    const Shape src_strides{c * hw, s_c, w, s_b1, 1, s_b2};
    Tensor& y = ctx.allocate_output(0, x.dtype(), Shape{n, oc, h * b, w * b});
    cpu::strided_copy_to_contiguous(x.dtype(), view, y.mutable_raw_data(), x.raw_data(),
                                    src_strides);
  };
}

CpuKernel make_space_to_depth(const NodeInfo& info) {
  const int64_t b = info.required_int("blocksize");
  // The bound keeps blocksize^2 (and the strides built from it) from overflowing.
  if (b <= 0 || b > (int64_t{1} << 20))
    info.fail("blocksize must be in [1, 2^20], got " + std::to_string(b));
  return [=](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Shape& in = x.shape();
    check_block_input(ctx, in);
    const int64_t n = in[0], c = in[1], h = in[2], w = in[3];
    if (h % b != 0 || w % b != 0) {
      ctx.fail("height and width (" + std::to_string(h) + ", " + std::to_string(w) +
               ") must be multiples of blocksize " + std::to_string(b));
    }
    const int64_t oh = h / b, ow = w / b;
    // The input seen as [N, C, H/b, b, W/b, b], read in the order [N, b, b, C, H/b, W/b].
    const Shape view{n, b, b, c, oh, ow};
    const Shape src_strides{c * h * w, w, 1, h * w, b * w, b};
    Tensor& y = ctx.allocate_output(0, x.dtype(), Shape{n, c * b * b, oh, ow});
    cpu::strided_copy_to_contiguous(x.dtype(), view, y.mutable_raw_data(), x.raw_data(),
                                    src_strides);
  };
}

}  // namespace

KILN_CPU_OPS(transpose);
void register_transpose_ops(OpRegistry& registry) {
  registry.add("Transpose", make_transpose);
  registry.add("DepthToSpace", make_depth_to_space);
  registry.add("SpaceToDepth", make_space_to_depth);
}

}  // namespace kiln
