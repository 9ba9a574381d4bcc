// Tensors seen as lines along the middle axis of a folded (outer, axis_len, inner) shape: line
// r = o * inner + i holds X[o, 0..axis_len), i]. Reductions, Softmax and the line
// normalizations work line by line; the host folds the dimensions before and after the axis.
#pragma once

#include <cstdint>
#include <string>

#include "backends/gpu_pixel/program.h"

namespace kiln::gpu_pixel {

struct FoldedShape {
  int64_t outer = 1;
  int64_t axis_len = 1;
  int64_t inner = 1;

  int64_t lines() const { return outer * inner; }
  int64_t elements() const { return lines() * axis_len; }
  // Loop iterations of a fragment that walks `lines` lines `passes` times each: an upper bound
  // for the loop budget (loop_budget.h).
  int64_t loop_steps(int64_t lines_per_fragment, int64_t passes) const {
    return lines_per_fragment * passes * axis_len;
  }
};

// A stats draw (kLineStatsMain) computes two lines per fragment.
constexpr int64_t kStatsLinesPerFragment = 2;

// For kernels that keep two stats per line (elements 2r and 2r + 1): kiln::Error naming `where`
// on negative sizes, or when the elements or the stats go past 32-bit indexing.
void check_lines_with_stats(const FoldedShape& shape, const std::string& where);

// GLSL over lines, with the uniforms that set_line_uniforms() sets:
//   int line_start(int line)  the index of the line's first element; the next is u_inner on
//   int line_of(int e)        the line that element e lies on
inline constexpr const char* kLineIndexing = R"(
uniform int u_axis_len;
uniform int u_inner;

int line_start(int line) {
  int o = line / u_inner;
  return o * u_axis_len * u_inner + (line - o * u_inner);
}

int line_of(int e) { return e / (u_axis_len * u_inner) * u_inner + e % u_inner; }
)";

// u_axis_len and u_inner of the program in use; the caller has checked that they fit in 32 bits.
void set_line_uniforms(const Program& program, const FoldedShape& shape);

}  // namespace kiln::gpu_pixel
