#include "backends/gpu_pixel/context.h"

#include "backends/gpu_pixel/loop_budget.h"

#include <EGL/eglext.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "backends/gpu_pixel/gl_check.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/texture_pool.h"
#include "core/log.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  const size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)) != nullptr; p += n) {
    const bool starts = p == list || p[-1] == ' ';
    const bool ends = p[n] == '\0' || p[n] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

[[noreturn]] void no_device(const std::string& reason) {
  throw Error("no OpenGL ES device: " + reason);
}

struct Display {
  EGLDisplay display = EGL_NO_DISPLAY;
  std::string platform;
};

PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display_function() {
  return reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
}

bool try_init(EGLDisplay d) {
  EGLint major = 0, minor = 0;
  return d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor) == EGL_TRUE;
}

// Headless first: the surfaceless platform needs no window system, the device platform picks a
// GPU directly, and the default display only works headless when EGL_PLATFORM says so.
Display open_default_display() {
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  auto get_platform_display = platform_display_function();
  if (get_platform_display && has_extension(client, "EGL_MESA_platform_surfaceless")) {
    EGLDisplay d =
        get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (try_init(d)) return {d, "surfaceless"};
  }
  const std::vector<EGLDeviceEXT> devices = egl_devices();
  for (EGLDeviceEXT device : devices) {
    EGLDisplay d = get_platform_display(EGL_PLATFORM_DEVICE_EXT, device, nullptr);
    if (try_init(d)) return {d, "device"};
  }
  EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (try_init(d)) return {d, "default"};
  no_device("EGL found no display (no surfaceless, device or default platform)");
}

Display open_display(int device) {
  if (device < 0) return open_default_display();
  const std::vector<EGLDeviceEXT> devices = egl_devices();
  if (static_cast<size_t>(device) >= devices.size()) {
    no_device("EGL device " + std::to_string(device) + " does not exist (EGL lists " +
              std::to_string(devices.size()) + ")");
  }
  EGLDisplay d = platform_display_function()(EGL_PLATFORM_DEVICE_EXT, devices[device], nullptr);
  if (!try_init(d)) no_device("EGL device " + std::to_string(device) + " cannot be initialised");
  return {d, "device " + std::to_string(device)};
}

EGLConfig choose_config(EGLDisplay display) {
  // A pbuffer-capable config also serves surfaceless contexts; without one, any ES 3 config.
  for (EGLint surface : {EGL_PBUFFER_BIT, EGL_DONT_CARE}) {
    const EGLint attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE, surface,
                                 EGL_NONE};
    EGLConfig config = nullptr;
    EGLint count = 0;
    if (eglChooseConfig(display, attributes, &config, 1, &count) == EGL_TRUE && count > 0) {
      return config;
    }
  }
  no_device("EGL has no OpenGL ES 3 configuration");
}

// 1 + 2^-bits survives a render and a readback for every bits up to the answer.
int measure_mantissa_bits(GLuint framebuffer) {
  int bits = 0;
  for (int k = 1; k <= 23; ++k) {
    const float v = 1.0f + std::ldexp(1.0f, -k);
    const float color[4] = {v, -v, v, 1.0f};
    glClearBufferfv(GL_COLOR, 0, color);
    float read[4] = {};
    glReadPixels(0, 0, 1, 1, GL_RGBA, GL_FLOAT, read);
    if (glGetError() != GL_NO_ERROR || read[0] != v || read[1] != -v) break;
    bits = k;
  }
  return bits;
}

}  // namespace

std::vector<EGLDeviceEXT> egl_devices() {
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  auto query_devices =
      reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  if (!platform_display_function() || !query_devices ||
      !has_extension(client, "EGL_EXT_platform_device")) {
    return {};
  }
  EGLDeviceEXT devices[16];
  EGLint count = 0;
  if (query_devices(16, devices, &count) != EGL_TRUE) return {};
  return std::vector<EGLDeviceEXT>(devices, devices + count);
}

const char* to_string(TextureFormat format) {
  switch (format) {
    case TextureFormat::Rgba32F:
      return "RGBA32F";
    case TextureFormat::Rgba16F:
      return "RGBA16F";
    case TextureFormat::Rgba32I:
      return "RGBA32I";
    case TextureFormat::Rgba32UI:
      return "RGBA32UI";
  }
  return "?";
}

GLenum internal_format(TextureFormat format) {
  switch (format) {
    case TextureFormat::Rgba32F:
      return GL_RGBA32F;
    case TextureFormat::Rgba16F:
      return GL_RGBA16F;
    case TextureFormat::Rgba32I:
      return GL_RGBA32I;
    case TextureFormat::Rgba32UI:
      return GL_RGBA32UI;
  }
  return GL_NONE;
}

size_t bytes_per_texel(TextureFormat format) { return format == TextureFormat::Rgba16F ? 8 : 16; }

bool is_integer(TextureFormat format) {
  return format == TextureFormat::Rgba32I || format == TextureFormat::Rgba32UI;
}

GLenum pixel_format(TextureFormat format) { return is_integer(format) ? GL_RGBA_INTEGER : GL_RGBA; }

GLenum pixel_type(TextureFormat format) {
  if (format == TextureFormat::Rgba32I) return GL_INT;
  return format == TextureFormat::Rgba32UI ? GL_UNSIGNED_INT : GL_FLOAT;
}

