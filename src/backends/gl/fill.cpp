#include "backends/gl/fill.h"

#include <string>

#include "backends/gl/draw.h"
#include "backends/gl/program.h"
#include "backends/gl/shader_mains.h"

namespace kiln::gl {
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

}  // namespace kiln::gl
