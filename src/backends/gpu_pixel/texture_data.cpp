#include "backends/gpu_pixel/texture_data.h"

#include <atomic>
#include <bit>
#include <cstring>
#include <span>
#include <vector>

#include "backends/gpu_pixel/texel_dtype.h"

namespace kiln::gpu_pixel {
namespace {

std::atomic<uint64_t> downloads{0};

}  // namespace

uint64_t texture_downloads_started() { return downloads.load(std::memory_order_relaxed); }

void Runtime::drew() {
  if (++draws_since_flush_ < kFlushEvery) return;
  draws_since_flush_ = 0;
  glFlush();
  DeviceWorkCounters::add(context_.counters().submissions);
}

// An int64's words are its little-endian bytes (texel_dtype.h): the host copy is the words' bytes.
static_assert(std::endian::native == std::endian::little);

TextureData::TextureData(std::shared_ptr<Runtime> runtime, int64_t elements, DataType dtype)
    : runtime_(std::move(runtime)),
      dtype_(dtype),
      elements_(elements),
      texture_(runtime_->context(), elements * words_per_element(dtype),
               texture_format_of(dtype, runtime_->context().format())) {}

TextureData::~TextureData() {
  // The texture goes back to the context's pool, which may delete textures: GL calls.
  Context::Scope scope(runtime_->context());
  pending_.reset();
  texture_ = TextureTensor();
}

void TextureData::request_locked() {
  if (pending_ || host_) return;
  Context::Scope scope(runtime_->context());
  pending_ = download_async(texture_);  // flushes, so the read does not wait for one
  downloads.fetch_add(1, std::memory_order_relaxed);
}

void TextureData::request_download(TensorImpl&) {
  std::lock_guard lock(mutex_);
  request_locked();
}

bool TextureData::download_done(const TensorImpl&) const {
  std::lock_guard lock(mutex_);
  if (host_) return true;
  if (!pending_) return false;
  return pending_->ready();
}

void TextureData::wait_download(TensorImpl& tensor) {
  std::lock_guard lock(mutex_);
  if (!host_) {
    request_locked();
    const int64_t n = elements_;
    auto host = Storage::allocate(dtype_, n);
    if (n > 0 && is_integer(texture_.format())) {
      pending_->copy_bytes_to(std::span(static_cast<std::byte*>(host->data()),
                                        static_cast<size_t>(n) * dtype_size(dtype_)));
    } else if (n > 0 && dtype_ == DataType::Float32) {
      pending_->copy_to(std::span(static_cast<float*>(host->data()), static_cast<size_t>(n)));
    } else if (n > 0) {
      const std::vector<float> values = pending_->values();
      from_texel_values(values, dtype_,
                        std::span(static_cast<std::byte*>(host->data()),
                                  static_cast<size_t>(n) * dtype_size(dtype_)));
    }
    host_ = std::move(host);
    Context::Scope scope(runtime_->context());
    pending_.reset();
  }
  tensor.storage = host_;
  tensor.offset = 0;
}

void TextureData::download_into(TensorImpl&, std::span<std::byte> out) {
  std::lock_guard lock(mutex_);
  const int64_t n = elements_;
  check(out.size() == static_cast<size_t>(n) * dtype_size(dtype_),
        "OpenGL ES download: the destination does not match the texture's elements");
  if (host_) {
    if (!out.empty()) std::memcpy(out.data(), host_->data(), out.size());
    return;
  }
  request_locked();
  // The pixel-pack buffer stays, so a later readback copies from it again without a transfer.
  if (n > 0 && is_integer(texture_.format())) {
    pending_->copy_bytes_to(out);
  } else if (n > 0 && dtype_ == DataType::Float32) {
    pending_->copy_to(std::span(reinterpret_cast<float*>(out.data()), static_cast<size_t>(n)));
  } else if (n > 0) {
    from_texel_values(pending_->values(), dtype_, out);
  }
}

TextureData* texture_data_of(const Tensor& t, const Runtime& runtime) {
  if (!t.defined() || !t.impl()->device) return nullptr;
  auto* d = dynamic_cast<TextureData*>(t.impl()->device.get());
  return d && d->runtime() == &runtime ? d : nullptr;
}

}  // namespace kiln::gpu_pixel
