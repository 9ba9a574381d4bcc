#include "ops/signal_util.h"

#include <type_traits>

#include "core/element_storage.h"

namespace kiln {

int64_t scalar_int_input(const OpContext& ctx, size_t index, const char* what) {
  return scalar_int_value(NodeInputs{ctx.node(), ctx.inputs()}, index, what);
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
