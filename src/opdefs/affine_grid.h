// AffineGrid's sizes per run and the normalised coordinates it transforms, shared by the CPU
// kernel and the GPU ones.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/shape.h"
#include "opdefs/node_inputs.h"

namespace kiln {

struct AffineGridSizes {
  Shape size;           // the host-held size input: (N, C, H, W) or (N, C, D, H, W)
  int64_t spatial = 2;  // 2 or 3 spatial axes
  Shape out_shape;      // [N, (D,) H, W, spatial]
};

// For theta [N, spatial, spatial + 1] and the size input (int32 or int64); kiln::Error naming
// the node for inputs the op rejects.
AffineGridSizes resolve_affine_grid(const NodeInputs& inputs);

// The normalised coordinates of the `n` positions along one axis. With align_corners the end
// positions sit on -1 and 1; without, the pixels' centres tile [-1, 1]. A single position is 0
// either way (as PyTorch has it).
std::vector<double> affine_grid_coordinates(int64_t n, bool align_corners);

}  // namespace kiln
