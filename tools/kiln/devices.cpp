// kiln devices: every Vulkan and OpenGL ES device this build can see, as kiln::list_devices()
// reports them.
#include <iostream>

#include "command.h"
#include "kiln/kiln.h"

namespace kiln::cli {
namespace {

int devices() {
  const std::vector<DeviceInfo> all = list_devices();
  if (all.empty()) {
    std::cout << "no GPU backend in this build (built without Vulkan and OpenGL ES)\n";
    return 0;
  }
  for (const DeviceInfo& d : all) {
    std::cout << backend_name(d.backend) << " " << d.index << ": " << d.name;
    if (d.is_default) std::cout << "  [default]";
    std::cout << "\n";
    if (!d.usable) {
      std::cout << "    not usable: " << d.problem << "\n";
      continue;
    }
    std::cout << "    type: " << (d.type.empty() ? "unknown" : d.type) << "\n";
    std::cout << "    api: " << d.api << "\n";
    std::cout << "    precision: " << d.precision << "\n";
    std::cout << "    limits:";
    const char* separator = " ";
    for (const auto& [name, value] : d.limits) {
      std::cout << separator << name << " " << value;
      separator = ", ";
    }
    std::cout << "\n";
  }
  return 0;
}

const Registration kCommand{
    "devices", "list every Vulkan and OpenGL ES device with its type, limits and precision",
    [](CLI::App& cmd) {
      cmd.footer(
          "Pick a device with --device INDEX or --device NAME-SUBSTRING on run, bench, inspect\n"
          "and test-onnx (WorkerOptions::device in the API); KILN_GPU_COMPUTE_DEVICE and\n"
          "KILN_GPU_PIXEL_DEVICE override it.");
      return [] { return devices(); };
    }};

}  // namespace
}  // namespace kiln::cli
