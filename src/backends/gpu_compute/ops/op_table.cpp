#include "backends/gpu_compute/ops/op_table.h"

#include "backends/gpu_compute/ops/float32_compute.h"

namespace kiln::gpu_compute {

const OpTable& op_table() {
  static const OpTable table = [] {
    OpTable t;
    register_all_ops(t);
    return t;
  }();
  return table;
}

void OpTable::add(const std::string& domain, const std::string& op_type, OpFactory factory) {
  if (domain.empty() && computes_16bit_floats_in_float32(op_type))
    factory = with_16bit_floats_in_float32(std::move(factory));
  DeviceOpTable::add(domain, op_type, std::move(factory));
}

bool inputs_are(const DevicePlacementQuery& q, std::initializer_list<DataType> allowed,
                std::string& reason, size_t first, size_t count) {
  const std::optional<size_t> k =
      input_outside_dtypes(q, std::span(allowed.begin(), allowed.size()), first, count);
  if (!k) return true;
  reason = "no " + std::string(dtype_name(q.input_types[*k])) + " kernel (input " +
           std::to_string(*k) + ")";
  return false;
}

}  // namespace kiln::gpu_compute
