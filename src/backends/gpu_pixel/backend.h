// The GPU-pixel backend as the runtime sees it (kernels/device_backend.h): nodes whose op the op
// table covers draw into textures with fragment shaders.
#pragma once

#include <memory>
#include <string_view>

#include "kernels/device_backend.h"

namespace kiln::gpu_pixel {

// `device`: an EGL device index or a renderer-name substring (see devices.h); empty takes the
// first display that works. KILN_GPU_PIXEL_DEVICE, when set, overrides it.
std::unique_ptr<DeviceBackend> make_backend(std::string_view device = {});

}  // namespace kiln::gpu_pixel
