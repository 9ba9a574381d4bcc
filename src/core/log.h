// Logging from inside the engine (the public side is kiln/log.h).
//
//   log_once(LogLevel::Info, "fallback:gpu-compute:Resize", "Resize runs on the CPU: ...");
#pragma once

#include <string>
#include <string_view>

#include "kiln/log.h"

namespace kiln {

bool log_enabled(LogLevel level);
// Hands `message` to the handler when `level` is enabled.
void log_message(LogLevel level, std::string_view message);
// Logs `message` only the first time this process logs `key`: events that repeat every run
// (a fallback, a slow path) are reported once. The key is remembered only when the level is
// enabled, so raising the level later still shows the event once.
void log_once(LogLevel level, const std::string& key, std::string_view message);

}  // namespace kiln
