#include "backends/gpu_compute/fill.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <string>

#include "backends/gpu_compute/shaders.h"
#include "core/dtype_dispatch.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

constexpr uint32_t kConstant = 0, kDiagonal = 1, kCosineWindow = 2, kRange = 3;

// The words of `count` elements of `size` bytes, checked against the shader's 32-bit indexing.
uint32_t words_of(uint64_t count, size_t size) {
  const uint64_t words = (count * size + 3) / 4;
  check(words < (uint64_t{1} << 32), "fill on the GPU: beyond 32-bit word indexing");
  return static_cast<uint32_t>(words);
}

// The float32 bits of a float-like scalar.
uint32_t float_bits_of(const Tensor& t) {
  float v = 0;
  visit_dtype(t.dtype(), [&]<class T>() {
    if constexpr (is_float_like_v<T>) v = static_cast<float>(to_double(t.data<T>()[0]));
  });
  uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
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

bool range_fillable(DataType dtype) {
  return dtype == DataType::Float32 || dtype == DataType::Int32 || dtype == DataType::Int64 ||
         dtype == DataType::Float16 || dtype == DataType::BFloat16;
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

void Fill::record_range(VkCommandBuffer cmd, DescriptorArena& arena, const Tensor& start,
                        const Tensor& delta, const Buffer& out, int64_t count) const {
  const DataType dtype = start.dtype();
  check(range_fillable(dtype) && delta.dtype() == dtype && start.element_count() == 1 &&
            delta.element_count() == 1,
        "range on the GPU: no kernel for " + std::string(dtype_name(dtype)));
  FillPushConstants pc;
  pc.mode = kRange;
  pc.words = words_of(static_cast<uint64_t>(count), dtype_size(dtype));
  if (dtype == DataType::Int32 || dtype == DataType::Int64) {
    // Two's complement bits, low word first.
    pc.element = dtype == DataType::Int32 ? 1 : 4;
    std::memcpy(pc.pattern, start.raw_data(), dtype_size(dtype));
    std::memcpy(pc.step, delta.raw_data(), dtype_size(dtype));
  } else {
    pc.element = dtype == DataType::Float32 ? 0 : dtype == DataType::Float16 ? 2 : 3;
    pc.pattern[0] = float_bits_of(start);
    pc.step[0] = float_bits_of(delta);
  }
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
