#include "backends/gpu_compute/op_recorder.h"

#include <algorithm>
#include <string>

#include "backends/gpu_compute/cast.h"
#include "backends/gpu_compute/node_replay.h"
#include "core/element_count.h"
#include "core/tensor_impl.h"
#include "kernels/transfer_timing.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

size_t byte_size_of(DataType dtype, const Shape& shape) {
  return static_cast<size_t>(shape.element_count()) * dtype_size(dtype);
}

bool is_16bit_float(DataType dtype) {
  return dtype == DataType::Float16 || dtype == DataType::BFloat16;
}

}  // namespace

void OpRecorder::check_binding(size_t bytes) const {
  const uint64_t range = context_->device.info().max_storage_buffer_range;
  if (bytes > range) {
    throw RunOnCpu(RunTimeCause::DeviceLimit,
                   "a " + std::to_string(bytes) +
                       "-byte tensor exceeds the device's storage-buffer range of " +
                       std::to_string(range) + " bytes");
  }
}

const Tensor& OpRecorder::input(size_t k) const {
  const Tensor& t = run_.inputs[k];
  NodeRecording* capture = context_->device.capture();
  if (capture && t.defined() && !device_tensor_of(t, *context_)) capture->note_host_read(k);
  return t;
}

const Tensor& OpRecorder::input_for_shape_rule(size_t k) const {
  const Tensor& t = run_.inputs[k];
  NodeRecording* capture = context_->device.capture();
  if (capture && t.defined() && !device_tensor_of(t, *context_)) capture->note_shape_rule_read(k);
  return t;
}

bool OpRecorder::widened(size_t k) const {
  return in_float32_ && is_16bit_float(run_.inputs[k].dtype());
}

DataType OpRecorder::dtype(size_t k) const {
  return widened(k) ? DataType::Float32 : run_.inputs[k].dtype();
}

const Buffer& OpRecorder::buffer(size_t k) {
  const Buffer& b = input_buffer(k);
  if (NodeRecording* capture = context_->device.capture()) capture->note_input_buffer(k, b);
  if (!widened(k)) return b;
  if (wide_inputs_[k] == nullptr) {
    const auto count = static_cast<uint64_t>(run_.inputs[k].element_count());
    const Buffer& wide = scratch(static_cast<size_t>(std::max<uint64_t>(count, 1)) * sizeof(float));
    kernel<Cast>().record(cmd(), arena(), run_.inputs[k].dtype(), b, DataType::Float32, wide,
                          count);
    wide_inputs_[k] = &wide;
  }
  return *wide_inputs_[k];
}

void OpRecorder::compute_in_float32(std::vector<DataType> narrow_to) {
  in_float32_ = true;
  wide_inputs_.assign(run_.inputs.size(), nullptr);
  narrow_to_ = std::move(narrow_to);
}

void OpRecorder::narrow_outputs() {
  for (const NarrowOutput& o : pending_narrow_) {
    const DataType dtype = narrow_to_[o.index];
    const Buffer& out = output(o.index, dtype, o.shape);
    kernel<Cast>().record(cmd(), arena(), DataType::Float32, *o.wide, dtype, out,
                          static_cast<uint64_t>(o.shape.element_count()));
  }
  pending_narrow_.clear();
}

const Buffer& OpRecorder::input_buffer(size_t k) {
  const Tensor& t = run_.inputs[k];
  check_binding(t.byte_size());
  if (DeviceTensor* d = device_tensor_of(t, *context_)) return d->buffer();
  DeviceMirror& mirror = *run_.mirrors[k];
  if (!mirror) {
    // A host value (or another device's tensor, brought to the host first).
    const Tensor host = t.impl()->device ? download_to_host(t) : t;
    MemoryPool& pool = run_.constant[k] ? context_->weights : context_->activations;
    auto d = std::make_shared<DeviceTensor>(context_, pool, host.byte_size());
    TimedTransfer timed(true, host.byte_size(), static_cast<int>(k));
    d->record_upload(host.raw_data(), host.byte_size());
    mirror = std::move(d);
  }
  return static_cast<DeviceTensor*>(mirror.get())->buffer();
}

const Buffer& OpRecorder::output(size_t k, DataType dtype, const Shape& shape) {
  check_no_negative_dim(shape, "output shape");
  if (in_float32_ && dtype == DataType::Float32 && k < narrow_to_.size() &&
      is_16bit_float(narrow_to_[k])) {
    const auto count = static_cast<size_t>(shape.element_count());
    const Buffer& wide = scratch(std::max<size_t>(count, 1) * sizeof(float));
    pending_narrow_.push_back({k, shape, &wide});
    return wide;
  }
  const size_t bytes = byte_size_of(dtype, shape);
  check_binding(bytes);
  work_ += static_cast<uint64_t>(shape.element_count());
  auto d = std::make_shared<DeviceTensor>(context_, context_->activations, bytes);
  const Buffer& b = d->buffer();
  auto impl = std::make_shared<TensorImpl>(dtype, shape, nullptr);
  impl->device = std::move(d);
  run_.outputs[k] = Tensor(std::move(impl));
  if (NodeRecording* capture = context_->device.capture()) capture->note_output(k, dtype, shape, b);
  return b;
}

const Buffer& OpRecorder::upload(std::span<const std::byte> bytes) {
  check_binding(bytes.size());
  auto d = std::make_shared<DeviceTensor>(context_, context_->activations, bytes.size());
  TimedTransfer timed(true, bytes.size());
  d->record_upload(bytes.data(), bytes.size());
  uploads_.push_back(d);  // the destructor hands the buffer to the stream until the GPU is done
  if (NodeRecording* capture = context_->device.capture()) capture->note_upload(bytes, d->buffer());
  return d->buffer();
}

const Buffer& OpRecorder::scratch(size_t bytes) {
  check_binding(bytes);
  auto d = std::make_shared<DeviceTensor>(context_, context_->activations, bytes);
  uploads_.push_back(d);
  if (NodeRecording* capture = context_->device.capture())
    capture->note_scratch(bytes, d->buffer());
  return d->buffer();
}

Tensor OpRecorder::read_back_tensor(DataType dtype, const Shape& shape) {
  check_no_negative_dim(shape, "read-back shape");
  const size_t bytes = byte_size_of(dtype, shape);
  check_binding(bytes);
  auto impl = std::make_shared<TensorImpl>(dtype, shape, nullptr);
  impl->device = std::make_shared<DeviceTensor>(context_, context_->activations, bytes);
  return Tensor(std::move(impl));
}

const Buffer& OpRecorder::device_buffer(const Tensor& t) const {
  DeviceTensor* d = device_tensor_of(t, *context_);
  check(d != nullptr, "GPU-compute: a host tensor has no device buffer");
  return d->buffer();
}

void OpRecorder::output_view(size_t k, size_t source, const Shape& shape) {
  output_view(k, source, shape, run_.inputs[source].dtype());
}

void OpRecorder::output_view(size_t k, size_t source, const Shape& shape, DataType dtype) {
  input_buffer(source);  // a host input goes to the device first
  const Tensor& in = run_.inputs[source];
  auto impl = std::make_shared<TensorImpl>(dtype, shape, nullptr);
  if (device_tensor_of(in, *context_)) {
    impl->device = in.impl()->device;
  } else {
    impl->device = std::static_pointer_cast<DeviceTensor>(*run_.mirrors[source]);
  }
  run_.outputs[k] = Tensor(std::move(impl));
  if (NodeRecording* capture = context_->device.capture())
    capture->note_output_view(k, source, shape, dtype);
}

}  // namespace kiln::gpu_compute
