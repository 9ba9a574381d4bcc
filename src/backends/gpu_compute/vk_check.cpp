#include "backends/gpu_compute/vk_check.h"

#include <string>

#include "kiln/error.h"

namespace kiln::gpu_compute {

const char* result_name(VkResult result) {
  switch (result) {
#define KILN_VK_RESULT(name) \
  case name:                 \
    return #name;
    KILN_VK_RESULT(VK_SUCCESS)
    KILN_VK_RESULT(VK_NOT_READY)
    KILN_VK_RESULT(VK_TIMEOUT)
    KILN_VK_RESULT(VK_EVENT_SET)
    KILN_VK_RESULT(VK_EVENT_RESET)
    KILN_VK_RESULT(VK_INCOMPLETE)
    KILN_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    KILN_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    KILN_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    KILN_VK_RESULT(VK_ERROR_DEVICE_LOST)
    KILN_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    KILN_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    KILN_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    KILN_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    KILN_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    KILN_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    KILN_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    KILN_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    KILN_VK_RESULT(VK_ERROR_UNKNOWN)
    KILN_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    KILN_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    KILN_VK_RESULT(VK_ERROR_FRAGMENTATION)
    KILN_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
#undef KILN_VK_RESULT
    default:
      return nullptr;
  }
}

void throw_vk_error(const char* call, VkResult result) {
  const char* name = result_name(result);
  throw Error(std::string(call) + " failed: " +
              (name ? std::string(name) : "VkResult " + std::to_string(static_cast<int>(result))));
}

}  // namespace kiln::gpu_compute
