#include "opdefs/range.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "core/dtype_dispatch.h"
#include "opdefs/node_inputs.h"

namespace kiln {
namespace {

std::string type_name(DataType t) { return std::string(dtype_name(t)); }

}  // namespace

int64_t resolve_range_length(const ir::Node& node, const Tensor& start_t, const Tensor& limit_t,
                             const Tensor& delta_t) {
  const DataType dtype = start_t.dtype();
  if (limit_t.dtype() != dtype || delta_t.dtype() != dtype) {
    fail_at(node, "start, limit and delta must have one type, got " + type_name(dtype) + ", " +
                      type_name(limit_t.dtype()) + " and " + type_name(delta_t.dtype()));
  }
  for (const Tensor* t : {&start_t, &limit_t, &delta_t}) {
    if (t->element_count() != 1 || t->rank() > 1) {
      fail_at(node, "start, limit and delta must be scalars, got shape " + t->shape().to_string());
    }
  }
  int64_t count = 0;
  visit_dtype(dtype, [&]<class T>() {
    if constexpr (is_plain_int_v<T>) {
      // Integer ranges are counted exactly: no rounding of large int64 bounds.
      const T start = start_t.data<T>()[0], limit = limit_t.data<T>()[0];
      const T delta = delta_t.data<T>()[0];
      if (delta == 0) fail_at(node, "delta must not be zero");
      if constexpr (std::is_signed_v<T>) {
        const int64_t span = static_cast<int64_t>(limit) - static_cast<int64_t>(start);
        const int64_t step = delta;
        if ((span > 0 && step > 0) || (span < 0 && step < 0)) {
          count = (span + step + (step > 0 ? -1 : 1)) / step;
        }
      } else {
        if (limit > start) count = static_cast<int64_t>((limit - start + delta - 1) / delta);
      }
    } else if constexpr (is_float_like_v<T>) {
      const double start = to_double(start_t.data<T>()[0]);
      const double limit = to_double(limit_t.data<T>()[0]);
      const double delta = to_double(delta_t.data<T>()[0]);
      if (delta == 0) fail_at(node, "delta must not be zero");
      const double steps = std::ceil((limit - start) / delta);
      if (!std::isfinite(steps)) fail_at(node, "start, limit and delta give an unbounded range");
      count = std::max<int64_t>(0, static_cast<int64_t>(steps));
    } else {
      fail_at(node, "unsupported type " + type_name(dtype));
    }
  });
  return count;
}

}  // namespace kiln
