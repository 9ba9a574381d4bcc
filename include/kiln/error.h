// kiln::Error — the one exception type kiln throws for bad input and failed runs.
#pragma once

#include <stdexcept>
#include <string>

#include "kiln/export.h"

namespace kiln {

// Every user-facing failure is a kiln::Error whose message names what went wrong and where
// (file, node, op, input), so that a user can act on it without a debugger.
class KILN_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Throws kiln::Error with `message` when `condition` is false.
inline void check(bool condition, const std::string& message) {
  if (!condition) throw Error(message);
}
// For literal messages: builds no std::string unless the check fails (hot paths call this).
inline void check(bool condition, const char* message) {
  if (!condition) throw Error(message);
}

}  // namespace kiln
