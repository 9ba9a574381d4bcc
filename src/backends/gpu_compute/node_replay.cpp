#include "backends/gpu_compute/node_replay.h"

#include <cstring>

#include "backends/gpu_compute/context.h"
#include "backends/gpu_compute/descriptors.h"
#include "backends/gpu_compute/device_tensor.h"
#include "backends/gpu_compute/op_recorder.h"
#include "core/tensor_impl.h"

namespace kiln::gpu_compute {
namespace {

std::span<const std::byte> host_bytes(const Tensor& t) {
  return {static_cast<const std::byte*>(t.raw_data()), t.byte_size()};
}

}  // namespace

void NodeRecording::add_role(const Buffer& buffer, BufferRole role) {
  roles_.emplace_back(&buffer, role);
}

bool NodeRecording::role_of(const Buffer* buffer, BufferRole& role) const {
  for (const auto& [b, r] : roles_) {
    if (b == buffer) {
      role = r;
      return true;
    }
  }
  return false;
}

void NodeRecording::note_input_buffer(size_t k, const Buffer& buffer) {
  steps_.push_back(InputBufferStep{static_cast<uint32_t>(k)});
  add_role(buffer, {BufferRole::Kind::Input, static_cast<uint32_t>(k)});
}

void NodeRecording::note_output(size_t k, DataType dtype, const Shape& shape,
                                const Buffer& buffer) {
  steps_.push_back(OutputStep{static_cast<uint32_t>(k), dtype, shape});
  add_role(buffer, {BufferRole::Kind::Output, static_cast<uint32_t>(k)});
  output_work_ += static_cast<uint64_t>(shape.element_count());
}

void NodeRecording::note_output_view(size_t k, size_t source, const Shape& shape, DataType dtype) {
  steps_.push_back(
      OutputViewStep{static_cast<uint32_t>(k), static_cast<uint32_t>(source), dtype, shape});
}

void NodeRecording::note_scratch(size_t bytes, const Buffer& buffer) {
  steps_.push_back(ScratchStep{bytes});
  add_role(buffer, {BufferRole::Kind::Scratch, scratches_++});
}

void NodeRecording::note_upload(std::span<const std::byte> bytes, const Buffer& buffer) {
  // Kernel-side data (a lookup table) follows from what the key holds — attributes, shapes,
  // the host inputs it read — so the same bytes go up again on a replay.
  steps_.push_back(UploadStep{std::vector<std::byte>(bytes.begin(), bytes.end())});
  add_role(buffer, {BufferRole::Kind::Upload, uploads_++});
}

void NodeRecording::note_set(VkDescriptorSet set, std::span<const Buffer* const> buffers) {
  std::vector<BufferRole> roles(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!role_of(buffers[i], roles[i])) replayable_ = false;  // a buffer the notes cannot name
  }
  sets_.emplace_back(set, std::move(roles));
}

void NodeRecording::note_dispatch(const ComputePipeline& pipeline, VkDescriptorSet set,
                                  std::span<const std::byte> push_constants, GroupCount groups,
                                  std::span<const Buffer* const> written) {
  DispatchStep step{&pipeline,
                    std::vector<std::byte>(push_constants.begin(), push_constants.end()),
                    groups,
                    {},
                    {}};
  bool found = false;
  for (auto it = sets_.rbegin(); it != sets_.rend() && !found; ++it) {
    if (it->first == set) {
      step.bound = it->second;
      found = true;
    }
  }
  step.written.resize(written.size());
  for (size_t i = 0; i < written.size(); ++i) {
    if (!role_of(written[i], step.written[i])) found = false;
  }
  if (!found) replayable_ = false;  // a set made outside the node's arena, or an unnamed buffer
  steps_.push_back(std::move(step));
}

