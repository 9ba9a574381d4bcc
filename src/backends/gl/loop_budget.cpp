#include "backends/gl/loop_budget.h"

#include <string>

#include "backends/gl/context.h"
#include "backends/gl/draw.h"
#include "backends/gl/program.h"
#include "backends/gl/shader_mains.h"
#include "backends/gl/texture.h"

namespace kiln::gl {
namespace {

// Float counting: compilers do not fold a float accumulation into a closed form, so the loop
// really runs.
constexpr const char* kShader = R"(
uniform int u_iterations;

float element(int e) {
  float count = 0.0;
  for (int i = 0; i < u_iterations; ++i) count += 1.0;
  return count;
}
)";

constexpr int kProbeIterations = 1 << 22;  // counted exactly in float32

}  // namespace

int64_t measure_fragment_loop_budget(Context& context) {
  const Program& program =
      context.programs().get("loop_budget", "", "", std::string(kShader) + kElementMain);
  TextureTensor counted(context, 1);
  draw(context, program, counted, {}, [&] { program.set("u_iterations", kProbeIterations); });
  float count[4] = {};
  download(counted, count);
  if (count[0] >= static_cast<float>(kProbeIterations)) return kUnlimitedLoopSteps;
  return static_cast<int64_t>(count[0]);
}

}  // namespace kiln::gl
