// Host memory for tensors (core/host_memory.h): aligned blocks, and large ones in 2 MiB pages
// where the kernel gives them, so that touching a fresh block costs few page faults.
#include "core/host_memory.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

namespace kiln::testing {
namespace {

long minor_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Whether mappings that ask for transparent huge pages get them ("always" or "madvise").
bool huge_pages_on_request() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(in, modes);
  return modes.find("[always]") != std::string::npos ||
         modes.find("[madvise]") != std::string::npos;
}

TEST(HostMemory, BlocksOfEverySizeAreAlignedAndWritable) {
  for (size_t bytes : {size_t{1}, size_t{100}, size_t{4096}, size_t{128} << 10,
                       (size_t{5} << 20) + 123, size_t{16} << 20}) {
    void* block = allocate_host_block(bytes);
    ASSERT_NE(block, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % 64, 0u) << bytes;
    std::memset(block, 0x5a, bytes);
    EXPECT_EQ(static_cast<unsigned char*>(block)[bytes - 1], 0x5a) << bytes;
    free_host_block(block, bytes);
  }
}

// A 16 MiB block is 4,096 pages of 4 KiB: in 2 MiB pages, writing it all faults a few times.
TEST(HostMemory, ALargeBlockIsTouchedInFewPageFaults) {
  if (!huge_pages_on_request()) GTEST_SKIP() << "this kernel gives no huge pages on request";
  const size_t bytes = size_t{16} << 20;
  void* block = allocate_host_block(bytes);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % (uintptr_t{2} << 20), 0u);
  const long before = minor_page_faults();
  std::memset(block, 1, bytes);
  const long faults = minor_page_faults() - before;
  free_host_block(block, bytes);
  // Where the kernel finds no free 2 MiB page it falls back to small ones; most must be huge.
  EXPECT_LT(faults, 1024) << faults << " page faults";
}

}  // namespace
}  // namespace kiln::testing
