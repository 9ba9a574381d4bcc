// Netpbm images, parsed directly: P1/P4 (bitmap, 1 is black), P2/P5 (gray) and P3/P6 (RGB),
// plain-text or binary, with any maxval up to 65535 (scaled to 8 bits).
#include <cctype>
#include <string>

#include "kiln/error.h"
#include "ops/image_codecs/image_codecs.h"

namespace kiln::image {
namespace {

[[noreturn]] void fail(const std::string& what) { throw Error("PNM: " + what); }

class Parser {
 public:
  explicit Parser(std::span<const uint8_t> data) : data_(data) {}

  // The next decimal number, skipping whitespace and '#' comments.
  uint32_t number() {
    skip_space_and_comments();
    if (at_ >= data_.size() || !std::isdigit(data_[at_])) fail("expected a number");
    uint64_t v = 0;
    while (at_ < data_.size() && std::isdigit(data_[at_])) {
      v = v * 10 + (data_[at_++] - '0');
      if (v > 0xFFFFFFFFu) fail("number out of range");
    }
    return static_cast<uint32_t>(v);
  }
  // A plain bitmap's next pixel: a single '0' or '1', separators optional.
  uint32_t bit() {
    skip_space_and_comments();
    if (at_ >= data_.size() || (data_[at_] != '0' && data_[at_] != '1')) fail("expected 0 or 1");
    return data_[at_++] - '0';
  }
  // The single whitespace byte that ends a binary image's header.
  void end_of_header() {
    if (at_ >= data_.size() || !std::isspace(data_[at_])) fail("malformed header");
    ++at_;
  }
  const uint8_t* raw(size_t count) {
    if (count > data_.size() - at_) fail("the file is truncated");
    const uint8_t* p = data_.data() + at_;
    at_ += count;
    return p;
  }
  void skip(size_t count) { at_ += count; }

 private:
  void skip_space_and_comments() {
    while (at_ < data_.size()) {
      if (std::isspace(data_[at_])) {
        ++at_;
      } else if (data_[at_] == '#') {
        while (at_ < data_.size() && data_[at_] != '\n' && data_[at_] != '\r') ++at_;
      } else {
        break;
      }
    }
  }
  std::span<const uint8_t> data_;
  size_t at_ = 0;
};

}  // namespace

DecodedImage decode_pnm(std::span<const uint8_t> data) {
  if (data.size() < 2 || data[0] != 'P' || data[1] < '1' || data[1] > '6') {
    fail("not a P1 to P6 netpbm file");
  }
  Parser parser(data);
  parser.skip(2);
  const int kind = data[1] - '0';
  const bool bitmap = kind == 1 || kind == 4, plain = kind <= 3;
  const int channels = (kind == 3 || kind == 6) ? 3 : 1;
  const uint32_t width = parser.number(), height = parser.number();
  const uint32_t maxval = bitmap ? 1 : parser.number();
  if (maxval < 1 || maxval > 65535) fail("maxval " + std::to_string(maxval) + " is out of range");
  if (!plain) parser.end_of_header();

  DecodedImage image;
  allocate_pixels(image, width, height, channels, "PNM");
  auto scaled = [&](uint32_t v) -> uint8_t {
    if (v > maxval)
      fail("sample " + std::to_string(v) + " exceeds maxval " + std::to_string(maxval));
    return static_cast<uint8_t>((v * 255u + maxval / 2) / maxval);
  };
  uint8_t* out = image.pixels.data();
  const size_t samples = image.pixels.size();
  if (kind == 4) {  // rows of packed bits, each row padded to a byte
    const size_t row_bytes = (width + 7) / 8;
    for (uint32_t y = 0; y < height; ++y) {
      const uint8_t* row = parser.raw(row_bytes);
      for (uint32_t x = 0; x < width; ++x) *out++ = (row[x / 8] >> (7 - x % 8)) & 1 ? 0 : 255;
    }
  } else if (kind == 1) {
    for (size_t i = 0; i < samples; ++i) out[i] = parser.bit() ? 0 : 255;
  } else if (plain) {
    for (size_t i = 0; i < samples; ++i) out[i] = scaled(parser.number());
  } else if (maxval < 256) {
    const uint8_t* p = parser.raw(samples);
    for (size_t i = 0; i < samples; ++i) out[i] = scaled(p[i]);
  } else {  // two bytes per sample, most significant first
    const uint8_t* p = parser.raw(samples * 2);
    for (size_t i = 0; i < samples; ++i) out[i] = scaled(p[2 * i] << 8 | p[2 * i + 1]);
  }
  return image;
}

}  // namespace kiln::image
