// One registration function per op family; register_all_ops calls each.
#pragma once

namespace kiln {

class OpRegistry;

void register_all_ops(OpRegistry& registry);

void register_elementwise_unary_ops(OpRegistry& registry);   // Abs, Exp, Sin, Not, IsNaN, ...
void register_elementwise_binary_ops(OpRegistry& registry);  // Add, Pow, And, Equal, Min, ...
void register_activation_ops(OpRegistry& registry);          // Relu, Gelu, Clip, Where, ...
void register_cast_ops(OpRegistry& registry);                // Cast, CastLike
void register_conv_ops(OpRegistry& registry);                // Conv, ConvTranspose
void register_pool_ops(OpRegistry& registry);             // MaxPool, AveragePool, LpPool, Global*
void register_matmul_ops(OpRegistry& registry);           // Gemm, MatMul, Einsum
void register_reduce_ops(OpRegistry& registry);           // Reduce*, ArgMax, ArgMin
void register_softmax_ops(OpRegistry& registry);          // Softmax, LogSoftmax, Hardmax
void register_normalization_ops(OpRegistry& registry);    // BatchNormalization, LayerNorm, LRN, ...
void register_shape_ops(OpRegistry& registry);            // Reshape, Shape, Squeeze, Identity, ...
void register_transpose_ops(OpRegistry& registry);        // Transpose, DepthToSpace, SpaceToDepth
void register_concat_split_ops(OpRegistry& registry);     // Concat, Split
void register_slice_ops(OpRegistry& registry);            // Slice
void register_gather_scatter_ops(OpRegistry& registry);   // Gather*, Scatter*
void register_expand_tile_pad_ops(OpRegistry& registry);  // Expand, Tile, Pad
void register_generator_ops(OpRegistry& registry);        // Range, OneHot, Trilu, EyeLike...
void register_scan_ops(OpRegistry& registry);             // CumSum, TopK, NonZero
void register_resize_ops(OpRegistry& registry);           // Resize, Upsample
void register_attention_ops(
    OpRegistry& registry);  // Attention, RotaryEmbedding, LinearAttention, CausalConvWithState,
                            // SwiGLU, FlexAttention, TensorScatter
void register_loss_ops(OpRegistry& registry);  // NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
void register_selection_ops(OpRegistry& registry);  // Unique, Compress, ReverseSequence
void register_random_ops(OpRegistry& registry);  // RandomUniform, RandomNormal, their -Like forms,
                                                 // Bernoulli, Multinomial
void register_linear_algebra_ops(OpRegistry& registry);  // Det
void register_quantization_ops(
    OpRegistry& registry);  // QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinear*,
                            // ConvInteger
void register_recurrent_ops(OpRegistry& registry);  // RNN, GRU, LSTM
void register_vision_ops(
    OpRegistry& registry);  // GridSample, AffineGrid, RoiAlign, NonMaxSuppression, MaxUnpool,
                            // DeformConv, Col2Im, CenterCropPad
void register_signal_ops(OpRegistry& registry);  // DFT, STFT, window functions, MelWeightMatrix
void register_image_decoder_ops(OpRegistry& registry);  // ImageDecoder
void register_string_ops(OpRegistry& registry);  // StringConcat, StringSplit, StringNormalizer,
                                                 // RegexFullMatch, TfIdfVectorizer
void register_ml_ops(OpRegistry& registry);      // ai.onnx.ml: LabelEncoder, TreeEnsemble,
                                                 // ArrayFeatureExtractor, Binarizer, ...
void register_training_ops(
    OpRegistry& registry);  // ai.onnx.preview.training: Adagrad, Adam, Momentum
void register_control_flow_ops(OpRegistry& registry);  // If, Loop, Scan
void register_sequence_ops(
    OpRegistry& registry);  // Sequence*, SplitToSequence, ConcatFromSequence, Optional*

}  // namespace kiln
