// Tensors stored in RGBA textures, four consecutive elements per texel:
//
//   element i  ->  texel t = i / 4, component i % 4  ->  pixel (t % width, t / width)
//
// The tensor is row-major flattened; its shape travels beside it (as with Vulkan buffers), so a
// reshape costs nothing. width is ceil(sqrt(texels)) rounded up to a multiple of 8 (capped at
// GL_MAX_TEXTURE_SIZE) and height is what the texels then need: textures stay roughly square,
// well inside the size limit, and nearby sizes share pool entries. The texels after the last
// element are zero once uploaded or drawn.
//
//   TextureTensor x(context, 6);
//   upload(x, values);                          // values.size() == 6
//   PendingDownload pending = download_async(x);
//   while (!pending.ready()) do_other_work();
//   pending.copy_to(result);
#pragma once

#include <GLES3/gl3.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/texture_pool.h"

namespace kiln::gpu_pixel {

struct TextureLayout {
  int64_t elements = 0;
  int64_t texels = 0;  // ceil(elements / 4)
  int width = 0;       // 0 for an empty tensor, which has no texture
  int height = 0;
};

// The layout of `elements` floats in textures of at most `max_size` texels a side. kiln::Error
// when they need more than max_size^2 texels (the executor then keeps the op on the CPU).
TextureLayout texture_layout(int64_t elements, int max_size);

class TextureTensor {
 public:
  TextureTensor() = default;
  // Storage for `elements` floats, in the context's float format, from the context's pool;
  // contents undefined.
  TextureTensor(Context& context, int64_t elements);
  // Storage for `elements` components of `format` (an integer format for words).
  TextureTensor(Context& context, int64_t elements, TextureFormat format);
  ~TextureTensor() { release(); }
  TextureTensor(TextureTensor&& other) noexcept { *this = std::move(other); }
  TextureTensor& operator=(TextureTensor&& other) noexcept;
  TextureTensor(const TextureTensor&) = delete;
  TextureTensor& operator=(const TextureTensor&) = delete;

  Context* context() const { return context_; }
  const TextureLayout& layout() const { return layout_; }
  int64_t element_count() const { return layout_.elements; }
  int width() const { return layout_.width; }
  int height() const { return layout_.height; }
  TextureFormat format() const { return format_; }
  GLuint texture() const { return texture_; }  // 0 when empty

 private:
  void release() noexcept;

  Context* context_ = nullptr;
  TextureLayout layout_;
  TextureFormat format_ = TextureFormat::Rgba32F;
  GLuint texture_ = 0;
};

// Writes `values` (exactly element_count() of them) and zeros the rest of the last texel: floats
// to a float texture, int32 words to RGBA32I, uint32 words to RGBA32UI. kiln::Error for a
// texture of another kind.
void upload(TextureTensor& dst, std::span<const float> values);
void upload(TextureTensor& dst, std::span<const int32_t> words);
void upload(TextureTensor& dst, std::span<const uint32_t> words);
// Reads element_count() values into `values` (at least that many), waiting for pending draws;
// of the texture's kind as upload() takes it.
void download(const TextureTensor& src, std::span<float> values);
void download(const TextureTensor& src, std::span<int32_t> words);
void download(const TextureTensor& src, std::span<uint32_t> words);

// A readback into a pixel-pack buffer, complete when its fence is signalled; polling never
// blocks. Destroying it unfinished is fine.
class PendingDownload {
 public:
  PendingDownload() = default;
  ~PendingDownload() { release(); }
  PendingDownload(PendingDownload&& other) noexcept { *this = std::move(other); }
  PendingDownload& operator=(PendingDownload&& other) noexcept;
  PendingDownload(const PendingDownload&) = delete;
  PendingDownload& operator=(const PendingDownload&) = delete;

  int64_t element_count() const { return elements_; }
  // True once the GPU has written the buffer; checks the fence without waiting.
  bool ready();
  // Blocks until ready.
  void wait();
  // Waits if needed, then copies the values into `values` (at least element_count()).
  void copy_to(std::span<float> values);
  std::vector<float> values();
  // The same for any format: element_count() 4-byte components as the texture holds them
  // (floats, or int32/uint32 words), into `out` (exactly that many bytes).
  void copy_bytes_to(std::span<std::byte> out);

 private:
  friend PendingDownload download_async(const TextureTensor& src);
  void release() noexcept;

  Context* context_ = nullptr;
  int64_t elements_ = 0;
  TextureFormat format_ = TextureFormat::Rgba32F;
  GLuint buffer_ = 0;
  GLsync fence_ = nullptr;
  bool signalled_ = false;
};

PendingDownload download_async(const TextureTensor& src);

// Binds the context's framebuffer with `tensor`'s texture as its only color attachment (the
// caller holds a Scope); kiln::Error if the result is not framebuffer-complete.
void bind_as_render_target(Context& context, const TextureTensor& tensor);

}  // namespace kiln::gpu_pixel
