#include "backends/gpu_pixel/texture.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "backends/gpu_pixel/gl_check.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {

TextureLayout texture_layout(int64_t elements, int max_size) {
  check(elements >= 0, "OpenGL ES texture: negative element count");
  TextureLayout layout;
  layout.elements = elements;
  layout.texels = (elements + 3) / 4;
  if (elements == 0) return layout;
  const int64_t max_side = max_size;
  // Shaders index elements with 32-bit signed ints: element indices must stay below 2^31.
  check(layout.texels <= max_side * max_side && elements <= INT32_MAX,
        "OpenGL ES texture: " + std::to_string(elements) + " elements need " +
            std::to_string(layout.texels) + " texels, more than one " + std::to_string(max_size) +
            "x" + std::to_string(max_size) + " texture holds");
  auto side = static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(layout.texels))));
  side = (side + 7) / 8 * 8;
  layout.width = static_cast<int>(std::min(side, max_side));
  layout.height = static_cast<int>((layout.texels + layout.width - 1) / layout.width);
  return layout;
}

TextureTensor::TextureTensor(Context& context, int64_t elements)
    : TextureTensor(context, elements, context.format()) {}

TextureTensor::TextureTensor(Context& context, int64_t elements, TextureFormat format)
    : context_(&context),
      layout_(texture_layout(elements, context.info().max_texture_size)),
      format_(format) {
  if (layout_.elements > 0) {
    texture_ = context.textures().acquire({layout_.width, layout_.height, format_});
  }
}

TextureTensor& TextureTensor::operator=(TextureTensor&& other) noexcept {
  if (this != &other) {
    release();
    context_ = other.context_;
    layout_ = other.layout_;
    format_ = other.format_;
    texture_ = std::exchange(other.texture_, 0);
  }
  return *this;
}

void TextureTensor::release() noexcept {
  if (texture_ != 0)
    context_->textures().release(texture_, {layout_.width, layout_.height, format_});
  texture_ = 0;
}

void bind_as_render_target(Context& context, const TextureTensor& tensor) {
  glBindFramebuffer(GL_FRAMEBUFFER, context.framebuffer());
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tensor.texture(), 0);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  check(status == GL_FRAMEBUFFER_COMPLETE,
        std::string("OpenGL ES: a ") + to_string(tensor.format()) + " texture of " +
            std::to_string(tensor.width()) + "x" + std::to_string(tensor.height()) +
            " is not a complete render target");
}

namespace {

// What upload() and download() take for a texture of `format`: floats for the float formats,
// int32 words for RGBA32I, uint32 words for RGBA32UI.
enum class ClientKind { Float, Int, UInt };
ClientKind client_kind(TextureFormat format) {
  if (format == TextureFormat::Rgba32I) return ClientKind::Int;
  return format == TextureFormat::Rgba32UI ? ClientKind::UInt : ClientKind::Float;
}

void check_kind(const TextureTensor& t, ClientKind kind, const char* what) {
  check(client_kind(t.format()) == kind,
        std::string(what) + ": the values do not suit a " + to_string(t.format()) + " texture");
}

// Every component is 4 bytes on the client side, whatever the format.
void upload_components(TextureTensor& dst, const std::byte* values, size_t count) {
  const TextureLayout& l = dst.layout();
  check(static_cast<int64_t>(count) == l.elements, "OpenGL ES upload: " + std::to_string(count) +
                                                       " values for a tensor of " +
                                                       std::to_string(l.elements) + " elements");
  if (l.elements == 0) return;
  Context::Scope scope(*dst.context());
  DeviceWorkCounters::add(dst.context()->counters().bytes_uploaded,
                          static_cast<uint64_t>(l.elements) * 4);
  const GLenum format = pixel_format(dst.format()), type = pixel_type(dst.format());
  glBindTexture(GL_TEXTURE_2D, dst.texture());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  // Rows made only of complete texels come straight from `values`; the rest (less than one row)
  // goes through a zero-padded copy so the last texel's unused components are 0.
  const int64_t full_rows = (l.elements / 4) / l.width;
  if (full_rows > 0) {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, l.width, static_cast<GLsizei>(full_rows), format, type,
                    values);
  }
  const int64_t done = full_rows * l.width * 4;
  if (done < l.elements) {
    const int64_t rest = l.elements - done;
    std::vector<uint32_t> tail(static_cast<size_t>((rest + 3) / 4 * 4), 0u);  // 0.0f is all zeros
    std::memcpy(tail.data(), values + done * 4, static_cast<size_t>(rest) * 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, static_cast<GLint>(full_rows),
                    static_cast<GLsizei>(tail.size() / 4), 1, format, type, tail.data());
  }
  glBindTexture(GL_TEXTURE_2D, 0);
  check_gl("OpenGL ES upload");
}

