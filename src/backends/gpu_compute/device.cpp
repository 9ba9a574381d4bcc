#include "backends/gpu_compute/device.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <span>

#include "backends/gpu_compute/vk_check.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

// Every device's validation messages, for tests of devices they cannot reach (a worker's).
struct MessageLog {
  std::mutex mutex;
  std::vector<std::string> messages;
};
MessageLog& process_log() {
  static MessageLog log;
  return log;
}

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";
constexpr uint32_t kRequiredApi = VK_API_VERSION_1_2;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

DeviceType device_type(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return DeviceType::Discrete;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return DeviceType::Integrated;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return DeviceType::Virtual;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return DeviceType::Cpu;
    default:
      return DeviceType::Other;
  }
}

// The first queue family with compute; UINT32_MAX when there is none.
uint32_t compute_queue_family(VkPhysicalDevice device) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
  for (uint32_t i = 0; i < count; ++i) {
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) return i;
  }
  return UINT32_MAX;
}

DeviceInfo describe(VkPhysicalDevice device) {
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(device, &props);
  DeviceInfo info;
  info.name = props.deviceName;
  info.type = device_type(props.deviceType);
  info.api_version = props.apiVersion;
  info.max_storage_buffer_range = props.limits.maxStorageBufferRange;
  info.has_compute_queue = compute_queue_family(device) != UINT32_MAX;
  // vkGetPhysicalDeviceProperties2 with a chained struct is only valid from Vulkan 1.1 on.
  if (props.apiVersion >= VK_API_VERSION_1_1) {
    VkPhysicalDeviceSubgroupProperties subgroup{};
    subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    VkPhysicalDeviceProperties2 props2{};
    props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props2.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(device, &props2);
    info.subgroup_size = subgroup.subgroupSize;
  }
  return info;
}

std::string list_devices(const std::vector<DeviceInfo>& devices) {
  std::string out;
  for (size_t i = 0; i < devices.size(); ++i) {
    out += "\n  " + std::to_string(i) + ": " + devices[i].name + " (" + to_string(devices[i].type) +
           ", Vulkan " + devices[i].api_version_string() +
           (devices[i].usable() ? "" : ", unusable: needs Vulkan 1.2 and a compute queue") + ")";
  }
  return out;
}

bool layer_installed(const char* name) {
  uint32_t count = 0;
  if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(count);
  if (vkEnumerateInstanceLayerProperties(&count, layers.data()) != VK_SUCCESS) return false;
  return std::any_of(layers.begin(), layers.end(), [&](const VkLayerProperties& l) {
    return std::strcmp(l.layerName, name) == 0;
  });
}

// A Vulkan 1.2 instance for kiln with `layers` and `extensions` enabled.
VkResult create_instance(std::span<const char* const> layers,
                         std::span<const char* const> extensions, VkInstance* instance) {
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "kiln";
  app.pEngineName = "kiln";
  app.apiVersion = kRequiredApi;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  // With the validation layer, its synchronization checks too: a missing barrier between a
  // dispatch and the one reading its output (hazard_tracker.h) is reported like any other error.
  const VkValidationFeatureEnableEXT enables[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features{};
  features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enables;
  if (!layers.empty()) info.pNext = &features;
  return vkCreateInstance(&info, nullptr, instance);
}

}  // namespace

DeviceSurvey survey_devices() {
  DeviceSurvey survey;
  uint32_t loader_version = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion(&loader_version) != VK_SUCCESS || loader_version < kRequiredApi) {
    survey.error = "the Vulkan loader is older than Vulkan 1.2";
    return survey;
  }
  VkInstance instance = VK_NULL_HANDLE;
  const VkResult created = create_instance({}, {}, &instance);
  if (created != VK_SUCCESS) {
    survey.error = "vkCreateInstance failed: " + std::string(result_name(created));
    return survey;
  }
  uint32_t count = 0;
  std::vector<VkPhysicalDevice> physical;
  if (vkEnumeratePhysicalDevices(instance, &count, nullptr) == VK_SUCCESS) {
    physical.resize(count);
    if (vkEnumeratePhysicalDevices(instance, &count, physical.data()) != VK_SUCCESS) count = 0;
    physical.resize(count);
  }
  for (VkPhysicalDevice d : physical) {
    survey.devices.push_back(describe(d));
    VkPhysicalDeviceProperties props{};
    vkGetPhysicalDeviceProperties(d, &props);
    survey.limits.push_back(props.limits);
    VkPhysicalDeviceFeatures features{};
    vkGetPhysicalDeviceFeatures(d, &features);
    survey.devices.back().has_int64 = features.shaderInt64 == VK_TRUE;
    survey.has_float64.push_back(features.shaderFloat64 == VK_TRUE);
  }
  vkDestroyInstance(instance, nullptr);
  survey.preferred = survey.devices.size();
  try {
    survey.preferred = select_device(survey.devices, "");
  } catch (const Error& e) {
    if (survey.devices.empty()) survey.error = e.what();
  }
  return survey;
}

