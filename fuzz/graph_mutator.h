// A structure-aware mutation of an ONNX model: parses the bytes, changes one thing a model
// author (or an attacker) could change — an attribute, a declared shape, an initializer's size
// or type, an op type, a node's wiring, an opset — anywhere in the graph or its subgraphs, and
// serialises the result. Raw byte flips mostly break the protobuf framing and never reach the
// kernels; these mutations keep the file valid and go after the checks behind it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::fuzz {

// Mutates the model in `data` (size bytes, room for max_size) in place and returns its new
// size, or 0 when the bytes are not a model or the result does not fit.
size_t mutate_model(uint8_t* data, size_t size, size_t max_size, unsigned seed);

}  // namespace kiln::fuzz
