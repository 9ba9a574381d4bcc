// kiln's log: what the engine decides on its own that a user may want to know — a node that
// falls back to the CPU, a memory plan rebuilt for new input shapes, a slow path taken at run
// time. Each such event is logged once per process, not once per run.
//
//   kiln::set_log_level(kiln::LogLevel::Info);
//   kiln::set_log_handler([](kiln::LogLevel level, std::string_view message) {
//     my_logger(kiln::log_level_name(level), message);
//   });
//
// Without a handler, messages at or above the level go to stderr as "kiln [warn] ...". The
// environment variable KILN_LOG=debug|info|warn|error|off sets the level a process starts with
// (default warn); set_log_level changes it afterwards.
#pragma once

#include <functional>
#include <string_view>

#include "kiln/export.h"

namespace kiln {

enum class LogLevel { Debug, Info, Warn, Error, Off };

// Called for every message at or above the level, from whichever thread logged it (a job
// thread too): it must be thread-safe and should return quickly.
using LogHandler = std::function<void(LogLevel level, std::string_view message)>;

// Replaces the handler; an empty one restores the default (stderr).
KILN_API void set_log_handler(LogHandler handler);
KILN_API void set_log_level(LogLevel level);
KILN_API LogLevel log_level();
KILN_API std::string_view log_level_name(LogLevel level);  // "debug", "info", "warn", ...
// "debug", "info", "warn" (or "warning"), "error", "off"; throws kiln::Error otherwise.
KILN_API LogLevel parse_log_level(std::string_view name);

}  // namespace kiln
