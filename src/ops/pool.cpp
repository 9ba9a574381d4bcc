// MaxPool, AveragePool, LpPool and their Global forms: attribute parsing, output shapes and
// dtype dispatch. The loops live in backends/cpu/pool_kernels.
#include <string>

#include "backends/cpu/pool_kernels.h"
#include "core/dtype_dispatch.h"
#include "kernels/op_registry.h"
#include "opdefs/pool.h"
#include "ops/all_ops.h"
#include "ops/op_utils.h"

namespace kiln {

namespace {

constexpr size_t kMaxSpatialRank = 12;

void check_input(const OpContext& ctx, const Tensor& x) {
  if (x.rank() < 3)
    ctx.fail("X must have rank >= 3 (N, C, spatial...), got " + x.shape().to_string());
  if (x.rank() - 2 > kMaxSpatialRank)
    ctx.fail("X has too many spatial axes: " + x.shape().to_string());
}

CpuKernel make_pool(const NodeInfo& info, PoolOp kind) {
  const PoolAttrs a = parse_pool_attrs(info, kind);
  return [a](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    check_input(ctx, x);
    const Shape in(x.shape().begin() + 2, x.shape().end());
    if (a.window.kernel_shape.size() != in.size()) {
      ctx.fail("kernel_shape has " + std::to_string(a.window.kernel_shape.size()) +
               " entries but X " + x.shape().to_string() + " has " + std::to_string(in.size()) +
               " spatial axes");
    }
    PoolShape s;
    s.geometry = resolve_window(a.window, in, Shape(a.window.kernel_shape), ctx.node(), &s.pad_end);
    s.planes = x.shape()[0] * x.shape()[1];
    Shape y_shape{x.shape()[0], x.shape()[1]};
    for (int64_t d : s.geometry.out) y_shape.push_back(d);
    Tensor& y = ctx.allocate_output(0, x.dtype(), y_shape);
    int64_t* indices = nullptr;
    if (a.kind == PoolOp::Max && ctx.num_outputs() > 1 && ctx.wants_output(1)) {
      indices = ctx.allocate_output(1, DataType::Int64, y_shape).mutable_data<int64_t>();
    }
    if (a.kind == PoolOp::Max) {
      auto run = [&]<class T>() {
        cpu::max_pool<T>(s, x.data<T>(), y.mutable_data<T>(), indices, a.column_major);
      };
      if (x.dtype() == DataType::Int8) return run.template operator()<int8_t>();
      if (x.dtype() == DataType::UInt8) return run.template operator()<uint8_t>();
      return visit_float(ctx, x.dtype(), "X", run);
    }
    visit_float(ctx, x.dtype(), "X", [&]<class T>() {
      if (a.kind == PoolOp::Average) {
        cpu::average_pool<T>(s, x.data<T>(), y.mutable_data<T>(), a.count_include_pad);
      } else {
        cpu::lp_pool<T>(s, x.data<T>(), y.mutable_data<T>(), a.p);
      }
    });
  };
}

CpuKernel make_global_pool(const NodeInfo& info, PoolOp kind) {
  const float p = static_cast<float>(info.attr_int("p", 2));
  if (kind == PoolOp::Lp && p <= 0) info.fail("p must be positive");
  return [kind, p](OpContext& ctx) {
    const Tensor& x = ctx.input(0);
    check_input(ctx, x);
    Shape y_shape{x.shape()[0], x.shape()[1]};
    for (size_t d = 2; d < x.rank(); ++d) y_shape.push_back(1);
    Tensor& y = ctx.allocate_output(0, x.dtype(), y_shape);
    const int64_t planes = x.shape()[0] * x.shape()[1];
    const int64_t plane_size = Shape(x.shape().begin() + 2, x.shape().end()).element_count();
    if (kind == PoolOp::Max) {
      auto run = [&]<class T>() {
        cpu::global_max_pool<T>(planes, plane_size, x.data<T>(), y.mutable_data<T>());
      };
      if (x.dtype() == DataType::Int8) return run.template operator()<int8_t>();
      if (x.dtype() == DataType::UInt8) return run.template operator()<uint8_t>();
      return visit_float(ctx, x.dtype(), "X", run);
    }
    visit_float(ctx, x.dtype(), "X", [&]<class T>() {
      if (kind == PoolOp::Average) {
        cpu::global_average_pool<T>(planes, plane_size, x.data<T>(), y.mutable_data<T>());
      } else {
        cpu::global_lp_pool<T>(planes, plane_size, x.data<T>(), y.mutable_data<T>(), p);
      }
    });
  };
}

}  // namespace

KILN_CPU_OPS(pool);
void register_pool_ops(OpRegistry& registry) {
  registry.add("MaxPool", [](const NodeInfo& info) { return make_pool(info, PoolOp::Max); });
  registry.add("AveragePool",
               [](const NodeInfo& info) { return make_pool(info, PoolOp::Average); });
  registry.add("LpPool", [](const NodeInfo& info) { return make_pool(info, PoolOp::Lp); });
  registry.add("GlobalMaxPool",
               [](const NodeInfo& info) { return make_global_pool(info, PoolOp::Max); });
  registry.add("GlobalAveragePool",
               [](const NodeInfo& info) { return make_global_pool(info, PoolOp::Average); });
  registry.add("GlobalLpPool",
               [](const NodeInfo& info) { return make_global_pool(info, PoolOp::Lp); });
}

}  // namespace kiln
