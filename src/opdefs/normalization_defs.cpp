// Normalizations: output 0 has the input's type and shape. The row normalizations' statistics
// (mean, inverse standard deviation) keep the input's leading dimensions, with 1 for each
// normalized one, in stash_type (float32 for ONNX Runtime's Skip forms).
#include "ir/domains.h"
#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

// Y like X, then `stats` statistics outputs over the dims from `axis` on.
std::vector<ValueInfo> row_norm_outputs(const InferenceContext& ctx, int64_t axis, DataType stash,
                                        int stats) {
  const ValueInfo* x = ctx.input(0);
  if (!x) return {};
  std::vector<ValueInfo> out = same_as_input0(ctx);
  if (stash == DataType::Undefined) return out;
  const std::vector<Dim>* xs = ctx.shape(0);
  std::optional<std::vector<Dim>> stats_dims;
  if (xs) {
    const int64_t rank = static_cast<int64_t>(xs->size());
    if (axis < -rank || axis >= rank) return out;  // the kernel rejects it
    if (axis < 0) axis += rank;
    stats_dims = *xs;
    for (int64_t d = axis; d < rank; ++d) (*stats_dims)[d] = fixed_dim(1);
  }
  for (int i = 0; i < stats; ++i) {
    out.push_back(stats_dims ? tensor_type(stash, *stats_dims) : dtype_only(stash));
  }
  return out;
}

// Undefined for a stash_type that is not a float type (the kernel rejects it).
DataType stash_type(const InferenceContext& ctx) {
  const auto t = static_cast<DataType>(ctx.info().attr_int("stash_type", 1));
  const bool is_float = t == DataType::Float32 || t == DataType::Float64 ||
                        t == DataType::Float16 || t == DataType::BFloat16;
  return is_float ? t : DataType::Undefined;
}

// LayerNormalization: Y, Mean, InvStdDev.
std::vector<ValueInfo> layer_norm_rule(const InferenceContext& ctx) {
  return row_norm_outputs(ctx, ctx.info().attr_int("axis", -1), stash_type(ctx), 2);
}

// SimplifiedLayerNormalization: Y, inv_std_var.
std::vector<ValueInfo> simplified_layer_norm_rule(const InferenceContext& ctx) {
  return row_norm_outputs(ctx, ctx.info().attr_int("axis", -1), stash_type(ctx), 1);
}

// Skip(Simplified)LayerNormalization: output, mean, inv_std_var, input_skip_bias_sum.
std::vector<ValueInfo> skip_layer_norm_rule(const InferenceContext& ctx) {
  std::vector<ValueInfo> out = row_norm_outputs(ctx, -1, DataType::Float32, 2);
  if (!out.empty()) out.push_back(out[0]);
  return out;
}

}  // namespace

KILN_OP_DEFS(normalization);
void define_normalization_ops(OpDefs& defs) {
  for (const char* op :
       {"BatchNormalization", "InstanceNormalization", "GroupNormalization", "RMSNormalization",
        "LpNormalization", "MeanVarianceNormalization", "LRN"}) {
    defs.define(op).infer = same_as_input0;
  }
  // ONNX Runtime also spells its LayerNormalization (the op before opset 17) and its RMS norm
  // in the com.microsoft domain.
  for (const char* domain : {"", ir::kMicrosoftDomain}) {
    defs.define(domain, "LayerNormalization").infer = layer_norm_rule;
    defs.define(domain, "SimplifiedLayerNormalization").infer = simplified_layer_norm_rule;
  }
  defs.define(ir::kMicrosoftDomain, "SkipLayerNormalization").infer = skip_layer_norm_rule;
  defs.define(ir::kMicrosoftDomain, "SkipSimplifiedLayerNormalization").infer =
      skip_layer_norm_rule;
}

}  // namespace kiln
