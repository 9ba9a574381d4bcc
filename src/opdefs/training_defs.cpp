// Training ops: the ai.onnx.preview.training optimizers and kiln::SumToShape
// (training_defs.h).
#include "opdefs/training_defs.h"

#include <optional>

#include "opdefs/all_defs.h"
#include "opdefs/op_def.h"

namespace kiln {
namespace {

// An optimizer updating n variables takes R, T, then n tensors per role (X first), and gives
// its new tensors role by role: output k * n + v is a new value of variable v, of X_v's type
// and shape (the kernel checks every role's tensor has them).
template <size_t kRoles>
std::vector<ValueInfo> optimizer_rule(const InferenceContext& ctx) {
  const size_t inputs = ctx.num_inputs();
  if (inputs < 2 + kRoles || (inputs - 2) % kRoles != 0) return {};  // the kernel reports it
  const size_t variables = (inputs - 2) / kRoles;
  std::vector<ValueInfo> out;
  for (size_t k = 0; k < ctx.node().outputs.size() && k < variables * (kRoles - 1); ++k) {
    const ValueInfo* x = ctx.input(2 + k % variables);
    out.push_back(x ? *x : ValueInfo{});
  }
  return out;
}

// SumToShape(G, shape): G's type, the constant shape (or its length's rank).
std::vector<ValueInfo> sum_to_shape_rule(const InferenceContext& ctx) {
  const ValueInfo* g = ctx.input(0);
  if (!g) return {};
  if (const auto shape = ctx.constant_ints(1)) {
    std::vector<Dim> out;
    for (int64_t d : *shape) {
      if (d < 0) return {dtype_only(g->dtype)};
      out.push_back(fixed_dim(d));
    }
    return {tensor_type(g->dtype, out)};
  }
  const std::vector<Dim>* s = ctx.shape(1);
  if (!s || s->size() != 1 || !(*s)[0].is_fixed()) return {dtype_only(g->dtype)};
  return {tensor_type(g->dtype, std::vector<Dim>(static_cast<size_t>((*s)[0].value), Dim{}))};
}

}  // namespace

KILN_OP_DEFS(training);
void define_training_ops(OpDefs& defs) {
  constexpr const char* kTraining = "ai.onnx.preview.training";
  defs.define(kTraining, "Adagrad").infer = optimizer_rule<3>;   // X, G, H
  defs.define(kTraining, "Adam").infer = optimizer_rule<4>;      // X, G, V, H
  defs.define(kTraining, "Momentum").infer = optimizer_rule<3>;  // X, G, V
  OpDef& sum_to_shape = defs.define(kKilnDomain, kSumToShapeOp);
  sum_to_shape.infer = sum_to_shape_rule;
  sum_to_shape.shape_inputs = {{0, {1}}};
}

}  // namespace kiln