void download_components(const TextureTensor& src, std::byte* values, size_t room) {
  const TextureLayout& l = src.layout();
  check(static_cast<int64_t>(room) >= l.elements,
        "OpenGL ES download: room for " + std::to_string(room) + " values from a tensor of " +
            std::to_string(l.elements) + " elements");
  if (l.elements == 0) return;
  Context& context = *src.context();
  Context::Scope scope(context);
  DeviceWorkCounters::add(context.counters().bytes_downloaded,
                          static_cast<uint64_t>(l.elements) * 4);
  const GLenum format = pixel_format(src.format()), type = pixel_type(src.format());
  bind_as_render_target(context, src);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  const int64_t full_rows = (l.elements / 4) / l.width;
  if (full_rows > 0) {
    glReadPixels(0, 0, l.width, static_cast<GLsizei>(full_rows), format, type, values);
  }
  const int64_t done = full_rows * l.width * 4;
  if (done < l.elements) {
    const int64_t rest = l.elements - done;
    std::vector<uint32_t> tail(static_cast<size_t>((rest + 3) / 4 * 4));
    glReadPixels(0, static_cast<GLint>(full_rows), static_cast<GLsizei>(tail.size() / 4), 1, format,
                 type, tail.data());
    std::memcpy(values + done * 4, tail.data(), static_cast<size_t>(rest) * 4);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  check_gl("OpenGL ES download");
}

template <class T>
void upload_as(TextureTensor& dst, std::span<const T> values, ClientKind kind) {
  check_kind(dst, kind, "OpenGL ES upload");
  upload_components(dst, reinterpret_cast<const std::byte*>(values.data()), values.size());
}

template <class T>
void download_as(const TextureTensor& src, std::span<T> values, ClientKind kind) {
  check_kind(src, kind, "OpenGL ES download");
  download_components(src, reinterpret_cast<std::byte*>(values.data()), values.size());
}

}  // namespace

void upload(TextureTensor& dst, std::span<const float> values) {
  upload_as(dst, values, ClientKind::Float);
}
void upload(TextureTensor& dst, std::span<const int32_t> words) {
  upload_as(dst, words, ClientKind::Int);
}
void upload(TextureTensor& dst, std::span<const uint32_t> words) {
  upload_as(dst, words, ClientKind::UInt);
}
void download(const TextureTensor& src, std::span<float> values) {
  download_as(src, values, ClientKind::Float);
}
void download(const TextureTensor& src, std::span<int32_t> words) {
  download_as(src, words, ClientKind::Int);
}
void download(const TextureTensor& src, std::span<uint32_t> words) {
  download_as(src, words, ClientKind::UInt);
}

PendingDownload download_async(const TextureTensor& src) {
  PendingDownload pending;
  pending.context_ = src.context();
  pending.elements_ = src.element_count();
  pending.format_ = src.format();
  if (pending.elements_ == 0) {
    pending.signalled_ = true;
    return pending;
  }
  const TextureLayout& l = src.layout();
  Context& context = *src.context();
  Context::Scope scope(context);
  bind_as_render_target(context, src);
  glGenBuffers(1, &pending.buffer_);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, pending.buffer_);
  glBufferData(GL_PIXEL_PACK_BUFFER, int64_t{l.width} * l.height * 16, nullptr, GL_STREAM_READ);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  // The whole texture: the buffer then holds the elements in order from byte 0.
  glReadPixels(0, 0, l.width, l.height, pixel_format(src.format()), pixel_type(src.format()),
               nullptr);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  pending.fence_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  // Without a flush the fence might never reach the GPU, and polling would never see it.
  glFlush();
  DeviceWorkCounters::add(context.counters().submissions);
  DeviceWorkCounters::add(context.counters().bytes_downloaded,
                          static_cast<uint64_t>(pending.elements_) * 4);
  check_gl("OpenGL ES asynchronous download");
  return pending;
}

