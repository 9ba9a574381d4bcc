// A tensor's data in a device buffer: the DeviceData behind every value a GPU-compute node
// produces. The data is written by queued GPU work, so reading it on the host is a transfer:
// request_download records a copy into a staging buffer and submits; download_done polls the
// timeline; wait_download waits and keeps the host copy, so every later reader (several CPU
// nodes, repeated readbacks) shares one transfer.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "backends/gpu_compute/buffer.h"
#include "backends/gpu_compute/context.h"
#include "core/tensor_impl.h"

namespace kiln::gpu_compute {

class DeviceTensor final : public DeviceData {
 public:
  DeviceTensor(std::shared_ptr<Context> context, MemoryPool& pool, size_t bytes);
  // Queued work may still read the buffer: it is released when the stream has passed it.
  ~DeviceTensor() override;

  const Buffer& buffer() const { return *buffer_; }
  const Context* context() const { return context_.get(); }

  void request_download(TensorImpl& tensor) override;
  bool download_done(const TensorImpl& tensor) const override;
  void wait_download(TensorImpl& tensor) override;
  // Copies from the transfer buffer straight into `out` (no host copy kept for it).
  void download_into(TensorImpl& tensor, std::span<std::byte> out) override;

  // Records the device buffer's upload from `bytes` (a host value): staged, copied, fenced by a
  // barrier so later dispatches see it. The caller holds the stream's lock.
  void record_upload(const void* bytes, size_t size);

 private:
  void request_locked();
  void note_host_read_while_recording() const;

  std::shared_ptr<Context> context_;
  std::shared_ptr<Buffer> buffer_;
  mutable std::mutex mutex_;
  std::shared_ptr<Buffer> staging_;  // the download's destination, once requested
  uint64_t ready_value_ = 0;         // timeline value after which staging_ holds the data
  std::shared_ptr<Storage> host_;    // the downloaded bytes
};

// Device-to-host transfers recorded by this process so far (a statistic for tests).
uint64_t downloads_recorded();

// The device tensor behind `t` when it lives in `context`, else nullptr.
DeviceTensor* device_tensor_of(const Tensor& t, const Context& context);

}  // namespace kiln::gpu_compute
