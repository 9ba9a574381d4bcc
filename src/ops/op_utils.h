// Small helpers shared by the CPU ops; the shape arithmetic is opdefs/broadcast.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/op_context.h"
#include "kiln/tensor.h"
#include "opdefs/broadcast.h"

namespace kiln {

// Calls f.template operator()<T>() for float32, float64, float16 and bfloat16; ctx.fail naming
// `what` for any other element type.
template <class F>
void visit_float(const OpContext& ctx, DataType t, const char* what, F&& f) {
  switch (t) {
    case DataType::Float32:
      return f.template operator()<float>();
    case DataType::Float64:
      return f.template operator()<double>();
    case DataType::Float16:
      return f.template operator()<Float16>();
    case DataType::BFloat16:
      return f.template operator()<BFloat16>();
    default:
      ctx.fail(std::string(what) + " must be float32, float64, float16 or bfloat16, got " +
               std::string(dtype_name(t)));
  }
}

}  // namespace kiln
