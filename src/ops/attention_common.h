// Helpers shared by the attention family's files (attention.cpp, rotary_embedding.cpp,
// linear_attention.cpp, causal_conv_with_state.cpp, swiglu.cpp, flex_attention.cpp,
// tensor_scatter.cpp): the registration entry points, and float32 views of the float tensors
// these ops accept, since they all compute in float32.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype_dispatch.h"
#include "kernels/op_context.h"
#include "kiln/tensor.h"

namespace kiln {

class OpRegistry;

namespace attn {

// The element types of the family's float inputs: float16, bfloat16, float32 and float64.
inline bool is_attention_float(DataType t) {
  return t == DataType::Float32 || t == DataType::Float64 || t == DataType::Float16 ||
         t == DataType::BFloat16;
}

// ctx.fail unless `t` has one of the family's float element types.
void require_float(const OpContext& ctx, const Tensor& t, const std::string& what);

// Scratch that lives as long as its thread and only ever grows, so steady-state runs do not
// allocate. Each use site passes its own tag type so that two live buffers never share storage.
template <class C, class Tag>
C* scratch(size_t count) {
  thread_local std::vector<C> buffer;
  if (buffer.size() < count) buffer.resize(count);
  return buffer.data();
}

// The elements of a float tensor as float32: the tensor's own data when it is float32,
// otherwise a converted copy in `out` (which must hold element_count() floats).
const float* as_float(const Tensor& t, float* out);

// The float32 elements of a float tensor converted into `out` (any of the family's float types;
// double and the 16-bit types round once).
void copy_to_float(const Tensor& t, float* out);

// Stores `count` float32 values into `dst` (any of the family's float types), from element
// `offset` on.
void store_from_float(const float* src, Tensor& dst, int64_t count, int64_t offset = 0);

// The float scratch a kernel computes an output in: the output's own memory when it is
// float32, else scratch tagged Tag that finish_output then converts into the output.
template <class Tag>
float* output_buffer(Tensor& out) {
  if (out.dtype() == DataType::Float32) return out.mutable_data<float>();
  return scratch<float, Tag>(static_cast<size_t>(out.element_count()));
}
inline void finish_output(const float* buffer, Tensor& out) {
  if (out.dtype() != DataType::Float32) store_from_float(buffer, out, out.element_count());
}

}  // namespace attn
}  // namespace kiln
