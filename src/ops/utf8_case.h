// Simple (one code point to one code point) case mapping of UTF-8 text for the string ops.
//
// Covers ASCII, Latin-1, Latin Extended-A, basic Greek and Cyrillic — the scripts whose case
// rules do not depend on the locale. Other code points, and bytes that are not valid UTF-8,
// pass through unchanged.
#pragma once

#include <string>
#include <string_view>

namespace kiln {

std::string utf8_to_lower(std::string_view text);
std::string utf8_to_upper(std::string_view text);

}  // namespace kiln
