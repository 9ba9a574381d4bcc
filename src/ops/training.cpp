// ai.onnx.preview.training optimizers: Adagrad, Adam, Momentum (standard and Nesterov).
//
// Each node updates n tensors at once. Its inputs are the learning rate R and the update count
// T (scalars), then n tensors per role, role by role: Adagrad X.., G.., H..; Adam X.., G.., V..,
// H..; Momentum X.., G.., V... Its outputs are the new values, role by role in the same order
// without G: Adagrad X_new.., H_new..; Adam X_new.., V_new.., H_new..; Momentum X_new.., V_new...
//
// The update rules are element-wise. Per-node scalars (the adjusted learning rate) are worked
// out once in double; each element is computed in double and stored in the tensors' type.
//
// The ai.onnx.preview.training Gradient op has no kernel: passes/expand_gradient.cpp replaces
// it at load time by the nodes that compute the gradients. Its helper op, SumToShape, is
// registered here too (see sum_to_shape.cpp).
#include <cmath>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "ir/domains.h"
#include "kernels/op_registry.h"
#include "opdefs/training_defs.h"
#include "ops/all_ops.h"

namespace kiln {
namespace {

// How a node's inputs split into roles: `roles` tensors per updated variable (X first, G
// second) and `outputs` new tensors per variable.
struct OptimizerLayout {
  size_t roles = 0;
  size_t outputs_per_variable = 0;
  size_t variables = 0;  // n
};

OptimizerLayout parse_layout(const NodeInfo& info, size_t roles, const char* role_names) {
  OptimizerLayout layout{roles, roles - 1, 0};
  const size_t n = info.num_inputs();
  if (n < 2 + roles || (n - 2) % roles != 0) {
    info.fail("expects inputs R, T and then " + std::to_string(roles) +
              " groups of equally many tensors (" + role_names + "), got " + std::to_string(n) +
              " inputs");
  }
  layout.variables = (n - 2) / roles;
  if (info.num_outputs() > layout.variables * layout.outputs_per_variable) {
    info.fail("updates " + std::to_string(layout.variables) + " tensor(s) and so has at most " +
              std::to_string(layout.variables * layout.outputs_per_variable) + " outputs, got " +
              std::to_string(info.num_outputs()));
  }
  for (size_t i = 0; i < n; ++i) {
    if (!info.has_input(i)) info.fail("input " + std::to_string(i) + " is missing");
  }
  return layout;
}

float required_float(const NodeInfo& info, const std::string& name) {
  if (!info.has_attr(name)) info.fail("needs the attribute '" + name + "'");
  return info.attr_float(name, 0.0f);
}

bool is_optimizer_dtype(DataType t) { return t == DataType::Float32 || t == DataType::Float64; }

double read_scalar_double(const OpContext& ctx, const Tensor& t, const char* what) {
  if (t.element_count() != 1) {
    ctx.fail(std::string(what) + " must be a scalar, got shape " + t.shape().to_string());
  }
  if (t.dtype() == DataType::Float32) return t.data<float>()[0];
  if (t.dtype() == DataType::Float64) return t.data<double>()[0];
  ctx.fail(std::string(what) + " must be float or double, got " +
           std::string(dtype_name(t.dtype())));
}

int64_t read_update_count(const OpContext& ctx) {
  const Tensor& t = ctx.input(1);
  if (t.element_count() != 1) {
    ctx.fail("T must be a scalar, got shape " + t.shape().to_string());
  }
  if (t.dtype() != DataType::Int64) {
    ctx.fail("T must be int64, got " + std::string(dtype_name(t.dtype())));
  }
  return t.data<int64_t>()[0];
}

// The tensors of variable `v`, one per role, checked to share X's type and shape.
std::vector<const Tensor*> variable_inputs(const OpContext& ctx, const OptimizerLayout& layout,
                                           size_t v, const char* role_names) {
  std::vector<const Tensor*> tensors;
  for (size_t r = 0; r < layout.roles; ++r) {
    tensors.push_back(&ctx.input(2 + r * layout.variables + v));
  }
  const Tensor& x = *tensors[0];
  if (!is_optimizer_dtype(x.dtype())) {
    ctx.fail("updates float or double tensors, got " + std::string(dtype_name(x.dtype())));
  }
  for (size_t r = 1; r < layout.roles; ++r) {
    const Tensor& t = *tensors[r];
    if (t.dtype() != x.dtype() || t.shape() != x.shape()) {
      ctx.fail("the tensors of variable " + std::to_string(v) + " (" + role_names +
               ") must share X's type and shape " + std::string(dtype_name(x.dtype())) +
               x.shape().to_string() + ", got " + std::string(dtype_name(t.dtype())) +
               t.shape().to_string() + " for input " +
               std::to_string(2 + r * layout.variables + v));
    }
  }
  return tensors;
}

// Runs `update(in, out, i)` for every element of variable `v`, where in[r] is element i of
// role r's input (as double) and out[k] receives output k's new value.
template <class Update>
void update_variable(OpContext& ctx, const OptimizerLayout& layout, size_t v,
                     const char* role_names, Update&& update) {
  const std::vector<const Tensor*> in = variable_inputs(ctx, layout, v, role_names);
  const Tensor& x = *in[0];
  const auto visit = [&]<class T>() {
    std::vector<const T*> src;
    for (const Tensor* t : in) src.push_back(t->data<T>());
    // Unwanted outputs go to a scratch slot so the update rule needs no branches.
    std::vector<T*> dst(layout.outputs_per_variable, nullptr);
    std::vector<T> scratch(layout.outputs_per_variable);
    for (size_t k = 0; k < layout.outputs_per_variable; ++k) {
      const size_t index = k * layout.variables + v;
      if (index < ctx.num_outputs() && ctx.wants_output(index)) {
        dst[k] = ctx.allocate_output(index, x.dtype(), x.shape()).template mutable_data<T>();
      }
    }
    const int64_t count = x.element_count();
    parallel_for(count, 4096, [&](int64_t begin, int64_t end) {
      double args[4] = {0, 0, 0, 0};
      double results[3] = {0, 0, 0};
      for (int64_t i = begin; i < end; ++i) {
        for (size_t r = 0; r < src.size(); ++r) args[r] = static_cast<double>(src[r][i]);
        update(args, results);
        for (size_t k = 0; k < dst.size(); ++k) {
          if (dst[k]) dst[k][i] = static_cast<T>(results[k]);
        }
      }
    });
  };
  if (x.dtype() == DataType::Float32) {
    visit.template operator()<float>();
  } else {
    visit.template operator()<double>();
  }
}

// ---------------------------------------------------------------------------------------------
// Adagrad: X_new = X - r * G' / (sqrt(H_new) + epsilon), H_new = H + G'^2, where
// G' = G + norm_coefficient * X and r = R / (1 + T * decay_factor).

CpuKernel make_adagrad(const NodeInfo& info) {
  constexpr const char* kRoles = "X, G, H";
  const OptimizerLayout layout = parse_layout(info, 3, kRoles);
  const double decay = info.attr_float("decay_factor", 0.0f);
  const double epsilon = info.attr_float("epsilon", 1e-6f);
  const double norm = info.attr_float("norm_coefficient", 0.0f);
  return [=](OpContext& ctx) {
    const double rate = read_scalar_double(ctx, ctx.input(0), "R");
    const double t = static_cast<double>(read_update_count(ctx));
    const double r = rate / (1.0 + t * decay);
    for (size_t v = 0; v < layout.variables; ++v) {
      update_variable(ctx, layout, v, kRoles, [&](const double* in, double* out) {
        const double x = in[0], g = norm * in[0] + in[1], h = in[2] + g * g;
        out[0] = x - r * g / (std::sqrt(h) + epsilon);
        out[1] = h;
      });
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Adam: V_new = alpha * V + (1 - alpha) * G', H_new = beta * H + (1 - beta) * G'^2 with
// G' = G + norm_coefficient * X; X_new = (1 - norm_coefficient_post) *
// (X - r * V_new / (sqrt(H_new) + epsilon)), where r is R with bias correction once T > 0.

CpuKernel make_adam(const NodeInfo& info) {
  constexpr const char* kRoles = "X, G, V, H";
  const OptimizerLayout layout = parse_layout(info, 4, kRoles);
  const double alpha = info.attr_float("alpha", 0.9f);
  const double beta = info.attr_float("beta", 0.999f);
  const double epsilon = info.attr_float("epsilon", 1e-6f);
  const double norm = info.attr_float("norm_coefficient", 0.0f);
  const double norm_post = info.attr_float("norm_coefficient_post", 0.0f);
  return [=](OpContext& ctx) {
    const double rate = read_scalar_double(ctx, ctx.input(0), "R");
    const int64_t t = read_update_count(ctx);
    double r = rate;
    if (t > 0) {
      const double steps = static_cast<double>(t);
      r = rate * std::sqrt(1.0 - std::pow(beta, steps)) / (1.0 - std::pow(alpha, steps));
    }
    for (size_t v = 0; v < layout.variables; ++v) {
      update_variable(ctx, layout, v, kRoles, [&](const double* in, double* out) {
        const double x = in[0], g = norm * in[0] + in[1];
        const double v_new = alpha * in[2] + (1.0 - alpha) * g;
        const double h_new = beta * in[3] + (1.0 - beta) * g * g;
        out[0] = (1.0 - norm_post) * (x - r * v_new / (std::sqrt(h_new) + epsilon));
        out[1] = v_new;
        out[2] = h_new;
      });
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Momentum: V_new = alpha * V + beta' * G' with G' = G + norm_coefficient * X, and beta' = beta
// once T > 0 (1 on the first update, so that V starts as the plain gradient). Standard mode
// steps along V_new; Nesterov mode along G' + alpha * V_new.

CpuKernel make_momentum(const NodeInfo& info) {
  constexpr const char* kRoles = "X, G, V";
  const OptimizerLayout layout = parse_layout(info, 3, kRoles);
  const double alpha = required_float(info, "alpha");
  const double beta = required_float(info, "beta");
  const double norm = required_float(info, "norm_coefficient");
  if (!info.has_attr("mode")) info.fail("needs the attribute 'mode'");
  const std::string mode = info.attr_string("mode", "");
  if (mode != "standard" && mode != "nesterov") {
    info.fail("mode must be 'standard' or 'nesterov', got '" + mode + "'");
  }
  const bool nesterov = mode == "nesterov";
  return [=](OpContext& ctx) {
    const double r = read_scalar_double(ctx, ctx.input(0), "R");
    const double beta_now = read_update_count(ctx) > 0 ? beta : 1.0;
    for (size_t v = 0; v < layout.variables; ++v) {
      update_variable(ctx, layout, v, kRoles, [&](const double* in, double* out) {
        const double x = in[0], g = norm * in[0] + in[1];
        const double v_new = alpha * in[2] + beta_now * g;
        out[0] = nesterov ? x - r * (g + alpha * v_new) : x - r * v_new;
        out[1] = v_new;
      });
    }
  };
}

}  // namespace

KILN_CPU_OPS(training);
void register_training_ops(OpRegistry& registry) {
  registry.add(ir::kOnnxTrainingDomain, "Adagrad", make_adagrad);
  registry.add(ir::kOnnxTrainingDomain, "Adam", make_adam);
  registry.add(ir::kOnnxTrainingDomain, "Momentum", make_momentum);
}

}  // namespace kiln
