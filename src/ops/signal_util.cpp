#include "ops/signal_util.h"

#include <type_traits>

#include "core/element_storage.h"

namespace kiln {

namespace {

const Tensor& scalar_input(const OpContext& ctx, size_t index, const char* what) {
  if (!ctx.has_input(index)) ctx.fail(std::string(what) + " is required");
  const Tensor& t = ctx.input(index);
  if (t.element_count() != 1 || t.rank() > 1) {
    ctx.fail(std::string(what) + " must be a scalar, got shape " + t.shape().to_string());
  }
  return t;
}

}  // namespace

int64_t scalar_int_input(const OpContext& ctx, size_t index, const char* what) {
  return scalar_int_value(NodeInputs{ctx.node(), ctx.inputs()}, index, what);
}

double scalar_float_input(const OpContext& ctx, size_t index, const char* what) {
  const Tensor& t = scalar_input(ctx, index, what);
  double value = 0;
  visit_signal_float(ctx, t.dtype(), what, [&]<class T>() { value = to_double(t.data<T>()[0]); });
  return value;
}

void store_values(Tensor& out, std::span<const double> values) {
  visit_dtype(out.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T> || is_plain_int_v<T>) {
      T* p = out.mutable_data<T>();
      for (size_t i = 0; i < values.size(); ++i) p[i] = from_double<T>(values[i]);
    } else {
      throw Error("store_values: unsupported element type " + std::string(dtype_name(out.dtype())));
    }
  });
}

}  // namespace kiln
