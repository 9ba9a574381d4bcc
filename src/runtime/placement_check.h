// The drift check between load-time placement and the GPU kernels: a device node that its
// backend took at load time with every input's shape and dtype known (and the values that decide
// shapes) may go back to the CPU at run time only for a device limit or for input values it
// reads on the host. A shape or dtype it refuses then means the kernel's declared coverage and
// its recording disagree: the run fails with a kiln::Error naming the node. On with
// WorkerOptions::verify_shapes, beside the shape check.
#pragma once

#include <memory>
#include <string>

#include "kernels/device_backend.h"

namespace kiln {

std::unique_ptr<DeviceKernel> with_placement_check(std::unique_ptr<DeviceKernel> kernel,
                                                   std::string node_description,
                                                   std::string backend);

}  // namespace kiln
