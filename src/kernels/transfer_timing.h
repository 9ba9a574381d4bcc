// Timing of host<->device transfers for the profiler (WorkerOptions::profile). The runtime
// points the thread running a profiled layer's job at that layer's list; a backend wraps each
// upload or download it makes in a TimedTransfer. Without a list (profiling off) a
// TimedTransfer costs one thread-local read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln {

struct TransferNote {
  bool upload = true;  // host to device; false: device to host
  size_t bytes = 0;
  int input = -1;  // the layer's input that moved; -1 for data of the kernel's own (a table)
  int64_t start_ns = 0, end_ns = 0;  // steady_clock
};

// The list the calling thread notes transfers in, or nullptr.
std::vector<TransferNote>* transfer_notes();
void set_transfer_notes(std::vector<TransferNote>* notes);

int64_t steady_now_ns();

class TimedTransfer {
 public:
  TimedTransfer(bool upload, size_t bytes, int input = -1);
  ~TimedTransfer();
  TimedTransfer(const TimedTransfer&) = delete;
  TimedTransfer& operator=(const TimedTransfer&) = delete;

 private:
  std::vector<TransferNote>* notes_;
  TransferNote note_;
};

}  // namespace kiln
