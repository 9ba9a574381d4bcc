// Einsum's definition: the equation, parsed once at load time, its resolution against a run's
// shapes, and the output shape rule. The CPU contraction (backends/cpu/einsum.h) and the GPU
// kernels run the resolved problem.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "kiln/tensor.h"

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

// An equation resolved against a run's operands, in dense label numbering: the output's labels
// first (in output order, ellipsis expanded), then the summed ones.
struct EinsumProblem {
  int num_labels = 0;
  int num_out = 0;
  Shape sizes;                  // per dense label
  std::vector<int64_t> stride;  // [operand][dense label], 0 where the label is absent/broadcast
  Shape out_shape;
  int64_t out_count = 1, sum_count = 1;
};

// Fills `r` (reusing its storage) for the operands' shapes; kiln::Error ("Einsum: ...") when
// they do not fit the equation.
void resolve_einsum(const EinsumEquation& eq, std::span<const Tensor* const> inputs,
                    EinsumProblem& r);

}  // namespace kiln
