#include "core/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "kiln/error.h"

namespace kiln {
namespace {

LogLevel initial_level() {
  const char* env = std::getenv("KILN_LOG");
  if (!env || !*env) return LogLevel::Warn;
  try {
    return parse_log_level(env);
  } catch (const Error&) {
    std::fprintf(stderr, "kiln [warn] KILN_LOG=%s is not a level (debug, info, warn, error, off)\n",
                 env);
    return LogLevel::Warn;
  }
}

struct LogState {
  std::atomic<LogLevel> level{initial_level()};
  std::mutex mutex;  // guards handler and seen
  LogHandler handler;
  std::set<std::string> seen;
};

LogState& state() {
  static LogState s;
  return s;
}

}  // namespace

std::string_view log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warn:
      return "warn";
    case LogLevel::Error:
      return "error";
    case LogLevel::Off:
      return "off";
  }
  return "?";
}

LogLevel parse_log_level(std::string_view name) {
  if (name == "debug") return LogLevel::Debug;
  if (name == "info") return LogLevel::Info;
  if (name == "warn" || name == "warning") return LogLevel::Warn;
  if (name == "error") return LogLevel::Error;
  if (name == "off") return LogLevel::Off;
  throw Error("unknown log level '" + std::string(name) +
              "' (expected debug, info, warn, error or off)");
}

void set_log_handler(LogHandler handler) {
  LogState& s = state();
  std::lock_guard lock(s.mutex);
  s.handler = std::move(handler);
}

void set_log_level(LogLevel level) { state().level.store(level, std::memory_order_relaxed); }

LogLevel log_level() { return state().level.load(std::memory_order_relaxed); }

bool log_enabled(LogLevel level) { return level != LogLevel::Off && level >= log_level(); }

void log_message(LogLevel level, std::string_view message) {
  if (!log_enabled(level)) return;
  LogState& s = state();
  // Held while the handler runs, so a handler never sees two messages at once.
  std::lock_guard lock(s.mutex);
  if (s.handler) {
    s.handler(level, message);
    return;
  }
  const std::string_view name = log_level_name(level);
  std::fprintf(stderr, "kiln [%.*s] %.*s\n", static_cast<int>(name.size()), name.data(),
               static_cast<int>(message.size()), message.data());
}

void log_once(LogLevel level, const std::string& key, std::string_view message) {
  if (!log_enabled(level)) return;
  {
    LogState& s = state();
    std::lock_guard lock(s.mutex);
    if (!s.seen.insert(key).second) return;
  }
  log_message(level, message);
}

}  // namespace kiln
