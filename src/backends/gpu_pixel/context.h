// A headless OpenGL ES 3 context through EGL: the root object of the GPU-pixel backend. Tensors
// (texture.h), programs (program.h) and draws all borrow it.
//
//   kiln::gpu_pixel::Context context;                       // kiln::Error "no OpenGL ES device" if
//   none std::cout << context.info().renderer << "\n";
//   {
//     kiln::gpu_pixel::Context::Scope scope(context);       // current on this thread until the
//     scope ends
//     ...GL calls...
//   }
//
// An EGL context is current on at most one thread at a time. Every kiln entry point that issues
// GL calls opens a Scope itself, so callers only need one to batch several calls or to make raw
// GL calls; scopes nest on one thread, and other threads wait for the outermost one to end.
#pragma once

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kernels/device_counters.h"

namespace kiln::gpu_pixel {

class TexturePool;
class ProgramCache;

// The formats tensors are stored and rendered in. Float tensors use one float format per context:
// RGBA32F needs EXT_color_buffer_float to be renderable; RGBA16F (EXT_color_buffer_half_float) is
// the fallback on devices without it. int32 and int64 tensors live in RGBA32I and uint32 ones in
// RGBA32UI, which OpenGL ES 3 renders to without an extension (texel_dtype.h).
enum class TextureFormat { Rgba32F, Rgba16F, Rgba32I, Rgba32UI };
const char* to_string(TextureFormat format);
GLenum internal_format(TextureFormat format);
size_t bytes_per_texel(TextureFormat format);
// Whether the format's components are integers (sampled as isampler2D/usampler2D).
bool is_integer(TextureFormat format);
// The format and type of glTexSubImage2D and glReadPixels for the format's 4-byte components
// (RGBA16F takes and gives floats too).
GLenum pixel_format(TextureFormat format);
GLenum pixel_type(TextureFormat format);

struct ContextInfo {
  std::string platform;  // "surfaceless", "device" or "default": how the display was found
  std::string vendor, renderer, version, shading_language_version;
  int gl_major = 0, gl_minor = 0;
  int max_texture_size = 0;   // GL_MAX_TEXTURE_SIZE: the largest texture side
  int max_texture_units = 0;  // GL_MAX_TEXTURE_IMAGE_UNITS: samplers per draw
  int max_fragment_uniform_vectors = 0;
  TextureFormat format = TextureFormat::Rgba32F;
  // Mantissa bits a value keeps through a render to `format` and a readback, measured by the
  // probe: 23 for a true float32 path, 10 for half floats.
  int mantissa_bits = 0;
  // Loop iterations one fragment may run before the driver cuts its loops short, measured at
  // start-up (loop_budget.h): 65535 on llvmpipe, kUnlimitedLoopSteps where no limit was found.
  int64_t max_fragment_loop_steps = INT64_MAX;  // unlimited until measured
};

struct ContextOptions {
  // Bytes of freed textures the pool keeps for reuse before deleting the oldest.
  size_t texture_pool_bytes = size_t{256} << 20;
  // Skips RGBA32F in the probe, as on a device that cannot render to it: tests of the RGBA16F
  // fallback use this.
  bool allow_rgba32f = true;
  // An index into egl_devices(); -1 takes the first display that works, surfaceless first.
  int device = -1;
};

// The devices EGL reports (EGL_EXT_device_enumeration); empty where EGL cannot enumerate them.
std::vector<EGLDeviceEXT> egl_devices();

class Context {
 public:
  explicit Context(const ContextOptions& options = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const ContextInfo& info() const { return info_; }
  TextureFormat format() const { return info_.format; }

  // Makes the context current on the calling thread for its lifetime, holding the context's
  // lock; releases it from the thread when the outermost scope on that thread ends.
  class Scope {
   public:
    explicit Scope(Context& context);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Context& context_;
  };

  // Owned by the context; use them inside a Scope. Textures and programs must not outlive it.
  TexturePool& textures() { return *textures_; }
  ProgramCache& programs() { return *programs_; }
  // The one framebuffer every draw and readback attaches its target texture to, and the empty
  // vertex array the full-screen triangle draws with (it has no vertex buffers).
  GLuint framebuffer() const { return framebuffer_; }
  GLuint vertex_array() const { return vertex_array_; }
  // What was asked of the GPU through this context (draws, flushes, transfers).
  DeviceWorkCounters& counters() { return counters_; }
  const DeviceWorkCounters& counters() const { return counters_; }

 private:
  void create(const ContextOptions& options);
  void probe_float_rendering(bool allow_rgba32f);
  void destroy() noexcept;

  ContextInfo info_;
  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
  EGLSurface surface_ = EGL_NO_SURFACE;  // a 1x1 pbuffer where surfaceless is unsupported
  std::recursive_mutex mutex_;
  DeviceWorkCounters counters_;
  int scope_depth_ = 0;  // guarded by mutex_
  GLuint framebuffer_ = 0;
  GLuint vertex_array_ = 0;
  std::unique_ptr<TexturePool> textures_;
  std::unique_ptr<ProgramCache> programs_;
};

}  // namespace kiln::gpu_pixel
