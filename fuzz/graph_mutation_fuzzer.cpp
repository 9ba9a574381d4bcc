// Valid models mutated by structure (graph_mutator.h), then loaded and run once on the CPU.
// When the bytes are not a model (libFuzzer's own mutations can break them), libFuzzer's byte
// mutations take over, so the target still explores the parser.
#include <cstddef>
#include <cstdint>

#include "graph_mutator.h"
#include "load_and_run.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  const size_t mutated = kiln::fuzz::mutate_model(data, size, max_size, seed);
  return mutated > 0 ? mutated : LLVMFuzzerMutate(data, size, max_size);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kiln::fuzz::load_and_run_once(data, size);
  return 0;
}
