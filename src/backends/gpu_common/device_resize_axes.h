// Resize and Upsample on a device backend: each run's per-axis sizes and coordinates come from
// the op's definition (opdefs/resize.h), so every backend takes the same nodes and
// leaves the CPU kernel the inputs it rejects.
#pragma once

#include <vector>

#include "backends/gpu_common/node_resolution.h"
#include "kernels/device_backend.h"
#include "opdefs/resize.h"

namespace kiln {

class DeviceResizeAxes {
 public:
  // At load time, for a Resize or Upsample node.
  explicit DeviceResizeAxes(const NodeInfo& info)
      : config_(parse_resize_config(info, info.op_type() == "Upsample")), node_(info) {}

  const ResizeOptions& options() const { return config_.options; }

  // This run's axes, every one of the input's; RunOnCpu for inputs the CPU kernel rejects.
  template <class Recorder>
  std::vector<ResizeAxis> of_run(const Recorder& r) const {
    const std::vector<Tensor> inputs = run_inputs(r);
    return resolve_resize(config_, {*node_.node, inputs});
  }

 private:
  ResizeConfig config_;
  NodeRef node_;
};

}  // namespace kiln
