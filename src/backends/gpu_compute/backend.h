// The GPU-compute backend as the runtime sees it (kernels/device_backend.h): nodes whose op the
// op table covers record Vulkan dispatches into the context's command stream.
#pragma once

#include <memory>
#include <string_view>

#include "kernels/device_backend.h"

namespace kiln::gpu_compute {

// `device`: an index or a name substring (see select_device); empty picks the preferred device.
// KILN_GPU_COMPUTE_DEVICE, when set, overrides it.
std::unique_ptr<DeviceBackend> make_backend(std::string_view device = {});

}  // namespace kiln::gpu_compute
