// Host side of shaders/integer_elementwise.comp: Add/Sub/Mul/Div/Mod/Max/Min, BitwiseAnd/Or/Xor,
// BitShift and Pow with numpy broadcasting, and Neg/Abs/BitwiseNot, on the signed and unsigned
// integers of 8, 16, 32 and 64 bits (PowFloatExponent: int32 and int64 bases, float32 exponents).
// Needs shaderInt64 (device.info().has_int64) for every type: results are computed in 64 bits and
// wrapped. Division or Mod by zero yields 0.
//
//   const auto pc = integer_push_constants(IntegerOp::Div, DataType::Int64, a_shape, b_shape);
//   context.kernel<IntegerElementwise>().record(cmd, arena, pc, a, b, c);
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>

#include "backends/gpu_compute/binary_elementwise.h"
#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/pipeline.h"
#include "kiln/dtype.h"
#include "kiln/shape.h"

namespace kiln::gpu_compute {

// The shader's op codes; the order is part of the shader interface. Mod takes the divisor's
// sign (ONNX fmod=0), FMod the dividend's (fmod=1). BitShift is for the unsigned types; Pow takes
// an exponent of the base's type, PowFloatExponent a float32 one (b is float32).
enum class IntegerOp : uint32_t {
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  FMod,
  Max,
  Min,
  Neg,
  Abs,
  BitwiseAnd,
  BitwiseOr,
  BitwiseXor,
  BitwiseNot,
  BitShiftLeft,
  BitShiftRight,
  Pow,
  PowFloatExponent
};

// The shader's element type codes; the order is part of the shader interface.
enum class IntegerType : uint32_t { Int32, Int64, Int8, UInt8, Int16, UInt16, UInt32, UInt64 };

// The code of `dtype`, or nullopt for a type the shader does not compute on.
std::optional<IntegerType> integer_type(DataType dtype);

// Mirrors the shader's push-constant block: the broadcast layout of the float kernel, then the
// element type.
struct IntegerPushConstants {
  BinaryPushConstants layout;
  uint32_t type = 0;  // IntegerType
};
static_assert(sizeof(IntegerPushConstants) <= kMaxPushConstantBytes);

// kiln::Error when the shapes do not broadcast, the output is beyond the shader (see
// binary_push_constants) or `type` has no IntegerType.
IntegerPushConstants integer_push_constants(IntegerOp op, DataType type, const Shape& a,
                                            const Shape& b);

class IntegerElementwise {
 public:
  explicit IntegerElementwise(Device& device, uint32_t workgroup_size = 256);

  // Records c = a <op> b (unary ops read a only; pass it as b too), then a barrier on c.
  void record(VkCommandBuffer cmd, DescriptorArena& arena, const IntegerPushConstants& pc,
              const Buffer& a, const Buffer& b, const Buffer& c) const;

 private:
  Device& device_;
  ComputePipeline pipeline_;
};

}  // namespace kiln::gpu_compute
