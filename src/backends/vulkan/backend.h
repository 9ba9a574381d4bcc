// The GPU-compute backend as the runtime sees it (kernels/device_backend.h): nodes whose op the
// op table covers record Vulkan dispatches into the context's command stream.
#pragma once

#include <memory>

#include "kernels/device_backend.h"

namespace kiln::vulkan {

std::unique_ptr<DeviceBackend> make_backend();

}  // namespace kiln::vulkan
