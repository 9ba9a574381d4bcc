#include "backends/gpu_pixel/op_recorder.h"

#include <span>
#include <vector>

#include "backends/gpu_pixel/texel_dtype.h"
#include "core/element_count.h"
#include "kernels/transfer_timing.h"

namespace kiln::gpu_pixel {
namespace {

// `host`'s elements into `texture`, made for its dtype and element count.
void upload_elements(TextureTensor& texture, const Tensor& host) {
  if (host.element_count() == 0) return;
  if (in_integer_texture(host.dtype())) {
    // int32 and uint32 elements are the words; an int64's bytes are its two words.
    const auto words = static_cast<size_t>(host.byte_size() / 4);
    if (host.dtype() == DataType::UInt32) {
      upload(texture, std::span(static_cast<const uint32_t*>(host.raw_data()), words));
    } else {
      upload(texture, std::span(static_cast<const int32_t*>(host.raw_data()), words));
    }
  } else if (host.dtype() == DataType::Float32) {
    upload(texture, std::span(host.data<float>(), static_cast<size_t>(host.element_count())));
  } else {
    upload(texture, to_texel_values(host));
  }
}

}  // namespace

std::shared_ptr<TextureData> OpRecorder::new_texture(const Shape& shape, DataType dtype) {
  check_no_negative_dim(shape, "output shape");
  try {
    return std::make_shared<TextureData>(runtime_, shape.element_count(), dtype);
  } catch (const Error& e) {
    throw RunOnCpu(RunTimeCause::DeviceLimit, e.what());  // larger than the device's textures allow
  }
}

const TextureTensor& OpRecorder::texture(size_t k) {
  const Tensor& t = run_.inputs[k];
  if (TextureData* d = texture_data_of(t, *runtime_)) return d->texture();
  DeviceMirror& mirror = *run_.mirrors[k];
  if (!mirror) {
    // A host value (or another device's tensor, brought to the host first).
    const Tensor host = t.impl()->device ? download_to_host(t) : t;
    if (!texel_holds(host.dtype(), runtime_->context().info().mantissa_bits))
      throw RunOnCpu(RunTimeCause::InputKind,
                     std::string(dtype_name(host.dtype())) + " tensors do not live in textures");
    auto d = new_texture(host.shape(), host.dtype());
    TimedTransfer timed(true, host.byte_size(), static_cast<int>(k));
    upload_elements(d->texture(), host);
    mirror = std::move(d);
  }
  return static_cast<TextureData*>(mirror.get())->texture();
}

std::vector<Tensor> OpRecorder::rule_inputs(std::initializer_list<size_t> read_on_host) {
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < num_inputs(); ++k) inputs.push_back(input(k));
  for (size_t k : read_on_host) {
    if (has_input(k)) inputs[k] = host(k);
  }
  return inputs;
}

const Tensor& OpRecorder::host(size_t k) {
  const Tensor& t = run_.inputs[k];
  if (!t.impl()->device) return t;
  if (hosts_.size() < run_.inputs.size()) hosts_.resize(run_.inputs.size());
  if (hosts_[k].defined()) return hosts_[k];
  TextureData* d = texture_data_of(t, *runtime_);
  if (!d) {
    hosts_[k] = download_to_host(t);  // another device's tensor
    return hosts_[k];
  }
  // Read straight from the texture, in the context this recording holds. Not through
  // TextureData::wait_download: that takes the data's lock and then the context, the opposite
  // order of a recording, so a CPU node downloading the same tensor could deadlock with it.
  Tensor host = Tensor::zeros(t.dtype(), t.shape());
  const TextureTensor& texture = d->texture();
  const auto words = static_cast<size_t>(texture.element_count());
  if (texture.format() == TextureFormat::Rgba32UI) {
    download(texture, std::span(static_cast<uint32_t*>(host.mutable_raw_data()), words));
  } else if (texture.format() == TextureFormat::Rgba32I) {
    download(texture, std::span(static_cast<int32_t*>(host.mutable_raw_data()), words));
  } else {
    std::vector<float> values(words);
    download(texture, std::span(values));
    from_texel_values(
        values, t.dtype(),
        std::span(static_cast<std::byte*>(host.mutable_raw_data()), host.byte_size()));
  }
  hosts_[k] = std::move(host);
  return hosts_[k];
}

TextureTensor& OpRecorder::output(size_t k, const Shape& shape, DataType dtype) {
  auto d = new_texture(shape, dtype);
  TextureTensor& texture = d->texture();
  auto impl = std::make_shared<TensorImpl>(dtype, shape, nullptr);
  impl->device = std::move(d);
  run_.outputs[k] = Tensor(std::move(impl));
  runtime_->drew();
  return texture;
}

void OpRecorder::uploaded_output(size_t k, const Tensor& value) {
  upload_elements(output(k, value.shape(), value.dtype()), value);
}

void OpRecorder::output_view(size_t k, size_t source, const Shape& shape) {
  texture(source);  // a host input goes to the device first
  const Tensor& in = run_.inputs[source];
  auto impl = std::make_shared<TensorImpl>(in.dtype(), shape, nullptr);
  if (texture_data_of(in, *runtime_)) {
    impl->device = in.impl()->device;
  } else {
    impl->device = std::static_pointer_cast<TextureData>(*run_.mirrors[source]);
  }
  run_.outputs[k] = Tensor(std::move(impl));
}

}  // namespace kiln::gpu_pixel
