// Which tensor dtypes live in the float textures, and the exact conversions between a tensor's
// elements and texel values.
//
// A texture holds float32 components (RGBA32F, or RGBA16F where float32 cannot be rendered to).
// bool (0/1), int8, uint8, int16, uint16, the 4- and 2-bit integers, float16, bfloat16 and the
// four float8 types' values are all exactly representable in float32, so those tensors live in
// the same textures: the texture
// holds each element's value as a float, and the tensor's logical dtype travels beside the texture
// (TextureData). Uploads convert the elements to floats and downloads convert back, both exactly.
// Kernels that produce such a dtype round their result to it in the shader (float16 to half
// precision, integers wrapped or truncated as ONNX's Cast does), so the texture never holds a value
// the dtype cannot.
//
// int32, uint32 and int64 do not fit float32's 24-bit significand, and float64 does not either:
// those tensors stay on the CPU. float4e2m1 and float8e8m0 would fit too; their Cast rounding
// has no shader yet, so they stay on the CPU.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "core/tensor_impl.h"
#include "kiln/dtype.h"

namespace kiln::gpu_pixel {

// Whether every value of `dtype` survives a texture whose components keep `mantissa_bits`
// significand bits (23 for RGBA32F, 10 for RGBA16F).
bool texel_holds(DataType dtype, int mantissa_bits);

// The dtypes texel_holds takes with full float32 textures, float32 first.
std::span<const DataType> texel_dtypes();

// `host`'s elements (of a dtype texel_holds takes) as floats, exactly.
std::vector<float> to_texel_values(const Tensor& host);

// Texel values back into elements of `dtype`, written to `out` (values.size() elements of
// dtype_size(dtype) bytes). Exact for every value a kernel of that dtype writes.
void from_texel_values(std::span<const float> values, DataType dtype, std::span<std::byte> out);

}  // namespace kiln::gpu_pixel
