// HannWindow, HammingWindow and BlackmanWindow: generalized cosine windows, defined once for the
// CPU kernel and the GPU backends:
//
//   w[n] = a0 - a1 * cos(2*pi*n / N) + a2 * cos(4*pi*n / N),   n = 0 .. size - 1
//
// with N = size when periodic (the default: the window of a spectral analysis, one period of a
// longer window) and N = size - 1 when symmetric (the window of a filter design). A one-point
// symmetric window has N = 0; like the usual libraries, it is [1].
#pragma once

#include "kiln/dtype.h"

namespace kiln {

class NodeInfo;

struct CosineWindow {
  double a0 = 0, a1 = 0, a2 = 0;
};

struct CosineWindowAttrs {
  CosineWindow coefficients;
  bool periodic = true;
  DataType out_type = DataType::Float32;  // output_datatype
};

// The node's window (by its op type) and attributes; kiln::Error naming the node for an op type
// that is no cosine window or an output_datatype the ops reject.
CosineWindowAttrs parse_cosine_window_attrs(const NodeInfo& info);

}  // namespace kiln
