// The signal ops' attributes and sizes (DFT, the window functions, MelWeightMatrix), shared by
// the CPU kernels and shape inference so that both give the same output shapes.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/graph.h"
#include "kiln/shape.h"
#include "opdefs/node_inputs.h"

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

// The value of input `index`, a scalar or one-element int32/int64 host tensor; kiln::Error
// naming the node and `what` otherwise (absent, another shape or type).
int64_t scalar_int_value(const NodeInputs& inputs, size_t index, const char* what);

// One run's DFT sizes from its inputs: the signal's shape, and dft_length and the axis (opset
// 20 on) read from their host values.
DftSizes resolve_dft(const NodeInputs& inputs, const DftAttrs& attrs, int64_t max_length);

struct StftAttrs {
  bool onesided = true;  // keep frame_length / 2 + 1 bins (real signals only)
};

StftAttrs parse_stft_attrs(const NodeInfo& info);

// One STFT run: the signal [batch, signal_length, components] cut into `frames` frames of
// frame_length samples every frame_step samples, each transformed into `bins` complex bins:
// output [batch, frames, bins, 2].
struct StftSizes {
  int64_t batch = 0, signal_length = 0, components = 1;
  int64_t frame_step = 1, frame_length = 0, frames = 0, bins = 0;
  bool has_window = false;  // input 2, frame_length values of the signal's type
  Shape out_shape;
};

// For the signal, frame_step, window and frame_length inputs (the scalars read from host values);
// kiln::Error naming the node for inputs the op rejects. Frame lengths above `max_length` are
// rejected.
StftSizes resolve_stft(const NodeInputs& inputs, const StftAttrs& attrs, int64_t max_length);

}  // namespace kiln
