// The main() functions that kernels share: a shader body defines the function its main() calls
// and ends with one of these.
//
//   const Program& program = context.programs().get("pool", variant, defines,
//                                                   std::string(kShader) + kElementMain);
#pragma once

namespace kiln::gpu_pixel {

// For a body that defines `VALUE element(int e)` (float unless the program's variant says
// otherwise, program.h), output element e computed on its own: evaluates it for each element of
// the fragment's texel below u_out_count, leaving the rest zero.
inline constexpr const char* kElementMain = R"(
void main() {
  ivec4 e = output_elements();
  VALUE4 v = VALUE4(0);
  for (int j = 0; j < 4; ++j) {
    if (e[j] >= u_out_count) break;
    v[j] = element(e[j]);
  }
  out_texel = v;
}
)";

// For a body that defines `vec2 line_stats(int line)`, two statistics of one line: a stats
// tensor holds them as elements 2r and 2r + 1 for line r, so texel t holds lines 2t and 2t + 1.
inline constexpr const char* kLineStatsMain = R"(
void main() {
  int line = 2 * output_texel();
  vec4 v = vec4(0.0);
  if (2 * line < u_out_count) v.xy = line_stats(line);
  if (2 * line + 2 < u_out_count) v.zw = line_stats(line + 1);
  out_texel = v;
}
)";

}  // namespace kiln::gpu_pixel
