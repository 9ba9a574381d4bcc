// The driver's compiled pipelines, kept on disk between runs so a worker's first run does not
// compile every shader again (seconds on some drivers). The file holds one device's cache; the
// driver checks its header (vendor, device, cache UUID) and ignores data from another driver.
//
// Location: KILN_VULKAN_PIPELINE_CACHE (a file path, or "off" to disable), else
// $XDG_CACHE_HOME/kiln/ or ~/.cache/kiln/, named after the device's cache UUID.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

namespace kiln::gpu_compute {

class PipelineCache {
 public:
  // Loads the cache for `physical` if its file exists; an unreadable or foreign file starts an
  // empty cache (a cache is only ever an optimisation).
  PipelineCache(VkDevice device, VkPhysicalDevice physical);
  // Saves the cache (write to a temporary file, then rename, so readers never see half a file).
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  VkPipelineCache handle() const { return cache_; }
  const std::string& path() const { return path_; }  // empty when disabled

 private:
  VkDevice device_;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::string path_;
};

}  // namespace kiln::gpu_compute
