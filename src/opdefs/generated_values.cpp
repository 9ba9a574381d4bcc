#include "opdefs/generated_values.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "opdefs/node_info.h"

namespace kiln {

Tensor parse_constant_value(const NodeInfo& info) {
  static const char* const kValueAttrs[] = {"value",        "sparse_value", "value_float",
                                            "value_floats", "value_int",    "value_ints",
                                            "value_string", "value_strings"};
  int count = 0;
  for (const char* name : kValueAttrs) count += info.has_attr(name) ? 1 : 0;
  if (count != 1) {
    info.fail("exactly one of the value attributes must be set, found " + std::to_string(count));
  }
  if (info.has_attr("sparse_value")) info.fail("sparse constants are not supported");
  if (info.has_attr("value")) return *info.attr_tensor("value");
  if (info.has_attr("value_float")) return Tensor::scalar<float>(info.attr_float("value_float", 0));
  if (info.has_attr("value_floats")) {
    const auto v = info.attr_floats("value_floats");
    return Tensor::from_data<float>(Shape{static_cast<int64_t>(v.size())}, v);
  }
  if (info.has_attr("value_int")) return Tensor::scalar<int64_t>(info.attr_int("value_int", 0));
  if (info.has_attr("value_ints")) {
    const auto v = info.attr_ints("value_ints");
    return Tensor::from_data<int64_t>(Shape{static_cast<int64_t>(v.size())}, v);
  }
  if (info.has_attr("value_string"))
    return Tensor::scalar<std::string>(info.attr_string("value_string", ""));
  const auto v = info.attr_strings("value_strings");
  return Tensor::from_data<std::string>(Shape{static_cast<int64_t>(v.size())}, v);
}

std::optional<int64_t> float_range_count(double start, double limit, double delta) {
  if (delta == 0) return std::nullopt;
  const double steps = std::ceil((limit - start) / delta);
  if (!std::isfinite(steps)) return std::nullopt;
  return std::max<int64_t>(0, static_cast<int64_t>(steps));
}

}  // namespace kiln
