#include "backends/vulkan/backend.h"

#include "backends/vulkan/context.h"
#include "backends/vulkan/ops/op_table.h"

namespace kiln::vulkan {
namespace {

class Kernel final : public DeviceKernel {
 public:
  Kernel(std::shared_ptr<Context> context, RecordFn record,
         std::vector<std::pair<size_t, std::vector<DataType>>> dtype_checks)
      : context_(std::move(context)),
        record_(std::move(record)),
        dtype_checks_(std::move(dtype_checks)) {}

  bool record(DeviceOpRun& run) override {
    if (!inputs_fit(run.inputs, dtype_checks_)) return false;
    auto lock = context_->stream.lock();
    OpRecorder recorder(context_, run);
    try {
      record_(recorder);
    } catch (const RunOnCpu&) {
      return false;
    }
    context_->stream.dispatched(recorder.work());
    return true;
  }

 private:
  std::shared_ptr<Context> context_;
  RecordFn record_;
  std::vector<std::pair<size_t, std::vector<DataType>>> dtype_checks_;
};

class VulkanBackend final : public DeviceBackend {
 public:
  VulkanBackend() : context_(std::make_shared<Context>()) {}

  Backend kind() const override { return Backend::GpuCompute; }

  std::string description() const override {
    const DeviceInfo& info = context_->device.info();
    return info.name + " (" + to_string(info.type) + ", Vulkan " + info.api_version_string() + ")";
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
    const OpFactory* factory = OpTable::global().find(node.op_type);
    if (!factory) {
      reason = "no GPU kernel for " + node.op_type;
      return nullptr;
    }
    RecordFn record = (*factory)(query, reason);
    if (!record) return nullptr;
    return std::make_unique<Kernel>(context_, std::move(record),
                                    std::move(query.deferred_dtype_checks));
  }

  void flush() override {
    auto lock = context_->stream.lock();
    context_->stream.submit();
  }

 private:
  std::shared_ptr<Context> context_;
};

}  // namespace

std::unique_ptr<DeviceBackend> make_backend() { return std::make_unique<VulkanBackend>(); }

}  // namespace kiln::vulkan
