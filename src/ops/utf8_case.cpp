#include "ops/utf8_case.h"

#include <cstdint>

namespace kiln {
namespace {

// Decodes the code point at text[i]; returns its byte length, or 0 for an invalid or truncated
// sequence (overlong forms and surrogates included).
size_t decode_utf8(std::string_view text, size_t i, char32_t& cp) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[i + k]); };
  const uint8_t b0 = byte(0);
  size_t len;
  char32_t min;
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  } else if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

void encode_utf8(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Latin Extended-A pairs each capital with the next code point, starting on an even code point
// in these ranges and on an odd one in the others.
bool latin_a_even_upper(char32_t cp) {
  return (cp >= 0x100 && cp <= 0x137) || (cp >= 0x14A && cp <= 0x177);
}
bool latin_a_odd_upper(char32_t cp) {
  return (cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E);
}

char32_t lower_of(char32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 0x20;
  if (cp < 0x80) return cp;
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 0x20;
  if (cp == 0x130) return 'i';  // dotted capital I (before the pair rule, which it breaks)
  if (cp == 0x131) return cp;
  if (latin_a_even_upper(cp)) return cp | 1;
  if (latin_a_odd_upper(cp)) return (cp & 1) ? cp + 1 : cp;
  if (cp == 0x178) return 0xFF;
  if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) return cp + 0x20;  // Greek capitals
  if (cp >= 0x410 && cp <= 0x42F) return cp + 0x20;                 // Cyrillic А..Я
  if (cp >= 0x400 && cp <= 0x40F) return cp + 0x50;                 // Cyrillic Ѐ..Џ
  return cp;
}

char32_t upper_of(char32_t cp) {
  if (cp >= 'a' && cp <= 'z') return cp - 0x20;
  if (cp < 0x80) return cp;
  if (cp >= 0xE0 && cp <= 0xFE && cp != 0xF7) return cp - 0x20;
  if (cp == 0xFF) return 0x178;
  if (cp == 0x131) return 'I';  // dotless small i (before the pair rule, which it breaks)
  if (cp == 0x130) return cp;
  if (latin_a_even_upper(cp)) return cp & ~char32_t{1};
  if (latin_a_odd_upper(cp)) return (cp & 1) ? cp : cp - 1;
  if (cp == 0x17F) return 'S';
  if (cp == 0x3C2) return 0x3A3;  // final sigma
  if (cp >= 0x3B1 && cp <= 0x3C9) return cp - 0x20;
  if (cp >= 0x430 && cp <= 0x44F) return cp - 0x20;
  if (cp >= 0x450 && cp <= 0x45F) return cp - 0x50;
  return cp;
}

template <class Map>
std::string map_utf8(std::string_view text, Map map) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char32_t cp;
    const size_t len = decode_utf8(text, i, cp);
    if (len == 0) {  // not UTF-8: keep the byte as it is
      out += text[i++];
      continue;
    }
    encode_utf8(map(cp), out);
    i += len;
  }
  return out;
}

}  // namespace

std::string utf8_to_lower(std::string_view text) { return map_utf8(text, lower_of); }
std::string utf8_to_upper(std::string_view text) { return map_utf8(text, upper_of); }

}  // namespace kiln
