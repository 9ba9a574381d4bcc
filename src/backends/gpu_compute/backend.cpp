#include "backends/gpu_compute/backend.h"

#include <cstdlib>
#include <string>

#include "backends/gpu_common/op_table_kernel.h"
#include "backends/gpu_compute/context.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/timestamps.h"

namespace kiln::gpu_compute {
namespace {

RecordSession<OpRecorder> dispatch_session(std::shared_ptr<Context> context) {
  return [context](DeviceOpRun& run, const RecordFn& record) {
    auto lock = context->stream.lock();
    RecordingTimer timer(context->device.counters());
    OpRecorder recorder(context, run);
    record(recorder);
    // Its work counts toward splitting the stream into submissions.
    context->stream.dispatched(recorder.work());
  };
}

class GpuComputeBackend final : public DeviceBackend {
 public:
  explicit GpuComputeBackend(const DeviceOptions& options)
      : context_(std::make_shared<Context>(options)) {}

  Backend kind() const override { return Backend::GpuCompute; }

  std::string description() const override {
    const DeviceInfo& info = context_->device.info();
    return info.name + " (" + to_string(info.type) + ", Vulkan " + info.api_version_string() + ")";
  }

  const DeviceWorkCounters& counters() const override { return context_->device.counters(); }

  std::unique_ptr<DeviceKernel> compile(const DevicePlacementQuery& query,
                                        std::string& reason) override {
    return compile_from_table(op_table(), query, reason, dispatch_session(context_));
  }

  void flush() override {
    auto lock = context_->stream.lock();
    context_->stream.submit();
  }

  bool record_timed(DeviceKernel& kernel, DeviceOpRun& run, uint32_t id) override {
    auto lock = context_->stream.lock();  // nothing else records between the timestamps
    if (!timestamps_)
      timestamps_ = std::make_unique<Timestamps>(context_->device, context_->stream);
    if (!timestamps_->supported()) return kernel.record(run);
    timestamps_->begin(id);
    bool recorded = false;
    try {
      recorded = kernel.record(run);
    } catch (...) {
      timestamps_->end(false);
      throw;
    }
    timestamps_->end(recorded);
    return recorded;
  }

  DeviceTimings take_timings() override {
    if (!timestamps_ || !timestamps_->supported()) return {};
    return timestamps_->take();
  }

 private:
  std::shared_ptr<Context> context_;
  std::unique_ptr<Timestamps> timestamps_;  // created by the first profiled layer
};

}  // namespace

std::unique_ptr<DeviceBackend> make_backend(std::string_view device) {
  DeviceOptions options;
  const char* env = std::getenv("KILN_GPU_COMPUTE_DEVICE");
  options.select = env && *env ? std::string(env) : std::string(device);
  return std::make_unique<GpuComputeBackend>(options);
}

}  // namespace kiln::gpu_compute
