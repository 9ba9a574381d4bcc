// Registration of the signal-processing ops, one function per file; register_signal_ops (in
// signal.cpp) calls each.
#pragma once

namespace kiln {

class OpRegistry;

void register_dft_ops(OpRegistry& registry);                // DFT (dft.cpp)
void register_stft_ops(OpRegistry& registry);               // STFT (stft.cpp)
void register_window_function_ops(OpRegistry& registry);    // Hann/Hamming/BlackmanWindow
void register_mel_weight_matrix_ops(OpRegistry& registry);  // MelWeightMatrix

}  // namespace kiln
