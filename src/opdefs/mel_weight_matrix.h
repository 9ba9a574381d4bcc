// MelWeightMatrix, defined once for the CPU kernel and the GPU backends: the edges of its
// triangular filters, read from the node's five scalar inputs.
//
// The output is [dft_length / 2 + 1, num_mel_bins]: filter m rises linearly from spectrum bin
// edges[m] to 1 at edges[m + 1] and falls back to 0 at edges[m + 2].
#pragma once

#include <cstdint>
#include <vector>

#include "opdefs/node_inputs.h"

namespace kiln {

struct MelFilters {
  int64_t mel_bins = 0, spectrum_bins = 0;
  std::vector<int64_t> edges;  // mel_bins + 2 spectrum bins, rising
};

// num_mel_bins, dft_length, sample_rate (int32/int64 scalars), lower_edge_hertz and
// upper_edge_hertz (float scalars): the filters, mel_bins + 2 points from the lower edge in equal
// steps of mel(f) = 2595 log10(1 + f / 700), each mapped to the spectrum bin at or below it. The
// step divides the mel range by mel_bins + 2, as the ONNX reference implementation (and its test
// data) do, so the last filter ends one step below upper_edge_hertz. kiln::Error naming the node
// for inputs that are not such scalars, non-positive sizes, edges out of order, or an upper edge
// beyond the spectrum.
MelFilters resolve_mel_filters(const NodeInputs& inputs);

}  // namespace kiln
