// Memory with changing input shapes: thousands of schedules, each with another input width, on
// a model with a dynamic dimension must leave the process's resident memory flat once warmed
// up. KILN_SOAK_RUNS sets the number of schedules (`make soak` runs a long one); the default is
// a short run for CI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "graph_builder.h"
#include "sanitizer_build.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE));
}

// y = tanh(relu(x) * sigmoid(x) + x) over x: float32[16, width], through a few intermediates
// (a few hundred KiB each) that the memory plans lay out.
Model dynamic_width_model() {
  GraphBuilder b;
  b.symbolic_input("x", DataType::Float32, {"", "width"});
  b.ir().graph.inputs[0].shape[0] = Dim{16, ""};
  b.node("Relu", {"x"}, {"r"});
  b.node("Sigmoid", {"x"}, {"s"});
  b.node("Mul", {"r", "s"}, {"m"});
  b.node("Add", {"m", "x"}, {"a"});
  b.node("Tanh", {"a"}, {"y"});
  b.output("y");
  return b.build();
}

float expected(float x) {
  const float r = x > 0 ? x : 0;
  return std::tanh(r * (1 / (1 + std::exp(-x))) + x);
}

TEST(Soak, ResidentMemoryStaysFlatWithANewWidthEverySchedule) {
#if defined(KILN_UNDER_ADDRESS_SANITIZER)
  GTEST_SKIP() << "AddressSanitizer's quarantine holds freed memory: resident memory says "
                  "nothing there";
#endif
  const char* env = std::getenv("KILN_SOAK_RUNS");
  const int runs = env ? std::max(100, std::atoi(env)) : 2000;
  Worker worker(dynamic_width_model());
  // Widths 1000..1000+span-1 in a scrambled order, no two schedules in a row alike: even
  // schedules bring a width never seen, odd ones one seen a little earlier (its plan cached).
  const int span = std::max(runs, 4000);
  auto width_of = [&](int i) -> int64_t {
    const int k = i % 2 == 0 ? i / 2 : std::max(0, i / 2 - 3);
    return 1000 + (static_cast<int64_t>(k) * 7919) % span;
  };
  std::vector<float> p(static_cast<size_t>(16 * (1000 + span)));
  const int warm_up = runs / 4;
  uint64_t after_warm_up = 0, highest = 0, first = 0;
  for (int i = 0; i < runs; ++i) {
    const int64_t width = width_of(i);
    // The input lives in one buffer for the whole test (read back before it is rewritten), so
    // that the test's own allocations do not blur the figure.
    for (size_t j = 0; j < static_cast<size_t>(16 * width); ++j)
      p[j] = static_cast<float>((j + i) % 13) - 6;
    worker.schedule({{"x", Tensor::wrap(p.data(), DataType::Float32, {16, width}, nullptr)}});
    const Tensor y = worker.peek_output("y").readback_and_clone();
    ASSERT_EQ(y.shape(), (Shape{16, width}));
    for (int64_t j : {int64_t{0}, width * 7 + 3, y.element_count() - 1})
      ASSERT_NEAR(y.data<float>()[j], expected(p[static_cast<size_t>(j)]), 1e-5f)
          << "run " << i << " width " << width;
    const uint64_t resident = resident_bytes();
    if (i == 0) first = resident;
    if (i == warm_up) after_warm_up = resident;
    if (i > warm_up) highest = std::max(highest, resident);
  }
  const MemoryStats stats = worker.memory_stats();
  const uint64_t last = resident_bytes();
  std::cout << "soak: " << runs << " schedules; resident memory first " << first / 1024
            << " KiB, after warm-up (" << warm_up << ") " << after_warm_up / 1024
            << " KiB, highest after " << highest / 1024 << " KiB, last " << last / 1024
            << " KiB; worker: " << stats.cached_plans << " plans cached (" << stats.plan_cache_bytes
            << " bytes), arena " << stats.arena_bytes << " bytes, peak " << stats.peak_bytes
            << " bytes\n";
  // Flat: within 5% (and 2 MiB for allocator noise) of the figure after warm-up.
  EXPECT_LE(highest, after_warm_up + after_warm_up / 20 + (uint64_t{2} << 20));
  // The arena serves every cached plan: no larger than the largest one needs (widths < 1000 +
  // span, 16 rows, float32, a few values alive at once, 64-byte rounding).
  EXPECT_LE(stats.arena_bytes, uint64_t{4} * 16 * 4 * static_cast<uint64_t>(1000 + span) + 4096);
}

}  // namespace
}  // namespace kiln::testing
