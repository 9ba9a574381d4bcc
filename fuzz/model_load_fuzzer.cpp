// Model bytes -> load_model_from_bytes (ONNX or .kiln): parsing, import and the load-time passes.
#include "load_and_run.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kiln::fuzz::load_model_only(data, size);
  return 0;
}
