// The recording run's recycler of dead values' host memory (runtime/storage_recycler.h): it
// hands a kept block to a value of about its size, and never holds more than its bound. What a
// run gains from it: MemoryStats.TheRecordingRunReusesTheMemoryOfDeadValues.
#include "runtime/storage_recycler.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kiln::testing
