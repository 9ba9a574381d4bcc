#include "runtime/placement_check.h"

namespace kiln {
namespace {

class PlacementCheckedKernel final : public DeviceKernel {
 public:
  PlacementCheckedKernel(std::unique_ptr<DeviceKernel> kernel, std::string node,
                         std::string backend)
      : kernel_(std::move(kernel)), node_(std::move(node)), backend_(std::move(backend)) {}

  bool record(DeviceOpRun& run) override {
    if (kernel_->record(run)) return true;
    const RunTimeFallbackCount fallbacks = kernel_->run_time_fallbacks();
    // A device limit, and input values (sequence lengths, indices), stay run-time facts.
    if (fallbacks.last_cause == RunTimeCause::DeviceLimit ||
        fallbacks.last_cause == RunTimeCause::InputValues)
      return false;
    throw Error(node_ + " was placed on " + backend_ +
                " at load time with every input's shape and dtype known, but its kernel sent this "
                "run to the CPU (" +
                std::string(to_string(fallbacks.last_cause)) + ": " + fallbacks.last_reason +
                "): the kernel's load-time coverage must say so");
  }

  RunTimeFallbackCount run_time_fallbacks() const override { return kernel_->run_time_fallbacks(); }

 private:
  std::unique_ptr<DeviceKernel> kernel_;
  std::string node_;
  std::string backend_;
};

}  // namespace

std::unique_ptr<DeviceKernel> with_placement_check(std::unique_ptr<DeviceKernel> kernel,
                                                   std::string node_description,
                                                   std::string backend) {
  return std::make_unique<PlacementCheckedKernel>(std::move(kernel), std::move(node_description),
                                                  std::move(backend));
}

}  // namespace kiln
