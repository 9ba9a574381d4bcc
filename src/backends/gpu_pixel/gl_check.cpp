#include "backends/gpu_pixel/gl_check.h"

#include <string>

#include "kiln/error.h"

namespace kiln::gpu_pixel {

const char* gl_error_name(GLenum code) {
  switch (code) {
    case GL_INVALID_ENUM:
      return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
      return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
      return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
      return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
      return "GL_OUT_OF_MEMORY";
    default:
      return "unknown GL error";
  }
}

void check_gl(const char* what) {
  GLenum first = glGetError();
  if (first == GL_NO_ERROR) return;
  // Several flags may be set at once; drain them all.
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
  }
  throw Error(std::string(what) + ": " + gl_error_name(first));
}

void throw_egl(const char* what) {
  const EGLint code = eglGetError();
  const char* name = "unknown EGL error";
  switch (code) {
    case EGL_NOT_INITIALIZED:
      name = "EGL_NOT_INITIALIZED";
      break;
    case EGL_BAD_ACCESS:
      name = "EGL_BAD_ACCESS";
      break;
    case EGL_BAD_ALLOC:
      name = "EGL_BAD_ALLOC";
      break;
    case EGL_BAD_ATTRIBUTE:
      name = "EGL_BAD_ATTRIBUTE";
      break;
    case EGL_BAD_CONFIG:
      name = "EGL_BAD_CONFIG";
      break;
    case EGL_BAD_CONTEXT:
      name = "EGL_BAD_CONTEXT";
      break;
    case EGL_BAD_DISPLAY:
      name = "EGL_BAD_DISPLAY";
      break;
    case EGL_BAD_MATCH:
      name = "EGL_BAD_MATCH";
      break;
    case EGL_BAD_PARAMETER:
      name = "EGL_BAD_PARAMETER";
      break;
    case EGL_BAD_SURFACE:
      name = "EGL_BAD_SURFACE";
      break;
    case EGL_CONTEXT_LOST:
      name = "EGL_CONTEXT_LOST";
      break;
    default:
      break;
  }
  throw Error(std::string(what) + ": " + name);
}

}  // namespace kiln::gpu_pixel