const char* to_string(DeviceType type) {
  switch (type) {
    case DeviceType::Discrete:
      return "discrete GPU";
    case DeviceType::Integrated:
      return "integrated GPU";
    case DeviceType::Virtual:
      return "virtual GPU";
    case DeviceType::Cpu:
      return "CPU";
    default:
      return "other";
  }
}

bool DeviceInfo::usable() const { return api_version >= kRequiredApi && has_compute_queue; }

std::string DeviceInfo::api_version_string() const {
  return std::to_string(VK_API_VERSION_MAJOR(api_version)) + "." +
         std::to_string(VK_API_VERSION_MINOR(api_version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(api_version));
}

size_t select_device(const std::vector<DeviceInfo>& devices, std::string_view selector) {
  if (selector.empty()) {
    size_t best = devices.size();
    for (size_t i = 0; i < devices.size(); ++i) {
      if (!devices[i].usable()) continue;
      if (best == devices.size() || devices[i].type < devices[best].type) best = i;
    }
    if (best == devices.size()) {
      throw Error(devices.empty() ? "no Vulkan device: no Vulkan driver reports a device"
                                  : "no Vulkan device with Vulkan 1.2 and a compute queue; found:" +
                                        list_devices(devices));
    }
    return best;
  }
  size_t chosen = devices.size();
  const bool is_index = std::all_of(selector.begin(), selector.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  if (is_index) {
    const unsigned long index = selector.size() <= 9 ? std::stoul(std::string(selector)) : ~0UL;
    if (index < devices.size()) chosen = index;
  } else {
    const std::string needle = lower(selector);
    for (size_t i = 0; i < devices.size() && chosen == devices.size(); ++i) {
      if (lower(devices[i].name).find(needle) != std::string::npos) chosen = i;
    }
  }
  const std::string quoted = "Vulkan device selection \"" + std::string(selector) + "\"";
  if (devices.empty()) throw Error("no Vulkan device (" + quoted + " cannot match)");
  if (chosen == devices.size()) {
    throw Error(quoted + " matches no device; available:" + list_devices(devices));
  }
  if (!devices[chosen].usable()) {
    throw Error(quoted + " picks an unusable device; available:" + list_devices(devices));
  }
  return chosen;
}

Device::Device(const DeviceOptions& options) {
  try {
    create(options);
  } catch (...) {
    destroy();
    throw;
  }
}

Device::~Device() { destroy(); }

void Device::create(const DeviceOptions& options) {
  uint32_t loader_version = VK_API_VERSION_1_0;
  vk_check(vkEnumerateInstanceVersion(&loader_version), "vkEnumerateInstanceVersion");
  check(loader_version >= kRequiredApi,
        "no Vulkan device: the Vulkan loader is older than Vulkan 1.2");

  const bool want_validation = options.validation || env("KILN_VULKAN_VALIDATION") == "1";
  const bool validation = want_validation && layer_installed(kValidationLayer);
  std::vector<const char*> layers, extensions;
  if (validation) {
    layers.push_back(kValidationLayer);
    // The validation layer implements debug utils itself, so no driver needs to offer it.
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  }

  const VkResult created = create_instance(layers, extensions, &instance_);
  if (created == VK_ERROR_INCOMPATIBLE_DRIVER) {
    throw Error("no Vulkan device: no Vulkan driver is installed (vkCreateInstance failed: " +
                std::string(result_name(created)) + ")");
  }
  vk_check(created, "vkCreateInstance");

  if (validation) {
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    check(create_messenger != nullptr, "vkCreateDebugUtilsMessengerEXT is missing");
    VkDebugUtilsMessengerCreateInfoEXT messenger_info{};
    messenger_info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                     VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                 VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                 VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messenger_info.pfnUserCallback = &Device::on_message;
    messenger_info.pUserData = this;
    vk_check(create_messenger(instance_, &messenger_info, nullptr, &messenger_),
             "vkCreateDebugUtilsMessengerEXT");
  }

  uint32_t count = 0;
  vk_check(vkEnumeratePhysicalDevices(instance_, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> physical(count);
  vk_check(vkEnumeratePhysicalDevices(instance_, &count, physical.data()),
           "vkEnumeratePhysicalDevices");
  physical.resize(count);
  std::vector<DeviceInfo> infos;
  for (VkPhysicalDevice d : physical) infos.push_back(describe(d));

  const std::string selector =
      options.select.empty() ? env("KILN_GPU_COMPUTE_DEVICE") : options.select;
  const size_t index = select_device(infos, selector);
  physical_device_ = physical[index];
  info_ = infos[index];
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(physical_device_, &props);
  limits_ = props.limits;
  vkGetPhysicalDeviceMemoryProperties(physical_device_, &memory_);
  queue_family_ = compute_queue_family(physical_device_);

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = queue_family_;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  // Timeline semaphores let the host poll how far the queue has got without a fence per
  // submission; 64-bit integers in shaders serve int64 tensors where the device has them.
  VkPhysicalDeviceVulkan12Features supported12{};
  supported12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  VkPhysicalDeviceFeatures2 supported{};
  supported.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  supported.pNext = &supported12;
  vkGetPhysicalDeviceFeatures2(physical_device_, &supported);
  check(supported12.timelineSemaphore == VK_TRUE,
        "no Vulkan device: " + info_.name + " lacks timeline semaphores");
  VkPhysicalDeviceVulkan12Features enabled12{};
  enabled12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  enabled12.timelineSemaphore = VK_TRUE;
  VkPhysicalDeviceFeatures2 enabled{};
  enabled.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  enabled.pNext = &enabled12;
  enabled.features.shaderInt64 = supported.features.shaderInt64;
  info_.has_int64 = supported.features.shaderInt64 == VK_TRUE;
  // 64-bit floats in shaders serve the float64 kernels (CumSum, CumProd) where the device has
  // them.
  enabled.features.shaderFloat64 = supported.features.shaderFloat64;
  info_.has_float64 = supported.features.shaderFloat64 == VK_TRUE;
  VkDeviceCreateInfo device_info{};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.pNext = &enabled;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  vk_check(vkCreateDevice(physical_device_, &device_info, nullptr, &device_), "vkCreateDevice");
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);

  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pool_info.queueFamilyIndex = queue_family_;
  vk_check(vkCreateCommandPool(device_, &pool_info, nullptr, &command_pool_),
           "vkCreateCommandPool");
  cache_ = std::make_unique<PipelineCache>(device_, physical_device_);
}

void Device::destroy() noexcept {
  if (device_) {
    vkDeviceWaitIdle(device_);
    if (command_pool_) vkDestroyCommandPool(device_, command_pool_, nullptr);
    cache_.reset();  // saves it
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_) {
    auto destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy_messenger) destroy_messenger(instance_, messenger_, nullptr);
  }
  if (instance_) vkDestroyInstance(instance_, nullptr);
  command_pool_ = VK_NULL_HANDLE;
  device_ = VK_NULL_HANDLE;
  messenger_ = VK_NULL_HANDLE;
  instance_ = VK_NULL_HANDLE;
}

uint32_t Device::find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                                  VkMemoryPropertyFlags preferred) const {
  uint32_t fallback = UINT32_MAX;
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags flags = memory_.memoryTypes[i].propertyFlags;
    if (!(type_bits & (1u << i)) || (flags & required) != required) continue;
    if ((flags & preferred) == preferred) return i;
    if (fallback == UINT32_MAX) fallback = i;
  }
  check(fallback != UINT32_MAX, "Vulkan device " + info_.name + " has no suitable memory type");
  return fallback;
}

std::vector<std::string> Device::validation_messages() const {
  std::lock_guard lock(messages_mutex_);
  return messages_;
}

void Device::clear_validation_messages() {
  std::lock_guard lock(messages_mutex_);
  messages_.clear();
}

VKAPI_ATTR VkBool32 VKAPI_CALL Device::on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                  VkDebugUtilsMessageTypeFlagsEXT,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                  void* user) {
  auto* self = static_cast<Device*>(user);
  const char* level =
      severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "[error] " : "[warning] ";
  const std::string message = level + std::string(data && data->pMessage ? data->pMessage : "");
  {
    std::lock_guard lock(self->messages_mutex_);
    self->messages_.push_back(message);
  }
  MessageLog& log = process_log();
  std::lock_guard lock(log.mutex);
  log.messages.push_back(message);
  return VK_FALSE;  // never abort the call that triggered the message
}

std::vector<std::string> validation_messages_of_all_devices() {
  MessageLog& log = process_log();
  std::lock_guard lock(log.mutex);
  return log.messages;
}

void clear_validation_messages_of_all_devices() {
  MessageLog& log = process_log();
  std::lock_guard lock(log.mutex);
  log.messages.clear();
}

}  // namespace kiln::gpu_compute
