#include "backends/gpu_compute/pipeline_cache.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include "backends/gpu_compute/vk_check.h"

namespace kiln::gpu_compute {
namespace {

std::string cache_path(VkPhysicalDevice physical) {
  if (const char* p = std::getenv("KILN_VULKAN_PIPELINE_CACHE")) {
    return std::string(p) == "off" ? std::string() : std::string(p);
  }
  std::filesystem::path dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    dir = xdg;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    dir = std::filesystem::path(home) / ".cache";
  } else {
    return {};
  }
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(physical, &props);
  char uuid[2 * VK_UUID_SIZE + 1] = {};
  for (int i = 0; i < VK_UUID_SIZE; ++i)
    std::snprintf(uuid + 2 * i, 3, "%02x", props.pipelineCacheUUID[i]);
  return (dir / "kiln" / ("vulkan-pipelines-" + std::string(uuid) + ".bin")).string();
}

}  // namespace

PipelineCache::PipelineCache(VkDevice device, VkPhysicalDevice physical)
    : device_(device), path_(cache_path(physical)) {
  std::vector<char> data;
  if (!path_.empty()) {
    std::ifstream in(path_, std::ios::binary);
    if (in) data.assign(std::istreambuf_iterator<char>(in), {});
  }
  VkPipelineCacheCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  info.initialDataSize = data.size();
  info.pInitialData = data.empty() ? nullptr : data.data();
  if (vkCreatePipelineCache(device, &info, nullptr, &cache_) != VK_SUCCESS) {
    info.initialDataSize = 0;  // the data was rejected: start empty
    info.pInitialData = nullptr;
    vk_check(vkCreatePipelineCache(device, &info, nullptr, &cache_), "vkCreatePipelineCache");
  }
}

PipelineCache::~PipelineCache() {
  if (!path_.empty()) {
    size_t size = 0;
    std::vector<char> data;
    if (vkGetPipelineCacheData(device_, cache_, &size, nullptr) == VK_SUCCESS && size > 0) {
      data.resize(size);
      if (vkGetPipelineCacheData(device_, cache_, &size, data.data()) != VK_SUCCESS) data.clear();
      data.resize(size);
    }
    std::error_code ec;
    const std::filesystem::path target(path_);
    if (!data.empty() && target.has_parent_path())
      std::filesystem::create_directories(target.parent_path(), ec);
    const std::string temp = path_ + ".tmp" + std::to_string(reinterpret_cast<uintptr_t>(this));
    if (!data.empty() && !ec) {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      out.write(data.data(), static_cast<std::streamsize>(data.size()));
      out.close();
      if (out) std::filesystem::rename(temp, target, ec);
      if (!out || ec) std::filesystem::remove(temp, ec);
    }
  }
  vkDestroyPipelineCache(device_, cache_, nullptr);
}

}  // namespace kiln::gpu_compute
