// Binary element-wise ops with numpy broadcasting on texture tensors: the float32 arithmetic Add,
// Sub, Mul, Div, Pow, Max, Min, PRelu (b is the slope) and Mod (C's fmod: ONNX requires fmod=1
// for floats); the comparisons Equal, Less, LessOrEqual, Greater and GreaterOrEqual, which take
// any texture dtype (the values compare exactly as floats; NaN compares false) and write bool
// 0/1; and the logical And, Or and Xor of bool 0/1 inputs.
// Up to 6 dimensions remain after dropping the output's size-1 dimensions and merging
// dimensions contiguous in both inputs, so most higher-rank shapes fit as well.
//
//   BinaryElementwise kernel(context);
//   kernel.record(BinaryOp::Add, a, a_shape, b, b_shape, c);  // c holds the broadcast shape
#pragma once

#include <array>
#include <string>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture.h"
#include "kiln/shape.h"

namespace kiln::gpu_pixel {

enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Max,
  Min,
  PRelu,
  Mod,
  Equal,
  Less,
  LessOrEqual,
  Greater,
  GreaterOrEqual,
  And,
  Or,
  Xor,
};
const char* to_string(BinaryOp op);

class Program;

constexpr int kBinaryMaxRank = 6;

// The shader's index uniforms for c = a <op> b.
struct BinaryIndexing {
  int rank = 0;
  int count = 0;  // output elements
  std::array<int, kBinaryMaxRank> shape{};
  std::array<int, kBinaryMaxRank> a_stride{};  // 0 on broadcast dimensions
  std::array<int, kBinaryMaxRank> b_stride{};
};

// kiln::Error when the shapes do not broadcast, more than 6 dimensions remain, or the output
// has more elements than 32-bit indexing reaches.
BinaryIndexing binary_indexing(const Shape& a, const Shape& b);
// Sets a binary shader's index uniforms (u_rank, u_shape, u_a_stride, u_b_stride) from `ix`.
void set_binary_indexing(const Program& program, const BinaryIndexing& ix);

class BinaryElementwise {
 public:
  explicit BinaryElementwise(Context& context) : context_(context) {}

  // Draws c = a <op> b. Nothing for an empty output. kiln::Error when a tensor holds fewer
  // elements than its shape or c is not sized for the broadcast shape.
  void record(BinaryOp op, const TextureTensor& a, const Shape& a_shape, const TextureTensor& b,
              const Shape& b_shape, TextureTensor& c) const;

 private:
  Context& context_;
};

}  // namespace kiln::gpu_pixel
