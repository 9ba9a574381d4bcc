#include "backends/gpu_common/shader_sources.h"

namespace kiln {
namespace {

// Each generated file is one raw string literal (cmake/embed_text.cmake).
constexpr char kShaderMath[] =
#include "gpu_common_text/shader_math.glsl.txt"
    ;
constexpr char kRecurrentActivation[] =
#include "gpu_common_text/recurrent_activation.glsl.txt"
    ;
constexpr char kUnaryOps[] =
#include "gpu_common_text/unary_ops.inc.txt"
    ;

}  // namespace

std::string_view shader_math_glsl() { return kShaderMath; }
std::string_view recurrent_activation_glsl() { return kRecurrentActivation; }
std::string_view unary_ops_glsl() { return kUnaryOps; }

}  // namespace kiln
