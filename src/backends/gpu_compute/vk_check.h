// Turns VkResult failures into kiln::Error so callers handle one kind of failure.
#pragma once

#include <vulkan/vulkan.h>

namespace kiln::gpu_compute {

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" and friends; nullptr for a code this build does not know.
const char* result_name(VkResult result);

// Throws kiln::Error "<call> failed: <VkResult name>".
[[noreturn]] void throw_vk_error(const char* call, VkResult result);

// `call` is the Vulkan function's name, so the message tells the user which step failed.
inline void vk_check(VkResult result, const char* call) {
  if (result != VK_SUCCESS) throw_vk_error(call, result);
}

}  // namespace kiln::gpu_compute
