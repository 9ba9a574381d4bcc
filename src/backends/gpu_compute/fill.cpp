#include "backends/gpu_compute/fill.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <string>

#include "backends/gpu_compute/shaders.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

constexpr uint32_t kConstant = 0, kDiagonal = 1, kCosineWindow = 2;

// The words of `count` elements of `size` bytes, checked against the shader's 32-bit indexing.
uint32_t words_of(uint64_t count, size_t size) {
  const uint64_t words = (count * size + 3) / 4;
  check(words < (uint64_t{1} << 32), "fill on the GPU: beyond 32-bit word indexing");
  return static_cast<uint32_t>(words);
}

}  // namespace

bool fillable(DataType dtype) {
  return dtype == DataType::Float32 || dtype == DataType::Int32 || dtype == DataType::Int64 ||
         dtype == DataType::Bool;
}

bool diagonal_fillable(DataType dtype) {
  return dtype == DataType::Float32 || dtype == DataType::Int32 || dtype == DataType::UInt32 ||
         dtype == DataType::Float64 || dtype == DataType::Int64 || dtype == DataType::UInt64;
}

Fill::Fill(Device& device, uint32_t workgroup_size)
    : device_(device),
      pipeline_(device,
                PipelineDesc{shaders::fill(), 1, sizeof(FillPushConstants), workgroup_size}) {}

void Fill::record(VkCommandBuffer cmd, DescriptorArena& arena, const Tensor& value,
                  const Buffer& out, uint64_t count) const {
  check(fillable(value.dtype()) && value.element_count() >= 1,
        "fill on the GPU: no kernel for " + std::string(dtype_name(value.dtype())));
  const size_t size = dtype_size(value.dtype());
  FillPushConstants pc;
  pc.mode = kConstant;
  pc.words = words_of(count, size);
  const auto* bytes = static_cast<const uint8_t*>(value.raw_data());
  if (size == 1) {
    pc.pattern[0] = uint32_t{bytes[0]} * 0x01010101u;
  } else {
    std::memcpy(pc.pattern, bytes, size);
    pc.period = static_cast<uint32_t>(size / 4);
  }
  dispatch(cmd, arena, pc, out);
}

void Fill::record_diagonal(VkCommandBuffer cmd, DescriptorArena& arena, const Tensor& one,
                           const Buffer& out, int64_t rows, int64_t cols, int64_t k) const {
  check(diagonal_fillable(one.dtype()) && one.element_count() >= 1,
        "diagonal fill on the GPU: no kernel for " + std::string(dtype_name(one.dtype())));
  const size_t size = dtype_size(one.dtype());
  FillPushConstants pc;
  pc.mode = kDiagonal;
  pc.words = words_of(static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols), size);
  std::memcpy(pc.pattern, one.raw_data(), size);
  pc.period = static_cast<uint32_t>(size / 4);
  pc.cols = static_cast<uint32_t>(std::max<int64_t>(cols, 1));
  // A diagonal outside the matrix is one just outside it: no element is on it either way.
  pc.k = static_cast<int32_t>(std::clamp<int64_t>(k, -rows, cols));
  dispatch(cmd, arena, pc, out);
}

void Fill::record_cosine_window(VkCommandBuffer cmd, DescriptorArena& arena,
                                const CosineWindow& window, bool periodic, const Buffer& out,
                                int64_t size) const {
  FillPushConstants pc;
  pc.mode = kCosineWindow;
  pc.words = words_of(static_cast<uint64_t>(size), sizeof(float));
  // A one-point symmetric window has N = 0: every element is 1.
  pc.n = static_cast<uint32_t>(std::max<int64_t>(periodic ? size : size - 1, 0));
  pc.a0 = static_cast<float>(window.a0);
  pc.a1 = static_cast<float>(window.a1);
  pc.a2 = static_cast<float>(window.a2);
  dispatch(cmd, arena, pc, out);
}

void Fill::dispatch(VkCommandBuffer cmd, DescriptorArena& arena, const FillPushConstants& pc,
                    const Buffer& out) const {
  if (pc.words == 0) return;
  const Buffer* buffers[] = {&out};
  const VkDescriptorSet set = arena.bind(pipeline_, buffers);
  const Buffer* written[] = {&out};
  record_dispatch(cmd, pipeline_, set, std::as_bytes(std::span(&pc, 1)),
                  groups_for(device_, pipeline_, pc.words), written);
}

}  // namespace kiln::gpu_compute
