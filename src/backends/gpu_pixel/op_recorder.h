// What a GPU-pixel node's recording sees: inputs of the texture dtypes (texel_dtype.h) as textures
// (host values uploaded on first use and kept for the run, constants for the worker's life), host
// data of CPU-resident inputs, and new texture outputs. Used inside the context's Scope, one node
// at a time.
#pragma once

#include <initializer_list>

#include <memory>
#include <utility>
#include <vector>

#include "backends/gpu_pixel/runtime.h"
#include "backends/gpu_pixel/texture_data.h"
#include "kernels/device_backend.h"

namespace kiln::gpu_pixel {

using kiln::RunOnCpu;

class OpRecorder {
 public:
  OpRecorder(const std::shared_ptr<Runtime>& runtime, DeviceOpRun& run)
      : runtime_(runtime), run_(run) {}

  template <class Kernel>
  Kernel& kernel() {
    return runtime_->kernel<Kernel>();
  }

  size_t num_inputs() const { return run_.inputs.size(); }
  bool has_input(size_t k) const { return k < run_.inputs.size() && run_.inputs[k].defined(); }
  const Tensor& input(size_t k) const { return run_.inputs[k]; }
  // Input k's values on the host, for the index, shape and bound inputs a recording reads: an
  // integer tensor a draw made (ArgMax's indices, say) is downloaded first, which waits for it.
  const Tensor& host(size_t k);
  DataType dtype(size_t k) const { return run_.inputs[k].dtype(); }
  const Tensor& input_for_shape_rule(size_t k) const { return input(k); }  // run_inputs
  // The run's inputs for a definition's rule (as run_inputs gives them), with those listed in
  // `read_on_host` through host(): the index, shape and bound inputs whose values the rule reads,
  // which a draw may have made.
  std::vector<Tensor> rule_inputs(std::initializer_list<size_t> read_on_host);
  const Shape& shape(size_t k) const { return run_.inputs[k].shape(); }
  // Input k (of a dtype texel_holds takes) as a texture.
  const TextureTensor& texture(size_t k);
  size_t num_outputs() const { return run_.outputs.size(); }
  // A new texture for output k, whose elements are of `dtype` (the kernel writes only values of
  // it). RunOnCpu when it would not fit the device's textures.
  TextureTensor& output(size_t k, const Shape& shape, DataType dtype = DataType::Float32);
  // Output k as a new texture holding `value`, a host tensor of a dtype texel_holds takes
  // (Constant's value).
  void uploaded_output(size_t k, const Tensor& value);
  // Output k as the host tensor `value`: a value known while recording (Shape's, Size's), which
  // the CPU nodes and the caller read as it is, with no transfer, and draws upload on first use
  // (texture()).
  void host_output(size_t k, Tensor value) { run_.outputs[k] = std::move(value); }
  // A texture for intermediate values of this node, returned to the pool when it goes: floats,
  // or components of `format`.
  TextureTensor temporary(int64_t elements) { return TextureTensor(runtime_->context(), elements); }
  TextureTensor temporary(int64_t elements, TextureFormat format) {
    return TextureTensor(runtime_->context(), elements, format);
  }
  // Output k as input `source`'s texture under another shape, of its dtype (Reshape and friends).
  void output_view(size_t k, size_t source, const Shape& shape);

 private:
  std::shared_ptr<TextureData> new_texture(const Shape& shape, DataType dtype);

  const std::shared_ptr<Runtime>& runtime_;
  DeviceOpRun& run_;
  std::vector<Tensor> hosts_;  // host() downloads, kept for the node's recording
};

}  // namespace kiln::gpu_pixel
