// The signal ops' attributes and sizes (DFT, the window functions, MelWeightMatrix), shared by
// the CPU kernels and shape inference so that both give the same output shapes.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/graph.h"
#include "kiln/shape.h"

namespace kiln {

class NodeInfo;

// The output_datatype attribute of the window and mel ops: a real numeric type, float by
// default; info.fail for others.
DataType output_datatype_attr(const NodeInfo& info);

struct DftAttrs {
  bool inverse = false;
  bool onesided = false;
  bool axis_is_input = false;  // opset 20 on: the axis is input 2 (default -2)
  int64_t axis_attr = 1;
};

DftAttrs parse_dft_attrs(const NodeInfo& info);

// One DFT's sizes: the transform runs along `axis` (non-negative) of the input, of length n,
// giving out_length values of out_components (1: real, 2: complex) each.
struct DftSizes {
  int64_t axis = 0;
  int64_t n = 0;
  int64_t out_length = 0;
  int64_t out_components = 2;
  bool half_spectrum = false;  // inverse of a onesided spectrum: a real signal
  Shape out_shape;
};

// For input shape `shape`, the dft_length input's value and the axis input's (when given);
// kiln::Error naming `node` for a node the op rejects. Lengths above `max_length` are rejected.
DftSizes resolve_dft(const ir::Node& node, const DftAttrs& attrs, const Shape& shape,
                     std::optional<int64_t> length, std::optional<int64_t> axis_input,
                     int64_t max_length);

}  // namespace kiln
