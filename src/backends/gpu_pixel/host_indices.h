// Host-held indices for the indexed draws: reading them, the element offsets they address, and
// the uniform array that carries those to the shader (integer data never goes into float
// textures). The array holds at most kIndexUniforms values as ivec4s (a plain int array would
// take one uniform vector per entry); a node that needs more runs on the CPU.
//
//   std::string body = std::string(kIndexUniformsGlsl) + kShader;  // kShader calls index_at(j)
//   draw(context, program, y, inputs, [&] { set_index_uniforms(context, program, offsets); });
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/program.h"
#include "kernels/device_backend.h"
#include "kiln/shape.h"

namespace kiln::gpu_pixel {

constexpr int kIndexUniforms = 1024;

// Declares `uniform ivec4 u_index[kIndexUniforms / 4]` and `int index_at(int j)`.
inline constexpr const char* kIndexUniformsGlsl = R"(
uniform ivec4 u_index[256];
int index_at(int j) { return u_index[j >> 2][j & 3]; }
)";

// Whether `count` values fit the array.
inline bool index_uniforms_fit(size_t count) { return count <= kIndexUniforms; }

// Sets u_index[0 .. values.size()) of the program in use. kiln::Error when there are more than
// kIndexUniforms values or the device has too few fragment uniforms for the array.
void set_index_uniforms(const Context& context, const Program& program,
                        std::span<const int> values);

// Whether input k holds indices the host reads: of int32 or int64, dtypes textures never hold (an
// unknown dtype is checked per run), or CPU-resident or constant; false with `reason` otherwise.
bool index_input_on_host(const DevicePlacementQuery& q, size_t k, std::string& reason);

// The values of host indices (OpRecorder::host gives them, downloading those a draw made);
// RunOnCpu for a tensor not of int32 or int64.
std::vector<int64_t> host_index_values(const Tensor& indices);

// An index in [-dim, dim) wrapped into [0, dim); RunOnCpu otherwise, so that the CPU kernel
// names it.
int64_t wrapped_host_index(int64_t i, int64_t dim);

// RunOnCpu for shapes an op rejects: the CPU kernel reports them in its words.
[[noreturn]] void run_rejected_shapes_on_cpu();

// RunOnCpu unless `count` values fit the uniforms and `data` stays within 32-bit indexing.
void check_index_uniforms_fit(const Shape& data, int64_t count);

// GatherElements' and ScatterElements' offsets: for each position p of `indices` (row-major),
// the offset in `data` of p's coordinates with the axis one replaced by values[p]. RunOnCpu for
// shapes the ops reject (ranks that differ, indices beyond data outside the axis), an index out
// of range, or more positions than the uniforms hold.
std::vector<int> elements_offsets(const Shape& data, const Shape& indices,
                                  std::span<const int64_t> values, int64_t axis_attr);

}  // namespace kiln::gpu_pixel
