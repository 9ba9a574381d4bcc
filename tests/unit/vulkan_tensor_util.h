// Moving kiln tensors to and from GPU buffers in the Vulkan tests. Bytes move as they are, so
// bool tensors (one byte per element) land in the packed layout the shaders use; buffers round
// up to whole 32-bit words.
#pragma once

#include <span>

#include "backends/vulkan/buffer.h"
#include "kiln/kiln.h"

namespace kiln::vulkan {

inline size_t word_rounded(size_t bytes) { return (bytes + 3) / 4 * 4; }

inline Buffer to_gpu(Device& device, const Tensor& t) {
  Buffer b(device, word_rounded(t.byte_size()), MemoryUse::DeviceLocal);
  if (t.byte_size() > 0) {
    upload(device, b, std::span(static_cast<const std::byte*>(t.raw_data()), t.byte_size()));
  }
  return b;
}

inline Buffer gpu_buffer(Device& device, DataType dtype, const Shape& shape) {
  return Buffer(device, word_rounded(dtype_size(dtype) * shape.element_count()),
                MemoryUse::DeviceLocal);
}

inline Tensor from_gpu(Device& device, const Buffer& b, DataType dtype, const Shape& shape) {
  Tensor t = Tensor::zeros(dtype, shape);
  if (t.byte_size() > 0) {
    download(device, b, std::span(static_cast<std::byte*>(t.mutable_raw_data()), t.byte_size()));
  }
  return t;
}

// Exact equality of dtype, shape and bytes, except that NaNs compare equal to NaNs.
inline ::testing::AssertionResult same_tensor(const Tensor& gpu, const Tensor& cpu) {
  if (gpu.dtype() != cpu.dtype() || gpu.shape() != cpu.shape()) {
    return ::testing::AssertionFailure()
           << "gpu " << gpu.to_string() << " vs cpu " << cpu.to_string();
  }
  const auto* g = static_cast<const unsigned char*>(gpu.raw_data());
  const auto* c = static_cast<const unsigned char*>(cpu.raw_data());
  const size_t size = dtype_size(cpu.dtype());
  for (int64_t i = 0; i < cpu.element_count(); ++i) {
    bool same = std::equal(g + i * size, g + (i + 1) * size, c + i * size);
    if (!same && cpu.dtype() == DataType::Float32) {
      const float x = gpu.data<float>()[i], y = cpu.data<float>()[i];
      same = x != x && y != y;
    }
    if (!same) {
      return ::testing::AssertionFailure() << "element " << i << " differs: gpu "
                                           << gpu.to_string(64) << " vs cpu " << cpu.to_string(64);
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace kiln::vulkan
