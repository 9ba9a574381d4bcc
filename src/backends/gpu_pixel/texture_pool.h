// Recycles textures between tensors: creating a texture and its storage is slow on most drivers,
// and a model's activations come in a few recurring sizes. Freed textures wait, keyed by
// (width, height, format), until a tensor of the same size asks; beyond the byte cap the oldest
// ones are deleted.
#pragma once

#include <GLES3/gl3.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <vector>

#include "backends/gpu_pixel/context.h"

namespace kiln::gpu_pixel {

struct TextureKey {
  int width = 0;
  int height = 0;
  TextureFormat format = TextureFormat::Rgba32F;
  bool operator==(const TextureKey&) const = default;
  size_t bytes() const { return size_t(width) * size_t(height) * bytes_per_texel(format); }
};

class TexturePool {
 public:
  TexturePool(Context& context, size_t byte_cap);
  ~TexturePool();  // the context is current: it destroys the pool inside a Scope
  TexturePool(const TexturePool&) = delete;
  TexturePool& operator=(const TexturePool&) = delete;

  // A texture with immutable storage of `key`'s size and format and nearest filtering (float
  // textures are not filterable, and kernels only use texelFetch); its contents are undefined.
  // kiln::Error when GL cannot allocate it.
  GLuint acquire(const TextureKey& key);
  // Keeps `texture` for reuse; deletes the oldest free textures while over the cap.
  void release(GLuint texture, const TextureKey& key) noexcept;
  // Deletes every free texture.
  void trim() noexcept;

  size_t byte_cap() const { return byte_cap_; }
  size_t free_bytes() const;
  size_t free_count() const;
  uint64_t created_count() const;  // textures created so far
  uint64_t reused_count() const;   // acquisitions served from the free list

 private:
  struct Entry {
    GLuint texture;
    TextureKey key;
  };
  // Takes the oldest free textures off the list until at most `bytes` remain (mutex_ held);
  // destroy() deletes them afterwards without the pool's lock, so a thread holding the context
  // while it acquires cannot deadlock with one releasing.
  std::vector<GLuint> evict_to(size_t bytes);
  void destroy(const std::vector<GLuint>& textures) noexcept;

  Context& context_;
  size_t byte_cap_;
  mutable std::mutex mutex_;
  std::list<Entry> free_;  // oldest first
  size_t free_bytes_ = 0;
  uint64_t created_ = 0;
  uint64_t reused_ = 0;
};

}  // namespace kiln::gpu_pixel
