// Lowering of a convolution to a matrix product (and back, for ConvTranspose).
//
// The column matrix of an image with C channels has C * kernel_size rows, ordered
// (channel, kernel tap) like a Conv weight row, and one column per window position: column j
// of row (c, k) holds the image value under tap k of window j, or 0 in the padding.
#pragma once

#include <cstdint>

#include "opdefs/window.h"

namespace kiln::cpu {

// Writes columns [col_begin, col_end) of the column matrix of `image` (channels x in_size)
// into `cols`, row-major with row length col_end - col_begin.
void im2col(const WindowGeometry& g, int64_t channels, const float* image, int64_t col_begin,
            int64_t col_end, float* cols);

// The adjoint: adds every element of `cols` (channels * kernel_size rows, out_size columns)
// onto the image position it came from; contributions from the padding are dropped.
void col2im_add(const WindowGeometry& g, int64_t channels, const float* cols, float* image);

}  // namespace kiln::cpu
