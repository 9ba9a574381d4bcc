// The activation functions of RNN, GRU and LSTM (parsed by opdefs/recurrent.h), applied in
// place to a gate's values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "opdefs/recurrent.h"

namespace kiln::recurrent {

// x[i] = f(x[i]) for i < n.
void apply_activation(const Activation& f, float* x, int64_t n);
void apply_activation(const Activation& f, double* x, int64_t n);

}  // namespace kiln::recurrent
