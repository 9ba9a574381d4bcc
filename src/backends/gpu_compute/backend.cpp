#include "backends/gpu_compute/backend.h"

#include <cstdlib>
#include <string>

#include "backends/gpu_common/op_table_kernel.h"
#include "backends/gpu_compute/context.h"
#include "backends/gpu_compute/node_replay.h"
#include "backends/gpu_compute/ops/op_table.h"
#include "backends/gpu_compute/timestamps.h"

namespace kiln::gpu_compute {
namespace {

bool replay_enabled() {
  const char* env = std::getenv("KILN_GPU_REPLAY");
  return !(env && std::string(env) == "0");
}

// One node's recording session. A run whose inputs match the node's previous recording replays
// it (node_replay.h) instead of running the kernel; otherwise the kernel records with a capture
// installed, and what it noted becomes the node's recording for the next run. The cache belongs
// to this node's session and is used only under the stream's lock. `replay` false
// (KILN_GPU_REPLAY=0) records every run afresh, for comparing the two.
RecordSession<OpRecorder> dispatch_session(std::shared_ptr<Context> context, bool replay,
                                           std::vector<bool> decides_shapes) {
  auto cache = std::make_shared<NodeReplayCache>();
  return [context, cache, replay, decides_shapes](DeviceOpRun& run, const RecordFn& record) {
    auto lock = context->stream.lock();
    DeviceWorkCounters& counters = context->device.counters();
    RecordingTimer timer(counters);
    OpRecorder recorder(context, run);
    if (const NodeRecording* recording = replay ? cache->match(run, *context) : nullptr) {
      recording->replay(recorder);
      DeviceWorkCounters::add(counters.nodes_replayed);
    } else {
      auto fresh = std::make_unique<NodeRecording>(decides_shapes);
      cache->forget();  // a recording that fails (RunOnCpu, an error) leaves none behind
      {
        CaptureScope capture(context->device, *fresh);
        record(recorder);
      }
      fresh->finish(run, *context, recorder.work());
      if (fresh->replayable()) cache->keep(std::move(fresh));
      DeviceWorkCounters::add(counters.nodes_recorded);
    }
    // Its work counts toward splitting the stream into submissions.
    context->stream.dispatched(recorder.work());
  };
}

class GpuComputeBackend final : public DeviceBackend {
 public:
  explicit GpuComputeBackend(const DeviceOptions& options)
      : context_(std::make_shared<Context>(options)), replay_(replay_enabled()) {}

  Backend kind() const override { return Backend::GpuCompute; }

  std::string description() const override {
    const DeviceInfo& info = context_->device.info();
    return info.name + " (" + to_string(info.type) + ", Vulkan " + info.api_version_string() + ")";
  }

  std::optional<FusedConvCoverage> fused_conv_coverage() const override {
    return gpu_compute::fused_conv_coverage();
  }

  const DeviceWorkCounters& counters() const override { return context_->device.counters(); }

  std::unique_ptr<DeviceKernel> compile(const DevicePlacementQuery& query,
                                        std::string& reason) override {
    return compile_from_table(op_table(), query, reason,
                              dispatch_session(context_, replay_, query.input_on_cpu));
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
  bool replay_;
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
