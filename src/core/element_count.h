// How many elements a shape holds, computed without overflowing. Every shape that comes from
// outside (a model or tensor file, a declared type, a shape a kernel computed from input values)
// is checked here before anything is allocated or any arithmetic is done on it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "kiln/error.h"
#include "kiln/shape.h"

namespace kiln {

// More elements than any tensor may hold (2^40: 4 TiB of float32). Products of the dims of an
// accepted shape, and of a few such shapes, stay far from int64's limit.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 40;

// The product of `dims`, or nullopt when a dim is negative or the product passes `limit`.
// A zero dim anywhere makes the product zero, even when the dims before it pass the limit
// (an empty [1, 4, 0, 64] tensor in a file of 0 data bytes is within a limit of 0).
constexpr std::optional<int64_t> element_count_within(std::span<const int64_t> dims,
                                                      int64_t limit) {
  if (std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; })) return std::nullopt;
  if (std::find(dims.begin(), dims.end(), 0) != dims.end()) return 0;
  int64_t count = 1;
  for (const int64_t d : dims) {
    if (count > limit / d) return std::nullopt;
    count *= d;
  }
  return count;
}

// Throws kiln::Error("negative dimension in <what> [..]") when a dim of `shape` is negative. The
// message is built only then: built for every dim, it made a check of a long shape quadratic.
inline void check_no_negative_dim(const Shape& shape, const std::string& what) {
  if (std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; }))
    throw Error("negative dimension in " + what + " " + shape.to_string());
}

}  // namespace kiln
