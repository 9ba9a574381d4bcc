#include "backends/gpu_pixel/fill.h"

#include <string>

#include "backends/gpu_pixel/draw.h"
#include "backends/gpu_pixel/program.h"
#include "backends/gpu_pixel/shader_mains.h"

namespace kiln::gpu_pixel {
namespace {

constexpr const char* kShader = R"(
uniform float u_value;

float element(int e) { return u_value; }
)";

}  // namespace

void Fill::record(float value, TextureTensor& y) const {
  const Program& program =
      context_.programs().get("fill", "", "", std::string(kShader) + kElementMain);
  draw(context_, program, y, {}, [&] { program.set("u_value", value); });
}

}  // namespace kiln::gpu_pixel
