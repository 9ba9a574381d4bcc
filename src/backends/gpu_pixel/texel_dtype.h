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
// int32, uint32 and int64 do not fit float32's 24-bit significand: they live in integer
// textures instead, int32 in RGBA32I and uint32 in RGBA32UI, one element per component. An
// int64 is two int32 words, low then high (the little-endian bytes of the value, so uploads and
// downloads copy bytes), in an RGBA32I texture: an int64 tensor of shape S is stored as the word
// tensor of shape S x 2. Data movement then needs no 64-bit arithmetic in the shader (GLSL ES
// 3.00 has none): it is the same copy on words with a trailing axis of 2, and the few kernels
// that read int64 values (comparisons, integer arithmetic) combine the two words themselves.
// float64 fits neither and stays on the CPU. float4e2m1 and float8e8m0 would fit the float
// textures too; their Cast rounding has no shader yet, so they stay on the CPU.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "backends/gpu_pixel/context.h"
#include "core/tensor_impl.h"
#include "kiln/dtype.h"
#include "kiln/shape.h"

namespace kiln::gpu_pixel {

// Whether textures hold every value of `dtype`: the integer-texture dtypes always, the others when
// float components keep `mantissa_bits` significand bits (23 for RGBA32F, 10 for RGBA16F).
bool texel_holds(DataType dtype, int mantissa_bits);

// The dtypes texel_holds takes with full float32 textures, float32 first, then int32, uint32
// and int64 (the integer textures') last.
std::span<const DataType> texel_dtypes();
// Those of them that live in the float textures.
std::span<const DataType> float_texel_dtypes();

// int32, uint32 and int64: the dtypes in integer textures.
bool in_integer_texture(DataType dtype);
// The format a tensor of `dtype` lives in: RGBA32I or RGBA32UI for the integer-texture dtypes,
// `float_format` (the context's) for the rest.
TextureFormat texture_format_of(DataType dtype, TextureFormat float_format);
// Texture components per element: 2 for int64 (low and high word), else 1.
int words_per_element(DataType dtype);
// The shape of the components a tensor of `dtype` and `shape` occupies: `shape` with a trailing
// axis of 2 for int64 (its words), else `shape`.
Shape word_shape(const Shape& shape, DataType dtype);

// `host`'s elements (of a dtype in the float textures) as floats, exactly.
std::vector<float> to_texel_values(const Tensor& host);

// Texel values back into elements of `dtype`, written to `out` (values.size() elements of
// dtype_size(dtype) bytes). Exact for every value a kernel of that dtype writes.
void from_texel_values(std::span<const float> values, DataType dtype, std::span<std::byte> out);

}  // namespace kiln::gpu_pixel
