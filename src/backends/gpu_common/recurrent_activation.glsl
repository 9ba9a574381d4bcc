// The activation functions of RNN, GRU and LSTM (ActivationKind in opdefs/recurrent.h, by value),
// as the CPU applies them (ops/recurrent_activation.cpp), for both GPU backends. Comparisons
// rather than min/max, so NaN passes through. Needs shader_math.glsl before it.
float recurrent_activate(float v, int kind, float a, float b) {
  if (kind == 0) return v < 0.0 ? 0.0 : v;         // Relu
  if (kind == 1) return tanh_(v);                  // Tanh
  if (kind == 2) return sigmoid_(v);               // Sigmoid
  if (kind == 3) return a * v + b;                 // Affine
  if (kind == 4) return v < 0.0 ? a * v : v;       // LeakyRelu
  if (kind == 5) return v > a ? v : 0.0;           // ThresholdedRelu
  if (kind == 6) return a * tanh_(b * v);          // ScaledTanh
  if (kind == 7) {                                 // HardSigmoid
    float s = a * v + b;
    return s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
  }
  if (kind == 8) return v < 0.0 ? a * expm1_(v) : v;  // Elu
  if (kind == 9) return v / (1.0 + abs(v));           // Softsign
  return softplus_(v);                                // Softplus
}
