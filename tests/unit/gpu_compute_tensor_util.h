// Moving kiln tensors to and from GPU buffers in the Vulkan tests. Bytes move as they are, so
// bool tensors (one byte per element) land in the packed layout the shaders use; buffers round
// up to whole 32-bit words.
#pragma once

#include <span>

#include "backends/gpu_compute/buffer.h"
#include "kiln/kiln.h"

namespace kiln::gpu_compute {

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

}  // namespace kiln::gpu_compute
