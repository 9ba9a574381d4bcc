// MelWeightMatrix's resolution per run, shared by the CPU kernel and the GPU ones: from the five
// host-held scalars, the matrix's size and the edges of its triangular filters, equally spaced
// on the mel scale, mel(f) = 2595 * log10(1 + f / 700), between lower_edge_hertz and
// upper_edge_hertz.
#pragma once

#include <cstdint>
#include <vector>

#include "opdefs/node_inputs.h"

namespace kiln {

// The output is [spectrum_bins, mel_bins]. Filter m, with left, center, right = edge[m],
// edge[m + 1], edge[m + 2], weighs bin j (j - left) / (center - left) on [left, center] (1 at
// center when left == center), then (right - j) / (right - center) on [center, right), and 0
// elsewhere.
struct MelWeightMatrixPlan {
  int64_t mel_bins = 0, spectrum_bins = 0;
  std::vector<int64_t> edge;  // mel_bins + 2 spectrum bins
};

// For the inputs num_mel_bins, dft_length, sample_rate (int32 or int64 scalars),
// lower_edge_hertz and upper_edge_hertz (float scalars); kiln::Error naming the node for values
// the op rejects.
MelWeightMatrixPlan resolve_mel_weight_matrix(const NodeInputs& inputs);

}  // namespace kiln
