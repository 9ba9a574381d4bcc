// One definition function per op family; define_all_ops calls each.
#pragma once

namespace kiln {

class OpDefs;

void define_all_ops(OpDefs& defs);

void define_elementwise_ops(OpDefs& defs);    // unary, binary, comparison, Where, Cast, CumSum
void define_normalization_ops(OpDefs& defs);  // BatchNorm, LayerNorm, LRN, ...
void define_softmax_ops(OpDefs& defs);        // Softmax, LogSoftmax, Hardmax, the losses
void define_window_ops(OpDefs& defs);         // Conv, pooling, MaxUnpool, Col2Im
void define_matmul_ops(OpDefs& defs);         // Gemm, MatMul
void define_reduce_ops(OpDefs& defs);         // Reduce*, ArgMax, ArgMin
void define_concat_split_ops(OpDefs& defs);   // Split (Concat's rule is shape_defs)
void define_shape_ops(OpDefs& defs);          // Reshape, Slice, Concat, Pad, Squeeze, ...
void define_indexing_ops(OpDefs& defs);       // Gather, TopK, OneHot, Compress, NMS
void define_generator_ops(OpDefs& defs);      // ConstantOfShape, Range, random ops
void define_signal_ops(OpDefs& defs);         // DFT, STFT, window functions, MelWeightMatrix
void define_resize_ops(OpDefs& defs);         // Resize, Upsample, AffineGrid
void define_attention_ops(OpDefs& defs);      // Attention
void define_recurrent_ops(OpDefs& defs);      // LSTM, GRU, RNN
void define_quantization_ops(OpDefs& defs);   // QuantizeLinear, DequantizeLinear, ...
void define_ml_ops(OpDefs& defs);             // the element-wise ai.onnx.ml ops
void define_control_flow_ops(OpDefs& defs);   // If, Loop, SplitToSequence

}  // namespace kiln