PendingDownload& PendingDownload::operator=(PendingDownload&& other) noexcept {
  if (this != &other) {
    release();
    context_ = other.context_;
    elements_ = other.elements_;
    format_ = other.format_;
    buffer_ = std::exchange(other.buffer_, 0);
    fence_ = std::exchange(other.fence_, nullptr);
    signalled_ = other.signalled_;
  }
  return *this;
}

bool PendingDownload::ready() {
  if (signalled_) return true;
  check(fence_ != nullptr, "OpenGL ES download: nothing is pending");
  Context::Scope scope(*context_);
  const GLenum status = glClientWaitSync(fence_, 0, 0);
  check(status != GL_WAIT_FAILED, "OpenGL ES download: waiting on the fence failed");
  signalled_ = status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED;
  return signalled_;
}

void PendingDownload::wait() {
  if (signalled_) return;
  check(fence_ != nullptr, "OpenGL ES download: nothing is pending");
  Context::Scope scope(*context_);
  // One second at a time, so a lost context surfaces as an error instead of a hang.
  for (int i = 0; i < 60; ++i) {
    const GLenum status = glClientWaitSync(fence_, GL_SYNC_FLUSH_COMMANDS_BIT, 1'000'000'000);
    check(status != GL_WAIT_FAILED, "OpenGL ES download: waiting on the fence failed");
    if (status != GL_TIMEOUT_EXPIRED) {
      signalled_ = true;
      return;
    }
  }
  throw Error("OpenGL ES download: the GPU did not finish within 60 seconds");
}

void PendingDownload::copy_to(std::span<float> values) {
  check(client_kind(format_) == ClientKind::Float,
        std::string("OpenGL ES download: floats from a ") + to_string(format_) + " texture");
  check(static_cast<int64_t>(values.size()) >= elements_,
        "OpenGL ES download: room for " + std::to_string(values.size()) + " values of " +
            std::to_string(elements_));
  copy_bytes_to(std::as_writable_bytes(values.first(static_cast<size_t>(elements_))));
}

void PendingDownload::copy_bytes_to(std::span<std::byte> out) {
  check(static_cast<int64_t>(out.size()) == elements_ * 4,
        "OpenGL ES download: " + std::to_string(out.size()) + " bytes for " +
            std::to_string(elements_) + " components");
  if (elements_ == 0) return;
  wait();
  Context::Scope scope(*context_);
  const auto bytes = static_cast<GLsizeiptr>(out.size());
  glBindBuffer(GL_PIXEL_PACK_BUFFER, buffer_);
  const void* mapped = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, bytes, GL_MAP_READ_BIT);
  if (mapped) {
    std::memcpy(out.data(), mapped, static_cast<size_t>(bytes));
    glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  check(mapped != nullptr, "OpenGL ES download: cannot map the pixel-pack buffer");
  check_gl("OpenGL ES download");
}

std::vector<float> PendingDownload::values() {
  std::vector<float> out(static_cast<size_t>(elements_));
  copy_to(out);
  return out;
}

void PendingDownload::release() noexcept {
  if (!buffer_ && !fence_) return;
  try {
    Context::Scope scope(*context_);
    if (fence_) glDeleteSync(fence_);
    if (buffer_) glDeleteBuffers(1, &buffer_);
  } catch (...) {
    // The context is gone; so are its objects.
  }
  fence_ = nullptr;
  buffer_ = 0;
}

}  // namespace kiln::gpu_pixel
