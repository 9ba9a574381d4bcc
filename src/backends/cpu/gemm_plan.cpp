#include "backends/cpu/gemm_plan.h"

#include <algorithm>

#include "core/thread_pool.h"

namespace kiln::cpu::gemm_detail {

int available_threads() {
  // Inside a split loop the other threads have their own ranges: a nested split runs inline.
  if (ThreadPool::in_parallel_body()) return 1;
  ThreadPool* pool = ThreadPool::current();
  return (pool ? *pool : ThreadPool::shared()).num_threads();
}

PartGrid plan_parts(int64_t m, int64_t n, int64_t k, int64_t mr, int64_t nr, int threads,
                    bool columns_first) {
  PartGrid grid;
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) *
                       static_cast<double>(std::max<int64_t>(k, 1));
  if (threads <= 1 || flops < kMinParallelFlops) return grid;
  // Two parts per thread let a thread that the (possibly shared) host slows down hand work to
  // the other; more would cost extra packing (parts that share rows or columns pack the same
  // A or B slices), and moderate products get one part per thread for the same reason.
  const int64_t per_thread = flops >= 2e8 ? 2 : 1;
  const int64_t wanted = int64_t{threads} * per_thread;
  const int64_t row_panels = (m + mr - 1) / mr;
  const int64_t col_panels = (n + nr - 1) / nr;
  while (grid.count() < wanted) {
    const bool can_rows = row_panels >= 2 * grid.row_parts;
    const bool can_cols = col_panels >= 2 * grid.col_parts;
    if (!can_rows && !can_cols) break;
    // Halve the longer side of a part: square parts share each A row block and each B panel
    // among the most FMAs. columns_first splits columns until every thread has some.
    const bool rows_longer = m * grid.col_parts >= n * grid.row_parts;
    const bool prefer_cols = columns_first && grid.col_parts < threads;
    if (can_rows && (!can_cols || (rows_longer && !prefer_cols))) {
      grid.row_parts *= 2;
    } else {
      grid.col_parts *= 2;
    }
  }
  return grid;
}

int64_t even_block(int64_t total, int64_t max_block, int64_t multiple) {
  if (total <= max_block) return total;
  const int64_t blocks = (total + max_block - 1) / max_block;
  int64_t block = (total + blocks - 1) / blocks;
  const int64_t rounded = (block + multiple - 1) / multiple * multiple;
  return rounded <= max_block ? rounded : block;
}

}  // namespace kiln::cpu::gemm_detail
