// Model bytes -> load, then one run on the CPU with inputs made from the declared inputs.
#include "load_and_run.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kiln::fuzz::load_and_run_once(data, size);
  return 0;
}
