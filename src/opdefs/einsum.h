// Einsum's definition: the equation, parsed once at load time, and the output shape rule. The
// CPU contraction (backends/cpu/einsum.h) runs the parsed equation.
#pragma once

#include <string_view>
#include <vector>

namespace kiln {

// Label ids: 'A'..'Z' are 0..25 and 'a'..'z' 26..51 (ASCII order, which is the order of the
// implicit output); kEllipsis stands for "...".
inline constexpr int kEinsumLetters = 52;
inline constexpr int kEllipsis = -1;

struct EinsumEquation {
  std::vector<std::vector<int>> terms;  // one per operand
  std::vector<int> output;              // explicit, or derived as numpy does
  bool explicit_output = false;
};

// kiln::Error describing what is wrong with the equation.
EinsumEquation parse_einsum(std::string_view equation, size_t num_inputs);

}  // namespace kiln
