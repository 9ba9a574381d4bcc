// Target-independent GEMM work planning: how to cut C into parts for the job system, and how
// large the cache blocks are.
#pragma once

#include <cstdint>

namespace kiln::cpu::gemm_detail {

// Threads a parallel_for issued from the calling thread would use (1 inside a parallel_for's
// body, where it runs inline).
int available_threads();

// Idle workers poll the job queue for a while before they sleep (core/thread_pool.h), so
// between layers a split costs a few microseconds, not a wake-up: it pays for compute-bound
// work of at least this many FLOPs (~25 us on one core)...
inline constexpr double kMinParallelFlops = 4e6;
// ...or memory-bound work (GEMV, packing) touching at least this many floats (2 MiB).
inline constexpr int64_t kMinParallelFloats = int64_t{1} << 19;

// C is cut into a grid of row_parts x col_parts parts, each run as one parallel_for item.
struct PartGrid {
  int64_t row_parts = 1;
  int64_t col_parts = 1;
  int64_t count() const { return row_parts * col_parts; }
};

// Plans parts for an M x N x K product on `threads` threads, in units of mr-row panels and
// nr-column panels. One thread, or a product too small to pay for waking a worker, gives one
// part, so single-threaded runs go straight to the kernel. columns_first splits columns until
// each thread has its own, for when parts that share columns duplicate work (packing B).
PartGrid plan_parts(int64_t m, int64_t n, int64_t k, int64_t mr, int64_t nr, int threads,
                    bool columns_first = false);

// [begin, end) of part `index` when `units` units are dealt out as evenly as possible.
inline int64_t part_begin(int64_t units, int64_t parts, int64_t index) {
  return units * index / parts;
}

// The block length, at most max_block and a multiple of `multiple` (when max_block allows),
// that splits `total` into the fewest nearly equal blocks: K = 288 with at most 256 becomes two
// blocks of 144 rather than 256 + 32, so no block runs the kernel on a sliver.
int64_t even_block(int64_t total, int64_t max_block, int64_t multiple);

}  // namespace kiln::cpu::gemm_detail
