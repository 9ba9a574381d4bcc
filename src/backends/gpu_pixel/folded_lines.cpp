#include "backends/gpu_pixel/folded_lines.h"

#include "backends/gpu_pixel/operand_checks.h"
#include "kiln/error.h"

namespace kiln::gpu_pixel {

void check_lines_with_stats(const FoldedShape& s, const std::string& where) {
  check(s.outer >= 0 && s.axis_len >= 0 && s.inner >= 0, where + ": negative size");
  check(s.elements() <= kIndexLimit && 2 * s.lines() <= kIndexLimit,
        where + ": more elements than 32-bit indexing reaches");
}

void set_line_uniforms(const Program& program, const FoldedShape& s) {
  program.set("u_axis_len", static_cast<int>(s.axis_len));
  program.set("u_inner", static_cast<int>(s.inner));
}

}  // namespace kiln::gpu_pixel
