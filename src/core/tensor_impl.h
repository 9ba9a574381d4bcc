// The shared state behind a kiln::Tensor handle: dtype, shape, storage and completion.
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "core/memory_budget.h"
#include "kiln/tensor.h"

namespace kiln {

// A block of host memory. It either owns its bytes (64-byte aligned, so SIMD kernels can load
// freely) or borrows them from an owner kept alive through `owner` (an arena, a mapped file).
// String storage holds constructed std::string objects.
class Storage {
 public:
  static std::shared_ptr<Storage> allocate(DataType dtype, int64_t element_count);
  static std::shared_ptr<Storage> borrow(void* data, size_t bytes, std::shared_ptr<void> owner);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  bool owned() const { return owned_; }  // false for memory borrowed from an owner

 private:
  Storage() = default;
  void* data_ = nullptr;
  size_t bytes_ = 0;
  bool owned_ = false;
  int64_t string_count_ = 0;  // constructed std::string objects to destroy
  std::shared_ptr<void> owner_;
  std::shared_ptr<MemoryBudget> budget_;  // charged for owned bytes, given back on destruction
  size_t charged_ = 0;  // the bytes allocated (rounded up), charged to the budget if any
};

enum class TensorState : int { Ready, Pending, Failed };

// Hook for device-resident data (GPU backends): moves data to the host on request.
class DeviceData {
 public:
  virtual ~DeviceData() = default;
  virtual void request_download(TensorImpl& tensor) = 0;  // start, don't wait
  virtual bool download_done(const TensorImpl& tensor) const = 0;
  virtual void wait_download(TensorImpl& tensor) = 0;  // afterwards storage holds the data
  // Waits like wait_download and writes the bytes into `out` (exactly the tensor's size). A
  // backend overrides it to copy from its transfer buffer straight into `out`; this default
  // goes through the host copy that wait_download keeps.
  virtual void download_into(TensorImpl& tensor, std::span<std::byte> out);
};

struct TensorImpl {
  TensorImpl(DataType dtype, Shape shape, std::shared_ptr<Storage> storage, size_t offset = 0)
      : dtype(dtype), shape(std::move(shape)), storage(std::move(storage)), offset(offset) {}

  DataType dtype;
  Shape shape;
  std::shared_ptr<Storage> storage;
  size_t offset;                       // bytes into storage
  std::shared_ptr<DeviceData> device;  // set while the data lives on a device
  // Sequences and optionals: no storage, their tensors in `elements` (an optional's value is
  // elements[0]; for an empty one, element_kind says what the value would be).
  ValueKind kind = ValueKind::Tensor;
  ValueKind element_kind = ValueKind::Tensor;
  std::vector<Tensor> elements;

  // Takes over another value's contents (dtype, shape, data or elements), not its state.
  void assign_contents(const TensorImpl& source);

  void* data() const { return static_cast<char*>(storage->data()) + offset; }

  TensorState state() const { return state_.load(std::memory_order_acquire); }
  // Completion, driven by the producing layer's job.
  void mark_pending();
  void mark_ready();
  void mark_failed(std::exception_ptr error);
  // Blocks until the tensor is no longer pending; rethrows the error of a failed tensor.
  void wait() const;
  // Runs `callback` once the tensor is ready or failed (at once if it already is).
  void on_complete(std::function<void()> callback);
  std::exception_ptr error() const;

 private:
  std::atomic<TensorState> state_{TensorState::Ready};
  mutable std::mutex mutex_;
  mutable std::condition_variable done_;
  std::exception_ptr error_;
  std::vector<std::function<void()>> callbacks_;
};

// Set while the calling thread runs a kernel: kernels write their outputs while those are
// still pending for everyone else, so host access must not refuse them.
class KernelScope {
 public:
  KernelScope() { active_ = true; }
  ~KernelScope() { active_ = false; }
  static bool active() { return active_; }

 private:
  static thread_local bool active_;
};

// A new host tensor with uninitialised contents (zeroed for strings), for kernels.
Tensor make_host_tensor(DataType dtype, const Shape& shape);

// A sequence over `elements` without copying them: for kernels whose elements are finished
// host tensors that nothing writes again (copies they made, or another sequence's elements).
Tensor sequence_of(std::vector<Tensor> elements, DataType element_type);

}  // namespace kiln
