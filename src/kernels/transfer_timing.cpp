#include "kernels/transfer_timing.h"

#include <chrono>

namespace kiln {
namespace {
thread_local std::vector<TransferNote>* notes_of_thread = nullptr;
}

std::vector<TransferNote>* transfer_notes() { return notes_of_thread; }
void set_transfer_notes(std::vector<TransferNote>* notes) { notes_of_thread = notes; }

int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

TimedTransfer::TimedTransfer(bool upload, size_t bytes, int input) : notes_(notes_of_thread) {
  if (!notes_) return;
  note_.upload = upload;
  note_.bytes = bytes;
  note_.input = input;
  note_.start_ns = steady_now_ns();
}

TimedTransfer::~TimedTransfer() {
  if (!notes_) return;
  note_.end_ns = steady_now_ns();
  notes_->push_back(note_);
}

}  // namespace kiln
