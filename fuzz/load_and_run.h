// What the model fuzzers do with their bytes: load them as a model and, when that succeeds, run
// the model once on the CPU with inputs made from its declared inputs and read every output.
// A kiln::Error anywhere is the expected answer to bad bytes; anything else (a crash, a
// sanitizer report, another exception, a hang, a huge allocation) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::fuzz {

// An empty folder, for the base directory of external data: a mutated file that names another
// file must get a kiln::Error, never read whatever happens to lie beside the fuzzer.
const std::string& no_external_data_dir();

void load_model_only(const uint8_t* data, size_t size);
void load_and_run_once(const uint8_t* data, size_t size);

}  // namespace kiln::fuzz
