// The recording run's recycler of dead values' host memory (runtime/storage_recycler.h): it
// hands a kept block to a value of about its size, and never holds more than its bound.
#include "runtime/storage_recycler.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include "graph_builder.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

std::shared_ptr<Storage> block(size_t bytes) {
  return Storage::allocate(DataType::UInt8, static_cast<int64_t>(bytes));
}

TEST(StorageRecycler, HandsAKeptBlockToARequestOfAboutItsSize) {
  StorageRecycler recycler;
  auto storage = block(1 << 20);
  const void* data = storage->data();
  recycler.give(std::move(storage));
  EXPECT_EQ(recycler.take(2 << 20), nullptr);           // too small for it
  EXPECT_EQ(recycler.take((1 << 20) / 2), nullptr);     // far larger than asked: not wasted
  const auto reused = recycler.take((1 << 20) - 4096);  // within an eighth
  ASSERT_NE(reused, nullptr);
  EXPECT_EQ(reused->data(), data);
  EXPECT_EQ(recycler.take((1 << 20) - 4096), nullptr);  // handed out once
}

TEST(StorageRecycler, KeepsOnlyLargeBlocksNobodyElseHolds) {
  StorageRecycler recycler;
  recycler.give(block(1024));  // a heap block: the C++ heap reuses it anyway
  EXPECT_EQ(recycler.take(1024), nullptr);
  auto shared = block(1 << 20);
  auto holder = shared;
  recycler.give(std::move(shared));  // still another's: not kept
  EXPECT_EQ(recycler.take(1 << 20), nullptr);
  EXPECT_EQ(holder.use_count(), 1);
}

TEST(StorageRecycler, DropsTheOldestBeyondItsBound) {
  StorageRecycler recycler;
  // Five blocks of 1, 1.2, ... 1.8 times `base`, each outside the others' size window: the
  // last four fit the bound, all five do not.
  const size_t base = StorageRecycler::kMaxBytes / 64 * 10;
  const auto size = [&](int i) { return base + base / 5 * static_cast<size_t>(i); };
  std::vector<const void*> data;
  for (int i = 0; i < 5; ++i) {
    auto storage = block(size(i));
    data.push_back(storage->data());
    recycler.give(std::move(storage));
  }
  EXPECT_EQ(recycler.take(size(0)), nullptr) << "the oldest went to make room";
  for (int i = 1; i < 5; ++i) {
    const auto storage = recycler.take(size(i));
    ASSERT_NE(storage, nullptr) << i;
    EXPECT_EQ(storage->data(), data[static_cast<size_t>(i)]);
  }
}

long minor_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// A model's first run with new shapes has no memory plan and allocates each value on its own.
// A chain of 16 values of 1 MiB each then touches the memory of about three, not of sixteen:
// each value takes the pages of one that died, which are resident already (a fresh page costs
// a fault, microseconds on a virtual machine).
TEST(StorageRecycler, TheRecordingRunReusesTheMemoryOfDeadValues) {
  GraphBuilder b;
  b.input("x", DataType::Float32, {1, 1 << 18});
  std::string previous = "x";
  for (int i = 0; i < 16; ++i) {
    const std::string next = "v" + std::to_string(i);
    b.node(i % 2 ? "Tanh" : "Relu", {previous}, {next});
    previous = next;
  }
  b.node("Neg", {previous}, {"y"});
  b.output("y");
  Worker worker(b.build(), Backend::Cpu, {.num_threads = 1});
  const Tensor x = Tensor::zeros(DataType::Float32, {1, 1 << 18});
  const long before = minor_page_faults();
  worker.schedule({{"x", x}});
  worker.peek_output("y").readback_and_clone();
  const long faults = minor_page_faults() - before;
  // 17 fresh MiB would be 4,352 pages of 4 KiB; the output, a copy of it and three
  // intermediate values are 1,280.
  EXPECT_LT(faults, 2048) << faults << " pages touched";
}

}  // namespace
}  // namespace kiln::testing
