// Everything one GPU-compute worker shares on its device: the device, the memory pools, the
// command stream and the compiled kernels. Owned through a shared_ptr by the worker and by every
// device tensor, so a tensor the user keeps outlives its worker safely.
#pragma once

#include <memory>
#include <mutex>
#include <typeindex>
#include <unordered_map>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/command_stream.h"
#include "backends/gpu_compute/device.h"
#include "backends/gpu_compute/memory_pool.h"

namespace kiln::gpu_compute {

class Context {
 public:
  explicit Context(const DeviceOptions& options = {})
      : device(options),
        weights(device, MemoryUse::DeviceLocal),
        activations(device, MemoryUse::DeviceLocal),
        staging(device, MemoryUse::Staging, VkDeviceSize{16} << 20),
        stream(device) {}

  // A kernel object (one per family: its pipelines) created on first use. Kernels are
  // immutable after construction, so they may be used from any recording thread.
  template <class Kernel>
  Kernel& kernel() {
    std::lock_guard lock(kernels_mutex_);
    auto& slot = kernels_[std::type_index(typeid(Kernel))];
    if (!slot) slot = std::make_shared<Kernel>(device);
    return *static_cast<Kernel*>(slot.get());
  }

 private:
  std::mutex kernels_mutex_;

 public:
  // In this order so that destruction runs the other way: the stream waits for the device and
  // frees its batches first, then the kernels' pipelines, the pools, and the device last.
  Device device;
  MemoryPool weights;      // constants, uploaded once
  MemoryPool activations;  // values produced or uploaded per run
  MemoryPool staging;      // host-visible transfer buffers

 private:
  std::unordered_map<std::type_index, std::shared_ptr<void>> kernels_;

 public:
  CommandStream stream;
};

}  // namespace kiln::gpu_compute
