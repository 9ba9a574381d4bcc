#include "backends/gpu_pixel/loop_budget.h"

#include <GLES3/gl3.h>

#include "backends/gpu_pixel/context.h"
#include "backends/gpu_pixel/gl_check.h"
#include "backends/gpu_pixel/program.h"

namespace kiln::gpu_pixel {
namespace {

// Counts in float (compilers do not fold a float accumulation into a closed form, so the loop
// really runs) and writes the count in base-256 digits, exact even in a half-float target.
constexpr const char* kShader = R"(
uniform int u_iterations;

void main() {
  float count = 0.0;
  for (int i = 0; i < u_iterations; ++i) count += 1.0;
  out_texel = vec4(floor(count / 65536.0), mod(floor(count / 256.0), 256.0), mod(count, 256.0),
                   0.0);
}
)";

constexpr int kProbeIterations = 1 << 22;  // counted exactly in float32

}  // namespace

int64_t measure_fragment_loop_budget(Context& context) {
  // Its own 1x1 target rather than a pooled tensor: the probe leaves no texture behind.
  const Program& program = context.programs().get("loop_budget", "", "", kShader);
  GLuint texture = 0;
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexStorage2D(GL_TEXTURE_2D, 1, internal_format(context.format()), 1, 1);
  glBindFramebuffer(GL_FRAMEBUFFER, context.framebuffer());
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
  glViewport(0, 0, 1, 1);
  glUseProgram(program.id());
  program.set("u_iterations", kProbeIterations);
  glBindVertexArray(context.vertex_array());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  float digits[4] = {};
  glReadPixels(0, 0, 1, 1, GL_RGBA, GL_FLOAT, digits);
  glUseProgram(0);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteTextures(1, &texture);
  check_gl("measuring the fragment loop budget");
  const auto count = static_cast<int64_t>(digits[0]) * 65536 +
                     static_cast<int64_t>(digits[1]) * 256 + static_cast<int64_t>(digits[2]);
  return count >= kProbeIterations ? kUnlimitedLoopSteps : count;
}

}  // namespace kiln::gpu_pixel
