// A headless Vulkan instance and one compute-capable device: the root object of the GPU-compute
// backend. Every other Vulkan object (buffers, pipelines, command buffers) borrows it.
//
//   kiln::gpu_compute::Device device;                      // best device, or
//   KILN_GPU_COMPUTE_DEVICE std::cout << device.info().name << "\n";
//
// Environment:
//   KILN_GPU_COMPUTE_DEVICE=1 | =llvmpipe   pick a device by index or by a name substring
//   KILN_VULKAN_VALIDATION=1           enable the Khronos validation layer when installed; its
//                                      messages are collected in validation_messages()
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "backends/gpu_compute/hazard_tracker.h"
#include "backends/gpu_compute/pipeline_cache.h"
#include "kernels/device_counters.h"

namespace kiln::gpu_compute {

class NodeRecording;

// Ordered by preference: a discrete GPU beats an integrated one, and a CPU implementation
// (lavapipe) is the last resort that still runs everywhere.
enum class DeviceType { Discrete, Integrated, Virtual, Cpu, Other };
const char* to_string(DeviceType type);

struct DeviceInfo {
  std::string name;
  DeviceType type = DeviceType::Other;
  uint32_t api_version = 0;               // VK_MAKE_API_VERSION-encoded
  uint64_t max_storage_buffer_range = 0;  // bytes one storage-buffer binding may span
  uint32_t subgroup_size = 0;             // 0 when the device predates Vulkan 1.1
  bool has_compute_queue = false;
  bool has_int64 = false;    // shaderInt64, enabled on the device when present
  bool has_float64 = false;  // shaderFloat64, enabled on the device when present (Device only)

  // Vulkan 1.2 and a compute queue: what this backend requires.
  bool usable() const;
  std::string api_version_string() const;  // "1.3.230"
};

// Picks one of `devices` (in vkEnumeratePhysicalDevices order). An empty `selector` takes the
// most preferred usable type; otherwise it is an index or a case-insensitive name substring.
// Throws kiln::Error "no Vulkan device" when there is nothing usable, and an error listing the
// devices when the selector matches none or an unusable one.
size_t select_device(const std::vector<DeviceInfo>& devices, std::string_view selector);

// Every physical device of a fresh Vulkan instance, for listing (kiln::list_devices).
struct DeviceSurvey {
  std::vector<DeviceInfo> devices;
  std::vector<VkPhysicalDeviceLimits> limits;  // per device
  std::vector<bool> has_float64;               // shaderFloat64, per device
  size_t preferred = 0;  // what an empty selector picks; devices.size() when none is usable
  std::string error;     // why there is no device at all (no loader, no driver), else empty
};
DeviceSurvey survey_devices();

struct DeviceOptions {
  // Index or name substring; takes precedence over KILN_GPU_COMPUTE_DEVICE when not empty.
  std::string select;
  // Enable the validation layer even without KILN_VULKAN_VALIDATION=1 (if it is installed).
  bool validation = false;
};

class Device {
 public:
  explicit Device(const DeviceOptions& options = {});
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const { return info_; }
  const VkPhysicalDeviceLimits& limits() const { return limits_; }

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical_device() const { return physical_device_; }
  VkDevice handle() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  // Command pools and queues are externally synchronized in Vulkan: hold this lock while
  // allocating from command_pool() or submitting to queue().
  std::mutex& submit_mutex() { return submit_mutex_; }
  VkCommandPool command_pool() const { return command_pool_; }
  // Compiled pipelines, loaded from and saved to disk (see pipeline_cache.h).
  VkPipelineCache pipeline_cache() const { return cache_ ? cache_->handle() : VK_NULL_HANDLE; }

  // A memory type index allowed by `type_bits` with all `required` flags, preferring one that
  // also has `preferred`; kiln::Error when none has `required`.
  uint32_t find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                            VkMemoryPropertyFlags preferred = 0) const;

  // What the dispatches recorded since the last barrier touch (hazard_tracker.h); used under
  // the command stream's lock.
  HazardTracker& hazards() { return hazards_; }

  // The recording that notes what the node being recorded does, to replay it later
  // (node_replay.h); null when none is. Used under the command stream's lock.
  NodeRecording* capture() const { return capture_; }
  void set_capture(NodeRecording* recording) { capture_ = recording; }

  // What was asked of this device (dispatches, barriers, submissions, transfers).
  DeviceWorkCounters& counters() { return counters_; }
  const DeviceWorkCounters& counters() const { return counters_; }

  bool validation_enabled() const { return messenger_ != VK_NULL_HANDLE; }
  // Warnings and errors reported by the validation layer so far ("[error] ..." / "[warning] ...").
  std::vector<std::string> validation_messages() const;
  void clear_validation_messages();

 private:
  void create(const DeviceOptions& options);
  void destroy() noexcept;
  static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void* user);

  DeviceInfo info_;
  VkPhysicalDeviceLimits limits_{};
  VkPhysicalDeviceMemoryProperties memory_{};
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  std::unique_ptr<PipelineCache> cache_;
  std::mutex submit_mutex_;
  DeviceWorkCounters counters_;
  HazardTracker hazards_;
  NodeRecording* capture_ = nullptr;
  mutable std::mutex messages_mutex_;
  std::vector<std::string> messages_;
};

// The validation messages of every device this process has created (a worker's device too).
std::vector<std::string> validation_messages_of_all_devices();
void clear_validation_messages_of_all_devices();

}  // namespace kiln::gpu_compute
