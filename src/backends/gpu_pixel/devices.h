// The OpenGL ES devices EGL offers, for listing them (kiln::list_devices) and for choosing one
// by index or by renderer name (WorkerOptions::device, KILN_GPU_PIXEL_DEVICE).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "backends/gpu_pixel/context.h"

namespace kiln::gpu_pixel {

// One context made on one EGL device, or why none could be.
struct DeviceReport {
  int index = -1;  // into egl_devices(); -1: the default display, where EGL lists no devices
  ContextInfo info;
  std::string error;  // empty when a context was made and probed
};

// A context on every EGL device in turn (each runs the start-up probes: float rendering
// precision, fragment loop budget); where EGL cannot enumerate devices, the default display.
std::vector<DeviceReport> survey_devices();

// The ContextOptions::device for `selector`: -1 when empty; an index as given; otherwise the
// first device whose renderer contains the (case-insensitive) substring. kiln::Error listing
// the devices when nothing matches.
int select_device(std::string_view selector);

}  // namespace kiln::gpu_pixel