void NodeRecording::finish(const DeviceOpRun& run, const Context& context, uint64_t work) {
  roles_.clear();
  sets_.clear();
  extra_work_ = work >= output_work_ ? work - output_work_ : 0;
  inputs_.resize(run.inputs.size());
  for (size_t k = 0; k < run.inputs.size(); ++k) {
    const Tensor& t = run.inputs[k];
    InputKey& key = inputs_[k];
    key.defined = t.defined();
    if (!t.defined()) continue;
    if (t.kind() != ValueKind::Tensor) {
      replayable_ = false;
      continue;
    }
    key.on_device = device_tensor_of(t, context) != nullptr;
    // Another device's tensor comes over through the host: not worth repeating.
    if (!key.on_device && t.impl()->device) replayable_ = false;
    key.dtype = t.dtype();
    key.shape = t.shape();
  }
  for (size_t k : host_read_) {
    InputKey& key = inputs_[k];
    // Constants stay the same for the worker's life; other host values may change per run.
    if (!key.defined || key.on_device || run.inputs[k].impl()->device) continue;
    if (k < run.constant.size() && run.constant[k]) continue;
    key.compare_bytes = true;
    const auto bytes = host_bytes(run.inputs[k]);
    key.bytes.assign(bytes.begin(), bytes.end());
  }
  host_read_.clear();
  // Every output the kernel produced must come from a note, or a replay would miss it.
  std::vector<bool> noted(run.outputs.size(), false);
  for (const Step& s : steps_) {
    if (const auto* o = std::get_if<OutputStep>(&s)) noted[o->output] = true;
    if (const auto* v = std::get_if<OutputViewStep>(&s)) noted[v->output] = true;
  }
  for (size_t k = 0; k < run.outputs.size(); ++k) {
    if (run.outputs[k].defined() && !noted[k]) replayable_ = false;
  }
}

bool NodeRecording::matches(const DeviceOpRun& run, const Context& context) const {
  if (!replayable_ || run.inputs.size() != inputs_.size()) return false;
  for (size_t k = 0; k < inputs_.size(); ++k) {
    const Tensor& t = run.inputs[k];
    const InputKey& key = inputs_[k];
    if (t.defined() != key.defined) return false;
    if (!t.defined()) continue;
    if (t.kind() != ValueKind::Tensor || t.dtype() != key.dtype || t.shape() != key.shape)
      return false;
    const bool on_device = device_tensor_of(t, context) != nullptr;
    if (on_device != key.on_device || (!on_device && t.impl()->device)) return false;
    if (key.compare_bytes) {
      const auto bytes = host_bytes(t);
      if (bytes.size() != key.bytes.size() ||
          (!bytes.empty() && std::memcmp(bytes.data(), key.bytes.data(), bytes.size()) != 0))
        return false;
    }
  }
  return true;
}

void NodeRecording::replay(OpRecorder& recorder) const {
  std::vector<const Buffer*> inputs(recorder.num_inputs(), nullptr);
  std::vector<const Buffer*> outputs(recorder.num_outputs(), nullptr);
  std::vector<const Buffer*> scratches, uploads;
  auto resolve = [&](BufferRole role) -> const Buffer* {
    switch (role.kind) {
      case BufferRole::Kind::Input:
        return inputs[role.index];
      case BufferRole::Kind::Output:
        return outputs[role.index];
      case BufferRole::Kind::Scratch:
        return scratches[role.index];
      case BufferRole::Kind::Upload:
        return uploads[role.index];
    }
    return nullptr;
  };
  std::vector<const Buffer*> bound, written;
  for (const Step& s : steps_) {
    if (const auto* in = std::get_if<InputBufferStep>(&s)) {
      inputs[in->input] = &recorder.buffer(in->input);
    } else if (const auto* out = std::get_if<OutputStep>(&s)) {
      outputs[out->output] = &recorder.output(out->output, out->dtype, out->shape);
    } else if (const auto* view = std::get_if<OutputViewStep>(&s)) {
      recorder.output_view(view->output, view->source, view->shape, view->dtype);
    } else if (const auto* scratch = std::get_if<ScratchStep>(&s)) {
      scratches.push_back(&recorder.scratch(scratch->bytes));
    } else if (const auto* up = std::get_if<UploadStep>(&s)) {
      uploads.push_back(&recorder.upload(up->bytes));
    } else if (const auto* d = std::get_if<DispatchStep>(&s)) {
      bound.clear();
      written.clear();
      for (BufferRole r : d->bound) bound.push_back(resolve(r));
      for (BufferRole r : d->written) written.push_back(resolve(r));
      const VkDescriptorSet set = recorder.arena().bind(*d->pipeline, bound);
      record_dispatch(recorder.cmd(), *d->pipeline, set, d->push_constants, d->groups, written);
    }
  }
  recorder.add_work(extra_work_);
}

const NodeRecording* NodeReplayCache::match(const DeviceOpRun& run, const Context& context) const {
  return latest_ && latest_->matches(run, context) ? latest_.get() : nullptr;
}

CaptureScope::CaptureScope(Device& device, NodeRecording& recording) : device_(device) {
  device_.set_capture(&recording);
}

CaptureScope::~CaptureScope() { device_.set_capture(nullptr); }

}  // namespace kiln::gpu_compute
