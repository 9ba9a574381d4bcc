// How many loop iterations one fragment may run. llvmpipe ends a shader invocation's loops after
// 65535 iterations in all (one counter shared by every loop of the invocation) and carries on
// with whatever was computed, without an error; a GPU that did this would give wrong results
// silently too. The context measures the budget at start-up, and draw() refuses a kernel whose
// fragments could loop longer, so that layer runs on the CPU instead.
#pragma once

#include <cstdint>

namespace kiln::gpu_pixel {

class Context;

// No limit was found: the probe's loop ran to the end.
constexpr int64_t kUnlimitedLoopSteps = INT64_MAX;

// Iterations a fragment of a kernel may loop, leaving room for the few a kernel spends on index
// math over its rank.
constexpr int64_t kLoopStepsReserve = 256;

// Draws one fragment that counts up to 2^22 in a loop and reads back how far it got: the budget,
// or kUnlimitedLoopSteps when it got there. Used inside the context's Scope, once its program
// cache exists.
int64_t measure_fragment_loop_budget(Context& context);

}  // namespace kiln::gpu_pixel
