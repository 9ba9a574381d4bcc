#include "backends/gpu_pixel/texture_pool.h"

#include <string>

#include "backends/gpu_pixel/gl_check.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {

TexturePool::TexturePool(Context& context, size_t byte_cap)
    : context_(context), byte_cap_(byte_cap) {}

TexturePool::~TexturePool() { trim(); }

GLuint TexturePool::acquire(const TextureKey& key) {
  {
    std::lock_guard lock(mutex_);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->key == key) {
        const GLuint texture = it->texture;
        free_bytes_ -= key.bytes();
        free_.erase(it);
        ++reused_;
        return texture;
      }
    }
  }
  Context::Scope scope(context_);
  GLuint texture = 0;
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexStorage2D(GL_TEXTURE_2D, 1, internal_format(key.format), key.width, key.height);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glBindTexture(GL_TEXTURE_2D, 0);
  const GLenum error = glGetError();
  if (error != GL_NO_ERROR) {
    glDeleteTextures(1, &texture);
    while (glGetError() != GL_NO_ERROR) {
    }
    throw Error("OpenGL ES: cannot allocate a " + std::to_string(key.width) + "x" +
                std::to_string(key.height) + " " + to_string(key.format) +
                " texture: " + gl_error_name(error));
  }
  std::lock_guard lock(mutex_);
  ++created_;
  return texture;
}

void TexturePool::release(GLuint texture, const TextureKey& key) noexcept {
  if (texture == 0) return;
  std::vector<GLuint> evicted;
  {
    std::lock_guard lock(mutex_);
    free_.push_back({texture, key});
    free_bytes_ += key.bytes();
    evicted = evict_to(byte_cap_);
  }
  destroy(evicted);
}

void TexturePool::trim() noexcept {
  std::vector<GLuint> evicted;
  {
    std::lock_guard lock(mutex_);
    evicted = evict_to(0);
  }
  destroy(evicted);
}

std::vector<GLuint> TexturePool::evict_to(size_t bytes) {
  std::vector<GLuint> evicted;
  while (free_bytes_ > bytes && !free_.empty()) {
    evicted.push_back(free_.front().texture);
    free_bytes_ -= free_.front().key.bytes();
    free_.pop_front();
  }
  return evicted;
}

void TexturePool::destroy(const std::vector<GLuint>& textures) noexcept {
  if (textures.empty()) return;
  try {
    Context::Scope scope(context_);
    glDeleteTextures(static_cast<GLsizei>(textures.size()), textures.data());
  } catch (...) {
    // The context cannot be made current (it is being lost): its textures go with it.
  }
}

size_t TexturePool::free_bytes() const {
  std::lock_guard lock(mutex_);
  return free_bytes_;
}

size_t TexturePool::free_count() const {
  std::lock_guard lock(mutex_);
  return free_.size();
}

uint64_t TexturePool::created_count() const {
  std::lock_guard lock(mutex_);
  return created_;
}

uint64_t TexturePool::reused_count() const {
  std::lock_guard lock(mutex_);
  return reused_;
}

}  // namespace kiln::gpu_pixel
