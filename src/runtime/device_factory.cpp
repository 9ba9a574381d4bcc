// Builds the device backend a Worker asks for, where this build has it.
#include "kernels/device_backend.h"

#if KILN_GPU_COMPUTE
#include "backends/gpu_compute/backend.h"
#endif
#if KILN_GPU_PIXEL
#include "backends/gpu_pixel/backend.h"
#endif

namespace kiln {

std::unique_ptr<DeviceBackend> make_device_backend(Backend backend, std::string_view device) {
  switch (backend) {
    case Backend::Cpu:
      return nullptr;
    case Backend::GpuCompute:
#if KILN_GPU_COMPUTE
      return gpu_compute::make_backend(device);
#else
      throw Error("backend gpu-compute is not available: this build of kiln has no Vulkan");
#endif
    case Backend::GpuPixel:
#if KILN_GPU_PIXEL
      return gpu_pixel::make_backend(device);
#else
      throw Error("backend gpu-pixel is not available: this build of kiln has no OpenGL ES");
#endif
  }
  throw Error("unknown backend");
}

}  // namespace kiln
