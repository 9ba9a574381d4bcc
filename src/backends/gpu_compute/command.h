// Synchronous one-shot submission: record, submit, wait on a fence. The simple path for uploads,
// readbacks and tests; the executor's asynchronous path (timeline semaphores) comes later.
#pragma once

#include <vulkan/vulkan.h>

#include <functional>

#include "backends/gpu_compute/device.h"

namespace kiln::gpu_compute {

// Records with `record` into a fresh primary command buffer, submits it to the device's queue
// and blocks until the GPU is done. Vulkan failures (device lost, timeout) throw kiln::Error.
void submit_and_wait(Device& device, const std::function<void(VkCommandBuffer)>& record);

}  // namespace kiln::gpu_compute
