// The check a user makes of a refused input: a kiln::Error whose message names what is wrong.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "kiln/error.h"

namespace kiln::testing {

// The run fails with a kiln::Error whose message contains every one of `words`.
inline void expect_error(const std::function<void()>& run, const std::vector<std::string>& words) {
  try {
    run();
    ADD_FAILURE() << "no kiln::Error";
  } catch (const Error& e) {
    for (const auto& w : words) {
      EXPECT_NE(std::string(e.what()).find(w), std::string::npos)
          << "'" << w << "' not in: " << e.what();
    }
  }
}

}  // namespace kiln::testing
