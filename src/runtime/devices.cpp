// kiln::list_devices: what the GPU backends report about every device they can see.
#include "kiln/device.h"

#if KILN_GPU_COMPUTE
#include "backends/gpu_compute/device.h"
#endif
#if KILN_GPU_PIXEL
#include "backends/gpu_pixel/devices.h"
#include "backends/gpu_pixel/loop_budget.h"
#endif

namespace kiln {
namespace {

std::string bytes_text(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30) && bytes % (uint64_t{1} << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (uint64_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

#if KILN_GPU_COMPUTE
void add_vulkan_devices(std::vector<DeviceInfo>& out) {
  const gpu_compute::DeviceSurvey survey = gpu_compute::survey_devices();
  if (survey.devices.empty()) {
    DeviceInfo d;
    d.backend = Backend::GpuCompute;
    d.name = "(no Vulkan device)";
    d.problem = survey.error.empty() ? "no Vulkan driver reports a device" : survey.error;
    out.push_back(std::move(d));
    return;
  }
  for (size_t i = 0; i < survey.devices.size(); ++i) {
    const gpu_compute::DeviceInfo& v = survey.devices[i];
    const VkPhysicalDeviceLimits& l = survey.limits[i];
    DeviceInfo d;
    d.backend = Backend::GpuCompute;
    d.index = static_cast<int>(i);
    d.name = v.name;
    d.type = gpu_compute::to_string(v.type);
    d.api = "Vulkan " + v.api_version_string();
    d.usable = v.usable();
    d.is_default = i == survey.preferred;
    if (!d.usable) d.problem = "needs Vulkan 1.2 and a compute queue";
    d.limits = {
        {"max storage buffer", bytes_text(v.max_storage_buffer_range)},
        {"max workgroup invocations", std::to_string(l.maxComputeWorkGroupInvocations)},
        {"max workgroup count x", std::to_string(l.maxComputeWorkGroupCount[0])},
        {"max push constants", std::to_string(l.maxPushConstantsSize) + " bytes"},
        {"max shared memory", bytes_text(l.maxComputeSharedMemorySize)},
        {"subgroup size", std::to_string(v.subgroup_size)},
    };
    d.precision = std::string("float32 storage and arithmetic; int64 ") +
                  (v.has_int64 ? "yes" : "no") + ", float64 " +
                  (survey.has_float64[i] ? "yes" : "no");
    out.push_back(std::move(d));
  }
}
#endif

#if KILN_GPU_PIXEL
void add_gl_devices(std::vector<DeviceInfo>& out) {
  const std::vector<gpu_pixel::DeviceReport> reports = gpu_pixel::survey_devices();
  bool default_marked = false;
  for (const gpu_pixel::DeviceReport& r : reports) {
    DeviceInfo d;
    d.backend = Backend::GpuPixel;
    d.index = r.index;
    d.usable = r.error.empty();
    if (!d.usable) {
      d.name = "(EGL device " + std::to_string(r.index) + ")";
      d.problem = r.error;
      out.push_back(std::move(d));
      continue;
    }
    const gpu_pixel::ContextInfo& info = r.info;
    d.name = info.renderer;
    d.type = info.vendor;
    d.api = info.version;
    // With no device given a worker takes the first display that works; on EGL's device list
    // that is the first usable one (the surfaceless platform shows the same driver).
    d.is_default = !default_marked;
    default_marked = true;
    d.limits = {
        {"max texture size", std::to_string(info.max_texture_size)},
        {"texture units", std::to_string(info.max_texture_units)},
        {"fragment uniform vectors", std::to_string(info.max_fragment_uniform_vectors)},
        {"fragment loop steps", info.max_fragment_loop_steps == gpu_pixel::kUnlimitedLoopSteps
                                    ? std::string("unlimited")
                                    : std::to_string(info.max_fragment_loop_steps)},
    };
    d.precision = std::string(gpu_pixel::to_string(info.format)) + " render targets, " +
                  std::to_string(info.mantissa_bits) + " mantissa bits (probe)";
    out.push_back(std::move(d));
  }
}
#endif

}  // namespace

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> devices;
#if KILN_GPU_COMPUTE
  add_vulkan_devices(devices);
#endif
#if KILN_GPU_PIXEL
  add_gl_devices(devices);
#endif
  return devices;
}

}  // namespace kiln
