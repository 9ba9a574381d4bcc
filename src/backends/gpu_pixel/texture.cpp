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
    : context_(&context),
      layout_(texture_layout(elements, context.info().max_texture_size)),
      format_(context.format()) {
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

void upload(TextureTensor& dst, std::span<const float> values) {
  const TextureLayout& l = dst.layout();
  check(static_cast<int64_t>(values.size()) == l.elements,
        "OpenGL ES upload: " + std::to_string(values.size()) + " values for a tensor of " +
            std::to_string(l.elements) + " elements");
  if (l.elements == 0) return;
  Context::Scope scope(*dst.context());
  DeviceWorkCounters::add(dst.context()->counters().bytes_uploaded,
                          static_cast<uint64_t>(l.elements) * sizeof(float));
  glBindTexture(GL_TEXTURE_2D, dst.texture());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  // Rows made only of complete texels come straight from `values`; the rest (less than one row)
  // goes through a zero-padded copy so the last texel's unused components are 0.
  const int64_t full_rows = (l.elements / 4) / l.width;
  if (full_rows > 0) {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, l.width, static_cast<GLsizei>(full_rows), GL_RGBA,
                    GL_FLOAT, values.data());
  }
  const int64_t done = full_rows * l.width * 4;
  if (done < l.elements) {
    const int64_t rest = l.elements - done;
    std::vector<float> tail(static_cast<size_t>((rest + 3) / 4 * 4), 0.0f);
    std::memcpy(tail.data(), values.data() + done, static_cast<size_t>(rest) * sizeof(float));
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, static_cast<GLint>(full_rows),
                    static_cast<GLsizei>(tail.size() / 4), 1, GL_RGBA, GL_FLOAT, tail.data());
  }
  glBindTexture(GL_TEXTURE_2D, 0);
  check_gl("OpenGL ES upload");
}

void download(const TextureTensor& src, std::span<float> values) {
  const TextureLayout& l = src.layout();
  check(static_cast<int64_t>(values.size()) >= l.elements,
        "OpenGL ES download: room for " + std::to_string(values.size()) +
            " values from a tensor of " + std::to_string(l.elements) + " elements");
  if (l.elements == 0) return;
  Context& context = *src.context();
  Context::Scope scope(context);
  DeviceWorkCounters::add(context.counters().bytes_downloaded,
                          static_cast<uint64_t>(l.elements) * sizeof(float));
  bind_as_render_target(context, src);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  const int64_t full_rows = (l.elements / 4) / l.width;
  if (full_rows > 0) {
    glReadPixels(0, 0, l.width, static_cast<GLsizei>(full_rows), GL_RGBA, GL_FLOAT, values.data());
  }
  const int64_t done = full_rows * l.width * 4;
  if (done < l.elements) {
    const int64_t rest = l.elements - done;
    std::vector<float> tail(static_cast<size_t>((rest + 3) / 4 * 4));
    glReadPixels(0, static_cast<GLint>(full_rows), static_cast<GLsizei>(tail.size() / 4), 1,
                 GL_RGBA, GL_FLOAT, tail.data());
    std::memcpy(values.data() + done, tail.data(), static_cast<size_t>(rest) * sizeof(float));
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  check_gl("OpenGL ES download");
}

PendingDownload download_async(const TextureTensor& src) {
  PendingDownload pending;
  pending.context_ = src.context();
  pending.elements_ = src.element_count();
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
  glReadPixels(0, 0, l.width, l.height, GL_RGBA, GL_FLOAT, nullptr);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  pending.fence_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  // Without a flush the fence might never reach the GPU, and polling would never see it.
  glFlush();
  DeviceWorkCounters::add(context.counters().submissions);
  DeviceWorkCounters::add(context.counters().bytes_downloaded,
                          static_cast<uint64_t>(pending.elements_) * sizeof(float));
  check_gl("OpenGL ES asynchronous download");
  return pending;
}

PendingDownload& PendingDownload::operator=(PendingDownload&& other) noexcept {
  if (this != &other) {
    release();
    context_ = other.context_;
    elements_ = other.elements_;
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
  check(static_cast<int64_t>(values.size()) >= elements_,
        "OpenGL ES download: room for " + std::to_string(values.size()) + " values of " +
            std::to_string(elements_));
  if (elements_ == 0) return;
  wait();
  Context::Scope scope(*context_);
  const auto bytes = static_cast<GLsizeiptr>(elements_ * sizeof(float));
  glBindBuffer(GL_PIXEL_PACK_BUFFER, buffer_);
  const void* mapped = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, bytes, GL_MAP_READ_BIT);
  if (mapped) {
    std::memcpy(values.data(), mapped, static_cast<size_t>(bytes));
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
