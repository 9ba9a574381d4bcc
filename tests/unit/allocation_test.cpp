// A steady-state schedule allocates nothing: memory is planned per input-shape signature on
// the first run and reused afterwards. Counts every heap allocation in the process, on every
// thread, between schedule() and the output becoming ready.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>

#include "kiln/kiln.h"
#include "sanitizer_build.h"

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
// A place to break in a debugger to see who allocates.
__attribute__((noinline)) void count_allocation() {
  allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

// AddressSanitizer replaces the global allocator itself; counting there would mix the two.
// The release build runs this test.
#if !defined(KILN_UNDER_ADDRESS_SANITIZER)
#define KILN_COUNT_ALLOCATIONS 1
void* operator new(size_t size) {
  if (counting.load(std::memory_order_relaxed)) count_allocation();
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return operator new(size); }
void* operator new(size_t size, std::align_val_t align) {
  if (counting.load(std::memory_order_relaxed)) count_allocation();
  const size_t a = static_cast<size_t>(align);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size, std::align_val_t align) { return operator new(size, align); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { std::free(p); }

#endif

namespace {

// Runs the model once more with counting on and returns the number of allocations.
long allocations_in_one_run(kiln::Worker& worker, const std::string& input, const kiln::Tensor& x) {
  allocations = 0;
  counting = true;
  worker.schedule({{input, x}});
  const kiln::Tensor& out = worker.peek_output();
  while (!out.is_readback_request_done()) std::this_thread::yield();
  counting = false;
  return allocations.load();
}

}  // namespace

TEST(SteadyState, ScheduleAllocatesNothing) {
#if !defined(KILN_COUNT_ALLOCATIONS)
  GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
#endif
  kiln::Model model = kiln::load_model(KILN_SOURCE_DIR "/demo/digits.onnx");
  kiln::Tensor x = kiln::load_tensor(KILN_SOURCE_DIR "/demo/samples/digits_8x8.npy");
  const std::string input = model.inputs()[0].name;
  for (int threads : {1, 2}) {
    kiln::Worker worker(model, kiln::Backend::Cpu, kiln::WorkerOptions{.num_threads = threads});
    // The first run with this shape plans memory; the pools' scratch buffers grow once.
    for (int warm = 0; warm < 4; ++warm) {
      worker.schedule({{input, x}});
      worker.peek_output().readback_and_clone();
    }
    for (int run = 0; run < 5; ++run) {
      EXPECT_EQ(allocations_in_one_run(worker, input, x), 0)
          << "threads " << threads << ", run " << run;
    }
    // A new input shape plans anew; then it is steady again.
    kiln::Tensor two = kiln::Tensor::zeros(kiln::DataType::Float32, {2, 1, 8, 8});
    // A new shape is planned on its first run.
    for (int warm = 0; warm < 4; ++warm) {
      worker.schedule({{input, two}});
      worker.peek_output().readback_and_clone();
    }
    EXPECT_EQ(allocations_in_one_run(worker, input, two), 0)
        << "threads " << threads << " after a shape change";
  }
}
