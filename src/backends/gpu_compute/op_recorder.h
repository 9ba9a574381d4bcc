// What a GPU-compute node's recording sees: its inputs as device buffers (host values uploaded
// on first use and kept for the run, constants for the worker's life), new device outputs, and
// the command stream to record into. One OpRecorder per node per run, used under the stream's
// lock.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "backends/gpu_compute/context.h"
#include "backends/gpu_compute/device_tensor.h"
#include "kernels/device_backend.h"

namespace kiln::gpu_compute {

using kiln::RunOnCpu;

class OpRecorder {
 public:
  OpRecorder(const std::shared_ptr<Context>& context, DeviceOpRun& run)
      : context_(context), run_(run) {}

  Context& context() { return *context_; }
  Device& device() { return context_->device; }
  VkCommandBuffer cmd() { return context_->stream.cmd(); }
  DescriptorArena& arena() { return context_->stream.arena(); }
  template <class Kernel>
  Kernel& kernel() {
    return context_->kernel<Kernel>();
  }

  size_t num_inputs() const { return run_.inputs.size(); }
  bool has_input(size_t k) const { return k < run_.inputs.size() && run_.inputs[k].defined(); }
  // Shape and dtype of any input; host data of host inputs (CPU-resident values, constants).
  const Tensor& input(size_t k) const { return run_.inputs[k]; }
  const Shape& shape(size_t k) const { return run_.inputs[k].shape(); }
  DataType dtype(size_t k) const { return run_.inputs[k].dtype(); }
  // Input k on the device.
  const Buffer& buffer(size_t k);

  size_t num_outputs() const { return run_.outputs.size(); }
  // A new device tensor for output k (allocated even when the graph does not use it, so
  // kernels always have somewhere to write).
  const Buffer& output(size_t k, DataType dtype, const Shape& shape);
  // Output k as input `source`'s device data under another shape (Reshape and friends).
  void output_view(size_t k, size_t source, const Shape& shape);
  // The same, its bytes read as `dtype` (BitCast): the caller checks the element sizes match.
  void output_view(size_t k, size_t source, const Shape& shape, DataType dtype);
  // Output k as a host tensor: a value known when recording (Shape's), which the CPU nodes that
  // read it take as it is and device nodes upload on first use.
  void host_output(size_t k, Tensor value) { run_.outputs[k] = std::move(value); }
  // A device copy of kernel-side host data (lookup tables), alive until the work using it is
  // done.
  const Buffer& upload(std::span<const std::byte> bytes);
  // An uninitialised device buffer for a kernel's intermediate values (LSTM's input projection
  // and cell state), alive until the work using it is done.
  const Buffer& scratch(size_t bytes);

  // The node's work, for splitting submissions: each output counts its elements; kernels that
  // do more per element (matrix products, convolutions) add their multiply-adds.
  void add_work(uint64_t units) { work_ += units; }
  uint64_t work() const { return work_; }

 private:
  void check_binding(size_t bytes) const;

  const std::shared_ptr<Context>& context_;
  DeviceOpRun& run_;
  uint64_t work_ = 0;
  std::vector<std::shared_ptr<DeviceTensor>>
      uploads_;  // and scratch; released when the recorder is
};

}  // namespace kiln::gpu_compute
