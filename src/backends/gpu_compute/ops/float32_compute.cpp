#include "backends/gpu_compute/ops/float32_compute.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backends/gpu_common/device_unary_op.h"

namespace kiln::gpu_compute {
namespace {

bool is_16bit_float(DataType dtype) {
  return dtype == DataType::Float16 || dtype == DataType::BFloat16;
}

DataType widened(DataType dtype) { return is_16bit_float(dtype) ? DataType::Float32 : dtype; }

}  // namespace

OpFactory with_16bit_floats_in_float32(OpFactory inner) {
  return
      [inner = std::move(inner)](const DevicePlacementQuery& q, std::string& reason) -> RecordFn {
        const bool any = std::any_of(q.input_types.begin(), q.input_types.end(), is_16bit_float) ||
                         std::any_of(q.output_types.begin(), q.output_types.end(), is_16bit_float);
        if (!any) return inner(q, reason);
        // The output types say what to round to; without them the node stays with `inner`'s rule.
        if (std::find(q.output_types.begin(), q.output_types.end(), DataType::Undefined) !=
            q.output_types.end())
          return inner(q, reason);
        DevicePlacementQuery wide{
            q.info,         q.input_types,   q.output_types,         q.input_shapes,
            q.input_on_cpu, q.output_on_cpu, q.deferred_dtype_checks};
        std::transform(wide.input_types.begin(), wide.input_types.end(), wide.input_types.begin(),
                       widened);
        std::transform(wide.output_types.begin(), wide.output_types.end(),
                       wide.output_types.begin(), widened);
        RecordFn record = inner(wide, reason);
        if (!record) return nullptr;
        // Inputs of unknown dtype that `inner` takes as float32 arrive widened from 16-bit floats
        // too.
        for (auto& deferred : wide.deferred_dtype_checks) {
          std::vector<DataType>& allowed = deferred.second;
          if (std::find(allowed.begin(), allowed.end(), DataType::Float32) != allowed.end()) {
            allowed.push_back(DataType::Float16);
            allowed.push_back(DataType::BFloat16);
          }
        }
        q.deferred_dtype_checks = std::move(wide.deferred_dtype_checks);
        std::vector<DataType> narrow_to = q.output_types;
        return [record = std::move(record), narrow_to = std::move(narrow_to)](OpRecorder& r) {
          r.compute_in_float32(narrow_to);
          record(r);
          r.narrow_outputs();
        };
      };
}

bool computes_16bit_floats_in_float32(const std::string& op_type) {
  static const std::set<std::string> ops = [] {
    std::set<std::string> s = {
        // Arithmetic, rounded once (Max, Min and Mod exact); comparisons and tests exact.
        "Add", "Sub", "Mul", "Div", "Max", "Min", "Mod", "Equal", "Less", "LessOrEqual", "Greater",
        "GreaterOrEqual", "IsNaN", "IsInf", "SwiGLU",
        // Lines and reductions, accumulated in float32.
        "Softmax", "LogSoftmax", "Hardmax", "ReduceMax", "ReduceMin", "ReduceSum", "ReduceMean",
        "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp",
        "ArgMax", "ArgMin", "MatMul", "Gemm", "Conv", "ConvTranspose", "MaxPool", "AveragePool",
        "LpPool", "GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool",
        // (x - zero point) * scale in float32, rounded once to the scale's type.
        "DequantizeLinear"};
    // The unary math and activations (Clip reads its bounds in their own type: not here).
    for (const std::string& op : unary_onnx_types())
      if (op != "Clip") s.insert(op);
    return s;
  }();
  return ops.count(op_type) != 0;
}

}  // namespace kiln::gpu_compute