Context::Context(const ContextOptions& options) {
  try {
    create(options);
  } catch (...) {
    destroy();
    throw;
  }
}

Context::~Context() { destroy(); }

void Context::create(const ContextOptions& options) {
  Display d = open_display(options.device);
  display_ = d.display;
  info_.platform = d.platform;
  if (eglBindAPI(EGL_OPENGL_ES_API) != EGL_TRUE) no_device("EGL cannot bind the OpenGL ES API");
  const EGLConfig config = choose_config(display_);
  const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0,
                                       EGL_NONE};
  context_ = eglCreateContext(display_, config, EGL_NO_CONTEXT, context_attributes);
  if (context_ == EGL_NO_CONTEXT) no_device("EGL cannot create an OpenGL ES 3.0 context");
  if (!has_extension(eglQueryString(display_, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context")) {
    const EGLint pbuffer_attributes[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    surface_ = eglCreatePbufferSurface(display_, config, pbuffer_attributes);
    if (surface_ == EGL_NO_SURFACE) throw_egl("EGL: creating a 1x1 pbuffer");
  }

  Scope scope(*this);
  auto text = [](GLenum name) {
    const GLubyte* s = glGetString(name);
    return s ? std::string(reinterpret_cast<const char*>(s)) : std::string();
  };
  info_.vendor = text(GL_VENDOR);
  info_.renderer = text(GL_RENDERER);
  info_.version = text(GL_VERSION);
  info_.shading_language_version = text(GL_SHADING_LANGUAGE_VERSION);
  glGetIntegerv(GL_MAJOR_VERSION, &info_.gl_major);
  glGetIntegerv(GL_MINOR_VERSION, &info_.gl_minor);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &info_.max_texture_size);
  glGetIntegerv(GL_MAX_TEXTURE_IMAGE_UNITS, &info_.max_texture_units);
  glGetIntegerv(GL_MAX_FRAGMENT_UNIFORM_VECTORS, &info_.max_fragment_uniform_vectors);
  if (info_.gl_major < 3) no_device("the context is " + info_.version + ", not OpenGL ES 3");

  glGenFramebuffers(1, &framebuffer_);
  glGenVertexArrays(1, &vertex_array_);
  check_gl("creating the framebuffer and vertex array");
  probe_float_rendering(options.allow_rgba32f);
  textures_ = std::make_unique<TexturePool>(*this, options.texture_pool_bytes);
  programs_ = std::make_unique<ProgramCache>(*this);
  info_.max_fragment_loop_steps = measure_fragment_loop_budget(*this);
}

void Context::probe_float_rendering(bool allow_rgba32f) {
  for (TextureFormat format : {TextureFormat::Rgba32F, TextureFormat::Rgba16F}) {
    if (format == TextureFormat::Rgba32F && !allow_rgba32f) continue;
    GLuint texture = 0;
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    glTexStorage2D(GL_TEXTURE_2D, 1, internal_format(format), 1, 1);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    const bool complete = glGetError() == GL_NO_ERROR &&
                          glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    const int bits = complete ? measure_mantissa_bits(framebuffer_) : 0;
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteTextures(1, &texture);
    while (glGetError() != GL_NO_ERROR) {
    }
    // Half floats keep 10 mantissa bits; anything less is not a usable float target.
    if (bits >= 10) {
      info_.format = format;
      info_.mantissa_bits = bits;
      if (format != TextureFormat::Rgba32F && allow_rgba32f) {
        log_once(LogLevel::Warn, "gl rgba16f:" + info_.renderer,
                 info_.renderer +
                     " cannot render to float32 textures: gpu-pixel keeps values in "
                     "RGBA16F, " +
                     std::to_string(bits) + " mantissa bits (results lose precision)");
      }
      return;
    }
  }
  no_device(info_.renderer + " cannot render to RGBA32F or RGBA16F textures");
}

void Context::destroy() noexcept {
  if (display_ == EGL_NO_DISPLAY) return;
  if (context_ != EGL_NO_CONTEXT) {
    try {
      Scope scope(*this);
      programs_.reset();
      textures_.reset();
      if (framebuffer_) glDeleteFramebuffers(1, &framebuffer_);
      if (vertex_array_) glDeleteVertexArrays(1, &vertex_array_);
    } catch (...) {
      // Destruction goes on: the context and its objects are released together below.
    }
    eglDestroyContext(display_, context_);
  }
  if (surface_ != EGL_NO_SURFACE) eglDestroySurface(display_, surface_);
  // Not eglTerminate: displays are shared per process, and another Context may still use it.
  display_ = EGL_NO_DISPLAY;
}

Context::Scope::Scope(Context& context) : context_(context) {
  context_.mutex_.lock();
  if (context_.scope_depth_++ == 0 &&
      eglMakeCurrent(context_.display_, context_.surface_, context_.surface_, context_.context_) !=
          EGL_TRUE) {
    --context_.scope_depth_;
    context_.mutex_.unlock();
    throw_egl("EGL: making the OpenGL ES context current");
  }
}

Context::Scope::~Scope() {
  if (--context_.scope_depth_ == 0) {
    eglMakeCurrent(context_.display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  }
  context_.mutex_.unlock();
}

}  // namespace kiln::gpu_pixel
