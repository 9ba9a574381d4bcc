#include "backends/gl/backend.h"

#include "backends/gl/ops/op_table.h"
#include "backends/gl/runtime.h"

namespace kiln::gl {
namespace {

class Kernel final : public DeviceKernel {
 public:
  Kernel(std::shared_ptr<Runtime> runtime, RecordFn record,
         std::vector<std::pair<size_t, std::vector<DataType>>> dtype_checks)
      : runtime_(std::move(runtime)),
        record_(std::move(record)),
        dtype_checks_(std::move(dtype_checks)) {}

  bool record(DeviceOpRun& run) override {
    if (!inputs_fit(run.inputs, dtype_checks_)) return false;
    // The context is current on one thread at a time: this job's, while it draws.
    Context::Scope scope(runtime_->context());
    OpRecorder recorder(runtime_, run);
    try {
      record_(recorder);
    } catch (const RunOnCpu&) {
      return false;
    }
    return true;
  }

 private:
  std::shared_ptr<Runtime> runtime_;
  RecordFn record_;
  std::vector<std::pair<size_t, std::vector<DataType>>> dtype_checks_;
};

class PixelBackend final : public DeviceBackend {
 public:
  PixelBackend() : runtime_(std::make_shared<Runtime>()) {}

  Backend kind() const override { return Backend::GpuPixel; }

  std::string description() const override {
    const ContextInfo& info = runtime_->context().info();
    return info.renderer + " (OpenGL ES " + std::to_string(info.gl_major) + "." +
           std::to_string(info.gl_minor) + ", " + to_string(info.format) + " textures, " +
           std::to_string(info.mantissa_bits) + "-bit mantissa, max texture " +
           std::to_string(info.max_texture_size) + ")";
  }

  std::unique_ptr<DeviceKernel> compile(const DevicePlacementQuery& query,
                                        std::string& reason) override {
    const ir::Node& node = query.info.node();
    if (!node.domain.empty() && node.domain != "ai.onnx") {
      reason = "no GPU kernel for domain " + node.domain;
      return nullptr;
    }
    if (query.output_on_cpu) {
      reason = "its output decides shapes, so it stays on the CPU";
      return nullptr;
    }
    for (size_t k = 0; k < query.output_types.size(); ++k) {
      const DataType t = query.output_types[k];
      if (query.info.has_output(k) && t != DataType::Float32 && t != DataType::Undefined) {
        reason = std::string(dtype_name(t)) + " outputs stay on the CPU (textures hold float32)";
        return nullptr;
      }
    }
    const OpFactory* factory = OpTable::global().find(node.op_type);
    if (!factory) {
      reason = "no GPU kernel for " + node.op_type;
      return nullptr;
    }
    RecordFn record = (*factory)(query, reason);
    if (!record) return nullptr;
    return std::make_unique<Kernel>(runtime_, std::move(record),
                                    std::move(query.deferred_dtype_checks));
  }

  void flush() override {
    Context::Scope scope(runtime_->context());
    glFlush();
  }

 private:
  std::shared_ptr<Runtime> runtime_;
};

}  // namespace

std::unique_ptr<DeviceBackend> make_backend() { return std::make_unique<PixelBackend>(); }

}  // namespace kiln::gl
