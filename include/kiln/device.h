// The GPU devices kiln can run on, as `kiln devices` prints them.
//
//   for (const kiln::DeviceInfo& d : kiln::list_devices())
//     std::cout << kiln::backend_name(d.backend) << " " << d.index << ": " << d.name << "\n";
//   kiln::Worker worker(model, kiln::Backend::GpuCompute, {.device = "1"});   // or {.device =
//   "llvmpipe"}
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kiln/export.h"
#include "kiln/worker.h"

namespace kiln {

struct DeviceInfo {
  Backend backend = Backend::GpuCompute;  // GpuCompute (Vulkan) or GpuPixel (OpenGL ES)
  int index = -1;           // what WorkerOptions::device takes; -1: the only (default) display
  std::string name;         // "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string type;         // "discrete GPU", "integrated GPU", "CPU", ... ("" where unknown)
  std::string api;          // "Vulkan 1.3.230", "OpenGL ES 3.2 Mesa 22.3.6"
  bool usable = false;      // kiln can run on it
  bool is_default = false;  // what a worker picks when WorkerOptions::device is empty
  std::string problem;      // why it is not usable, when it is not
  // Limits that decide what runs on the device, in words: ("max storage buffer", "128 MiB").
  std::vector<std::pair<std::string, std::string>> limits;
  // The numeric precision the device keeps: on OpenGL ES the start-up probe's measurement
  // ("RGBA32F render targets, 23 mantissa bits"), on Vulkan the shader number formats.
  std::string precision;
};

// Every Vulkan and OpenGL ES device this build of kiln can see (none for a backend it was built
// without). Opens each device briefly to probe it, so it takes a moment; never throws for a
// missing driver — such a device is listed as not usable, with the reason.
KILN_API std::vector<DeviceInfo> list_devices();

}  // namespace kiln
