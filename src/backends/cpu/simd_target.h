// The SIMD target that kiln's run-time dispatch picks on this processor (Highway compiles the
// CPU kernels once per target and calls the best one the processor supports).
#pragma once

#include <string>
#include <string_view>

namespace kiln::cpu {

// Highway's name for it, e.g. "AVX3_ZEN4", "AVX3" (AVX-512), "AVX2", "SSE4", "EMU128".
std::string simd_target_name();

// Holds the dispatch to the target named `name` and those below it, as a processor without the
// better ones would run: "AVX2" on an AVX-512 machine runs the AVX2 kernels. Returns false,
// changing nothing, for a name this build or processor cannot run. Call it before any kernel
// runs: weights packed at load are laid out for the target chosen then.
bool limit_simd_target(std::string_view name);

// The targets this build can run on this processor, best first, separated by spaces.
std::string available_simd_targets();

// Applies the KILN_SIMD_TARGET environment variable (a target name, as above) once per process;
// the CPU backend calls it before its first kernel. An unknown name is a kiln::Error naming the
// available ones, at every call.
void apply_simd_target_from_env();

}  // namespace kiln::cpu
