// Turning OpenGL ES and EGL error codes into kiln::Error. GL reports errors through a sticky
// flag instead of return values, so each entry point that issues GL calls checks once at its end.
#pragma once

#include <EGL/egl.h>
#include <GLES3/gl3.h>

namespace kiln::gpu_pixel {

// Throws kiln::Error "<what>: GL_INVALID_OPERATION" (and so on) when GL recorded an error,
// clearing every recorded flag first so one failure cannot blame the next caller.
void check_gl(const char* what);

// Throws kiln::Error "<what>: EGL_BAD_MATCH" (and so on) with eglGetError()'s code.
[[noreturn]] void throw_egl(const char* what);

const char* gl_error_name(GLenum code);

}  // namespace kiln::gpu_pixel
