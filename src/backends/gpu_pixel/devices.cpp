#include "backends/gpu_pixel/devices.h"

#include <algorithm>
#include <cctype>

#include "kiln/error.h"

namespace kiln::gpu_pixel {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string describe(const std::vector<DeviceReport>& reports) {
  std::string out;
  for (const DeviceReport& r : reports) {
    out += "\n  " + std::to_string(r.index) + ": " +
           (r.error.empty() ? r.info.renderer : "unusable (" + r.error + ")");
  }
  return out.empty() ? "\n  (none: EGL lists no devices)" : out;
}

}  // namespace

std::vector<DeviceReport> survey_devices() {
  std::vector<DeviceReport> reports;
  const size_t count = egl_devices().size();
  const int first = count == 0 ? -1 : 0;
  for (int i = first; i < static_cast<int>(count) || i == -1; ++i) {
    DeviceReport report;
    report.index = i;
    try {
      Context context(ContextOptions{.device = i});
      report.info = context.info();
    } catch (const Error& e) {
      report.error = e.what();
    }
    reports.push_back(std::move(report));
    if (i == -1) break;
  }
  return reports;
}

int select_device(std::string_view selector) {
  if (selector.empty()) return -1;
  const size_t count = egl_devices().size();
  const bool is_index = std::all_of(selector.begin(), selector.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  if (is_index) {
    const unsigned long index = selector.size() <= 9 ? std::stoul(std::string(selector)) : ~0UL;
    if (index < count) return static_cast<int>(index);
    throw Error("OpenGL ES device selection \"" + std::string(selector) +
                "\" matches no device; available:" + describe(survey_devices()));
  }
  // Names come from the renderer string, which only a context can tell.
  const std::vector<DeviceReport> reports = survey_devices();
  const std::string needle = lower(selector);
  for (const DeviceReport& r : reports) {
    if (r.error.empty() && r.index >= 0 && lower(r.info.renderer).find(needle) != std::string::npos)
      return r.index;
  }
  throw Error("OpenGL ES device selection \"" + std::string(selector) +
              "\" matches no device; available:" + describe(reports));
}

}  // namespace kiln::gpu_pixel
