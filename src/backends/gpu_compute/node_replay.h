// Replaying a node's recording instead of running its kernel again. A run whose inputs match the
// node's previous run (same shapes and dtypes, the same inputs on the device, and the same bytes
// in every host input the kernel read on the CPU) gets the same dispatches from the same
// pipelines with the same push constants; only the buffers differ, because every run takes new
// device memory for its values. So the first recording notes what the kernel did — which inputs
// it bound, which outputs and scratch buffers it made, every dispatch's pipeline, push constants,
// grid and bindings (by role: input k, output k, scratch n) — and a matching run repeats exactly
// that with this run's buffers, skipping the kernel's planning. The hazard tracker decides the
// barriers of a replay afresh, as for any dispatch, so work recorded around it in another order
// (other nodes, CPU nodes between, another run in flight) stays ordered.
//
// Anything the notes cannot repeat makes the recording unreplayable, and the node records
// afresh each run: a dispatch binding a buffer of no known role, an output the kernel set without
// the recorder, a download, an input from another device. See docs/architecture.md.
//
// Used under the command stream's lock (which serialises all recording of a context).
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <variant>
#include <vector>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/pipeline.h"
#include "kernels/device_backend.h"

namespace kiln::gpu_compute {

class Context;
class OpRecorder;

// Which of a node's buffers a binding is, so a replay binds this run's buffer in its place.
struct BufferRole {
  enum class Kind : uint8_t { Input, Output, Scratch, Upload };
  Kind kind = Kind::Input;
  uint32_t index = 0;  // input or output number, or the n-th scratch or upload of the node
};

class NodeRecording {
 public:
  // `decides_shapes[k]`: input k's contents decide shapes (DevicePlacementQuery::input_on_cpu).
  explicit NodeRecording(std::vector<bool> decides_shapes)
      : decides_shapes_(std::move(decides_shapes)) {}

  // While the kernel records (through OpRecorder and record_dispatch): what it asks for, in order.
  void note_input_buffer(size_t k, const Buffer& buffer);
  void note_output(size_t k, DataType dtype, const Shape& shape, const Buffer& buffer);
  void note_output_view(size_t k, size_t source, const Shape& shape, DataType dtype);
  void note_scratch(size_t bytes, const Buffer& buffer);
  void note_upload(std::span<const std::byte> bytes, const Buffer& buffer);
  // The kernel read input k's tensor (its values, if it is on the host).
  void note_host_read(size_t k) { host_read_.push_back(k); }
  // A definition's shape rule saw input k: it reads its values only when they decide shapes.
  void note_shape_rule_read(size_t k) {
    if (k < decides_shapes_.size() && decides_shapes_[k]) host_read_.push_back(k);
  }
  void note_set(VkDescriptorSet set, std::span<const Buffer* const> buffers);
  void note_dispatch(const ComputePipeline& pipeline, VkDescriptorSet set,
                     std::span<const std::byte> push_constants, GroupCount groups,
                     std::span<const Buffer* const> written);
  // Work the notes cannot repeat (a transfer other than an upload).
  void note_unrepeatable() { replayable_ = false; }

  // After the kernel returned: keys the recording by `run`'s inputs and checks every output came
  // from the notes. `work`: the recorder's work for splitting submissions.
  void finish(const DeviceOpRun& run, const Context& context, uint64_t work);
  bool replayable() const { return replayable_; }

  // Whether `run` would make the kernel record exactly what the notes say.
  bool matches(const DeviceOpRun& run, const Context& context) const;
  // Records the notes again with `recorder`'s inputs and new outputs.
  void replay(OpRecorder& recorder) const;

 private:
  struct InputBufferStep {
    uint32_t input;
  };
  struct OutputStep {
    uint32_t output;
    DataType dtype;
    Shape shape;
  };
  struct OutputViewStep {
    uint32_t output, source;
    DataType dtype;
    Shape shape;
  };
  struct ScratchStep {
    size_t bytes;
  };
  struct UploadStep {
    std::vector<std::byte> bytes;
  };
  struct DispatchStep {
    const ComputePipeline* pipeline;
    std::vector<std::byte> push_constants;
    GroupCount groups;
    std::vector<BufferRole> bound, written;
  };
  using Step = std::variant<InputBufferStep, OutputStep, OutputViewStep, ScratchStep, UploadStep,
                            DispatchStep>;

  // One input as the kernel saw it.
  struct InputKey {
    bool defined = false;
    bool on_device = false;  // a device tensor of this context
    DataType dtype = DataType::Undefined;
    Shape shape;
    bool compare_bytes = false;  // a non-constant host input the kernel read
    std::vector<std::byte> bytes;
  };

  void add_role(const Buffer& buffer, BufferRole role);
  bool role_of(const Buffer* buffer, BufferRole& role) const;

  std::vector<Step> steps_;
  std::vector<std::pair<const Buffer*, BufferRole>> roles_;                // while noting
  std::vector<std::pair<VkDescriptorSet, std::vector<BufferRole>>> sets_;  // while noting
  std::vector<bool> decides_shapes_;
  std::vector<size_t> host_read_;
  std::vector<InputKey> inputs_;
  uint32_t scratches_ = 0, uploads_ = 0;
  uint64_t output_work_ = 0;  // the work output steps count on their own
  uint64_t extra_work_ = 0;   // what the kernel added (multiply-adds)
  bool replayable_ = true;
};

// One node's latest recording, replayed while runs match it. Owned by the node's record session.
class NodeReplayCache {
 public:
  // The recording to replay for `run`, or nullptr: record afresh.
  const NodeRecording* match(const DeviceOpRun& run, const Context& context) const;
  void keep(std::unique_ptr<NodeRecording> recording) { latest_ = std::move(recording); }
  void forget() { latest_.reset(); }

 private:
  std::unique_ptr<NodeRecording> latest_;
};

// Installs `recording` as the device's capture for the scope of one fresh recording.
class CaptureScope {
 public:
  CaptureScope(Device& device, NodeRecording& recording);
  ~CaptureScope();
  CaptureScope(const CaptureScope&) = delete;
  CaptureScope& operator=(const CaptureScope&) = delete;

 private:
  Device& device_;
};

}  // namespace kiln::gpu_compute
