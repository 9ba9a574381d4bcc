#include "backends/gpu_compute/device_tensor.h"

#include <atomic>
#include <cstring>

#include "backends/gpu_compute/node_replay.h"
#include "backends/gpu_compute/pipeline.h"

namespace kiln::gpu_compute {
namespace {

std::atomic<uint64_t> downloads{0};

void barrier(Device& device, VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src,
             VkPipelineStageFlags dst_stage, VkAccessFlags dst) {
  DeviceWorkCounters::add(device.counters().barriers);
  VkMemoryBarrier b{};
  b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  b.srcAccessMask = src;
  b.dstAccessMask = dst;
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

}  // namespace

DeviceTensor::DeviceTensor(std::shared_ptr<Context> context, MemoryPool& pool, size_t bytes)
    : context_(std::move(context)),
      buffer_(std::make_shared<Buffer>(context_->device, pool, bytes)) {}

DeviceTensor::~DeviceTensor() {
  auto lock = context_->stream.lock();
  context_->stream.keep_alive(std::move(buffer_));
  if (staging_) context_->stream.keep_alive(std::move(staging_));
}

void DeviceTensor::record_upload(const void* bytes, size_t size) {
  if (size == 0) return;
  auto staging = std::make_shared<Buffer>(context_->device, context_->staging, size);
  std::memcpy(staging->mapped(), bytes, size);
  const VkCommandBuffer cmd = context_->stream.cmd();
  if (context_->device.hazards().before_transfer(*buffer_, true))
    record_compute_barrier(context_->device, cmd);
  const VkBufferCopy region{0, 0, size};
  vkCmdCopyBuffer(cmd, staging->handle(), buffer_->handle(), 1, &region);
  DeviceWorkCounters::add(context_->device.counters().bytes_uploaded, size);
  barrier(context_->device, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
              VK_ACCESS_TRANSFER_WRITE_BIT);
  context_->stream.keep_alive(std::move(staging));
}

// A node that reads a device value on the host while it records depends on that value, which its
// recording cannot repeat: it records afresh every run, also when another node's request already
// brought the value over (two attention layers reading one sequence-length tensor).
void DeviceTensor::note_host_read_while_recording() const {
  auto lock = context_->stream.lock();  // the capture pointer is the recording thread's
  if (NodeRecording* capture = context_->device.capture()) capture->note_unrepeatable();
}

void DeviceTensor::request_locked() {
  note_host_read_while_recording();
  if (staging_) return;
  auto lock = context_->stream.lock();
  staging_ = std::make_shared<Buffer>(context_->device, context_->staging, buffer_->size());
  downloads.fetch_add(1, std::memory_order_relaxed);
  if (buffer_->size() > 0) {
    const VkCommandBuffer cmd = context_->stream.cmd();
    if (context_->device.hazards().before_transfer(*buffer_, false))
      record_compute_barrier(context_->device, cmd);
    const VkBufferCopy region{0, 0, buffer_->size()};
    vkCmdCopyBuffer(cmd, buffer_->handle(), staging_->handle(), 1, &region);
    DeviceWorkCounters::add(context_->device.counters().bytes_downloaded, buffer_->size());
    // The timeline alone does not make device writes visible to the host; this barrier does.
    barrier(context_->device, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  }
  ready_value_ = context_->stream.submit();
}

void DeviceTensor::request_download(TensorImpl&) {
  std::lock_guard lock(mutex_);
  request_locked();
}

bool DeviceTensor::download_done(const TensorImpl&) const {
  std::lock_guard lock(mutex_);
  return host_ || (staging_ && context_->stream.reached(ready_value_));
}

void DeviceTensor::wait_download(TensorImpl& tensor) {
  std::lock_guard lock(mutex_);
  note_host_read_while_recording();
  if (!host_) {
    request_locked();
    context_->stream.wait(ready_value_);
    const size_t bytes = buffer_->size();
    host_ = Storage::allocate(DataType::UInt8, static_cast<int64_t>(bytes));
    if (bytes) std::memcpy(host_->data(), staging_->mapped(), bytes);
  }
  tensor.storage = host_;
  tensor.offset = 0;
}

void DeviceTensor::download_into(TensorImpl&, std::span<std::byte> out) {
  std::lock_guard lock(mutex_);
  check(out.size() <= buffer_->size(),
        "Vulkan download: the destination is larger than the tensor");
  note_host_read_while_recording();
  if (!host_) {
    request_locked();
    context_->stream.wait(ready_value_);
  }
  const void* from = host_ ? host_->data() : staging_->mapped();
  if (!out.empty()) std::memcpy(out.data(), from, out.size());
}

uint64_t downloads_recorded() { return downloads.load(std::memory_order_relaxed); }

DeviceTensor* device_tensor_of(const Tensor& t, const Context& context) {
  if (!t.defined() || !t.impl()->device) return nullptr;
  auto* d = dynamic_cast<DeviceTensor*>(t.impl()->device.get());
  return d && d->context() == &context ? d : nullptr;
}

}  // namespace kiln::gpu_compute
