#include "backends/gpu_pixel/backend.h"

#include <cstdlib>

#include "backends/gpu_pixel/devices.h"

#include "backends/gpu_common/op_table_kernel.h"
#include "backends/gpu_pixel/loop_budget.h"
#include "backends/gpu_pixel/ops/op_table.h"
#include "backends/gpu_pixel/runtime.h"
#include "backends/gpu_pixel/texel_dtype.h"
#include "backends/gpu_pixel/timer_queries.h"

namespace kiln::gpu_pixel {
namespace {

// Textures hold float32 and the dtypes exact in float32, and int32, uint32 and int64 in integer
// textures (texel_dtype.h): a node with outputs of another known dtype (float64, ...) stays on
// the CPU. Which dtypes each op writes is its factory's business: the float ops take float32
// inputs and write float32, the others check their own.
BackendPlacementRule texel_outputs(int mantissa_bits) {
  return [mantissa_bits](const DevicePlacementQuery& query, std::string& reason) {
    for (size_t k = 0; k < query.output_types.size(); ++k) {
      const DataType t = query.output_types[k];
      if (query.info.has_output(k) && t != DataType::Undefined && !texel_holds(t, mantissa_bits)) {
        reason = std::string(dtype_name(t)) +
                 " outputs stay on the CPU (textures hold the dtypes exact in float32, int32, "
                 "uint32 and int64)";
        return false;
      }
    }
    return true;
  };
}

RecordSession<OpRecorder> draw_session(std::shared_ptr<Runtime> runtime) {
  return [runtime](DeviceOpRun& run, const RecordFn& record) {
    // The context is current on one thread at a time: this job's, while it draws.
    Context::Scope scope(runtime->context());
    RecordingTimer timer(runtime->context().counters());
    OpRecorder recorder(runtime, run);
    record(recorder);
  };
}

class PixelBackend final : public DeviceBackend {
 public:
  explicit PixelBackend(const ContextOptions& options)
      : runtime_(std::make_shared<Runtime>(options)) {}

  Backend kind() const override { return Backend::GpuPixel; }

  std::string description() const override {
    const ContextInfo& info = runtime_->context().info();
    std::string loops;
    if (info.max_fragment_loop_steps != kUnlimitedLoopSteps) {
      loops =
          ", fragment loops cut at " + std::to_string(info.max_fragment_loop_steps) + " iterations";
    }
    return info.renderer + " (OpenGL ES " + std::to_string(info.gl_major) + "." +
           std::to_string(info.gl_minor) + ", " + to_string(info.format) + " textures, " +
           std::to_string(info.mantissa_bits) + "-bit mantissa, max texture " +
           std::to_string(info.max_texture_size) + loops + ")";
  }

  std::unique_ptr<DeviceKernel> compile(const DevicePlacementQuery& query,
                                        std::string& reason) override {
    return compile_from_table(op_table(), query, reason, draw_session(runtime_),
                              texel_outputs(runtime_->context().info().mantissa_bits));
  }

  void flush() override {
    Context::Scope scope(runtime_->context());
    glFlush();
    DeviceWorkCounters::add(runtime_->context().counters().submissions);
  }

  std::optional<FusedConvCoverage> fused_conv_coverage() const override {
    return gpu_pixel::fused_conv_coverage();
  }

  const DeviceWorkCounters& counters() const override { return runtime_->context().counters(); }

  bool record_timed(DeviceKernel& kernel, DeviceOpRun& run, uint32_t id) override {
    Context::Scope scope(runtime_->context());  // nothing else draws between the queries
    if (!timer_) timer_ = std::make_unique<TimerQueries>(runtime_->context());
    if (!timer_->supported()) return kernel.record(run);
    timer_->begin(id);
    bool recorded = false;
    try {
      recorded = kernel.record(run);
    } catch (...) {
      timer_->end(false);
      throw;
    }
    timer_->end(recorded);
    return recorded;
  }

  DeviceTimings take_timings() override {
    if (!timer_ || !timer_->supported()) return {};
    return timer_->take();
  }

  ~PixelBackend() override { timer_.reset(); }

 private:
  std::shared_ptr<Runtime> runtime_;
  std::unique_ptr<TimerQueries> timer_;  // created by the first profiled layer
};

}  // namespace

std::unique_ptr<DeviceBackend> make_backend(std::string_view device) {
  ContextOptions options;
  const char* env = std::getenv("KILN_GPU_PIXEL_DEVICE");
  options.device = select_device(env && *env ? std::string_view(env) : device);
  return std::make_unique<PixelBackend>(options);
}

}  // namespace kiln::gpu_pixel
