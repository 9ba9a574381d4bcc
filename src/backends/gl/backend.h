// The GPU-pixel backend as the runtime sees it (kernels/device_backend.h): nodes whose op the op
// table covers draw into textures with fragment shaders.
#pragma once

#include <memory>

#include "kernels/device_backend.h"

namespace kiln::gl {

std::unique_ptr<DeviceBackend> make_backend();

}  // namespace kiln::gl
