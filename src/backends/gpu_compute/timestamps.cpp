#include "backends/gpu_compute/timestamps.h"

#include "backends/gpu_compute/vk_check.h"
#include "kiln/error.h"

namespace kiln::gpu_compute {
namespace {

constexpr uint32_t kPairs = 2048;

uint32_t timestamp_bits(const Device& device) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device.physical_device(), &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(device.physical_device(), &count, families.data());
  return device.queue_family() < count ? families[device.queue_family()].timestampValidBits : 0;
}

}  // namespace

Timestamps::Timestamps(Device& device, CommandStream& stream) : device_(device), stream_(stream) {
  const uint32_t bits = timestamp_bits(device);
  if (bits == 0) return;
  mask_ = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  period_ns_ = device.limits().timestampPeriod;
  VkQueryPoolCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = 2 * kPairs;
  vk_check(vkCreateQueryPool(device.handle(), &info, nullptr, &pool_), "vkCreateQueryPool");
  capacity_ = kPairs;
}

Timestamps::~Timestamps() {
  if (!pool_) return;
  // Recorded and queued batches may still write into the pool.
  try {
    auto lock = stream_.lock();
    stream_.wait(stream_.submit());
  } catch (const Error&) {
    vkDeviceWaitIdle(device_.handle());
  }
  vkDestroyQueryPool(device_.handle(), pool_, nullptr);
}

void Timestamps::begin(uint32_t id) {
  if (ids_.size() == capacity_) collect();  // the pool is full: read it before reusing it
  const auto pair = static_cast<uint32_t>(ids_.size());
  const VkCommandBuffer cmd = stream_.cmd();
  vkCmdResetQueryPool(cmd, pool_, 2 * pair, 2);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_, 2 * pair);
  ids_.push_back(id);
}

void Timestamps::end(bool keep) {
  const auto pair = static_cast<uint32_t>(ids_.size() - 1);
  vkCmdWriteTimestamp(stream_.cmd(), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_, 2 * pair + 1);
  if (!keep) ids_.back() = -1;
}

void Timestamps::collect() {
  if (ids_.empty()) return;
  stream_.wait(stream_.submit());
  std::vector<uint64_t> ticks(2 * ids_.size());
  vk_check(vkGetQueryPoolResults(device_.handle(), pool_, 0, static_cast<uint32_t>(ticks.size()),
                                 ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
           "vkGetQueryPoolResults");
  for (size_t i = 0; i < ids_.size(); ++i) {
    if (ids_[i] < 0) continue;
    const uint64_t start = ticks[2 * i] & mask_, end = ticks[2 * i + 1] & mask_;
    done_.push_back(
        {static_cast<uint32_t>(ids_[i]),
         static_cast<uint64_t>(static_cast<double>(start) * period_ns_),
         static_cast<uint64_t>(static_cast<double>(end >= start ? end : start) * period_ns_)});
  }
  ids_.clear();
}

DeviceTimings Timestamps::take() {
  auto lock = stream_.lock();
  collect();
  DeviceTimings out;
  out.method = "Vulkan timestamp queries";
  out.intervals.swap(done_);
  return out;
}

}  // namespace kiln::gpu_compute
