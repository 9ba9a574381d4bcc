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
  // A replay of the node's recording needs the same values in the host inputs read here.
  const Tensor& input(size_t k) const;
  // The same for a definition's shape rule (run_inputs), which reads the values of only the
  // inputs whose contents decide shapes: only those are held to the same values for a replay.
  const Tensor& input_for_shape_rule(size_t k) const;
  const Shape& shape(size_t k) const { return run_.inputs[k].shape(); }
  // Float32 for a 16-bit float input while computing in float32 (below).
  DataType dtype(size_t k) const;
  // Input k on the device (converted to float32 while computing in float32).
  const Buffer& buffer(size_t k);

  // 16-bit floats computed in float32 (ops/float32_compute.h), as the CPU kernels compute them:
  // from here on, float16 and bfloat16 inputs read as float32 (dtype, buffer: converted on first
  // use), and output k asked for as float32 where narrow_to[k] is float16 or bfloat16 is float32
  // scratch, which narrow_outputs() rounds into the real output.
  void compute_in_float32(std::vector<DataType> narrow_to);
  void narrow_outputs();

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

  // A device tensor for an intermediate value the kernel reads on the host while it records (a
  // count that decides an output's shape): download_to_host(t) submits the work recorded so far
  // and waits for it. Reading it makes the node's recording unrepeatable (node_replay.h): the
  // node records afresh each run. Its buffer is device_buffer(t).
  Tensor read_back_tensor(DataType dtype, const Shape& shape);
  const Buffer& device_buffer(const Tensor& t) const;

  // The node's work, for splitting submissions: each output counts its elements; kernels that
  // do more per element (matrix products, convolutions) add their multiply-adds.
  void add_work(uint64_t units) { work_ += units; }
  uint64_t work() const { return work_; }

 private:
  void check_binding(size_t bytes) const;
  const Buffer& input_buffer(size_t k);  // buffer(k) without noting it for a replay

  bool widened(size_t k) const;

  const std::shared_ptr<Context>& context_;
  DeviceOpRun& run_;
  uint64_t work_ = 0;
  // Computing in float32: each input's float32 copy (once made) and the outputs to narrow.
  bool in_float32_ = false;
  std::vector<const Buffer*> wide_inputs_;
  std::vector<DataType> narrow_to_;
  struct NarrowOutput {
    size_t index;
    Shape shape;
    const Buffer* wide;
  };
  std::vector<NarrowOutput> pending_narrow_;
  std::vector<std::shared_ptr<DeviceTensor>>
      uploads_;  // and scratch; released when the recorder is
};

}  // namespace kiln::gpu_compute
