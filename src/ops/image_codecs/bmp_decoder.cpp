// BMP, parsed directly: OS/2 and Windows headers (12 to 124 bytes); 1, 2, 4 and 8-bit
// palettes, uncompressed or RLE4/RLE8; 16 and 32-bit pixels with default or BITFIELDS masks;
// 24-bit BGR. Bottom-up and top-down rows. Alpha is dropped.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "kiln/error.h"
#include "ops/image_codecs/image_codecs.h"

namespace kiln::image {
namespace {

enum Compression : uint32_t { kRgb = 0, kRle8 = 1, kRle4 = 2, kBitfields = 3, kAlphaBitfields = 6 };

[[noreturn]] void fail(const std::string& what) { throw Error("BMP: " + what); }

// Bounds-checked little-endian reads.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> data) : data_(data) {}
  uint32_t u16(size_t at) const {
    const uint8_t* p = bytes(at, 2);
    return p[0] | p[1] << 8;
  }
  uint32_t u32(size_t at) const {
    const uint8_t* p = bytes(at, 4);
    return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24;
  }
  const uint8_t* bytes(size_t at, size_t count) const {
    if (at > data_.size() || count > data_.size() - at) fail("the file is truncated");
    return data_.data() + at;
  }
  size_t size() const { return data_.size(); }

 private:
  std::span<const uint8_t> data_;
};

// One colour channel given by a bit mask, scaled to 8 bits.
struct Channel {
  uint32_t mask = 0;
  int shift = 0;
  uint32_t max = 0;
  explicit Channel(uint32_t m) : mask(m) {
    if (m == 0) return;
    shift = std::countr_zero(m);
    max = m >> shift;
  }
  uint8_t operator()(uint32_t pixel) const {
    if (max == 0) return 0;
    return static_cast<uint8_t>(((pixel & mask) >> shift) * 255 / max);
  }
};

struct Header {
  int64_t width = 0, height = 0;
  bool top_down = false;
  uint32_t bits = 0, compression = kRgb;
  std::array<uint32_t, 3> masks{};
  std::vector<std::array<uint8_t, 3>> palette;  // RGB
  size_t pixel_offset = 0;
};

Header read_header(const Reader& r) {
  Header h;
  h.pixel_offset = r.u32(10);
  const uint32_t dib_size = r.u32(14);
  size_t palette_at = 14 + dib_size;
  size_t palette_entry = 4;
  uint32_t colors_used = 0;
  if (dib_size == 12) {  // OS/2 BITMAPCOREHEADER
    h.width = r.u16(18);
    h.height = r.u16(20);
    h.bits = r.u16(24);
    palette_entry = 3;
  } else if (dib_size >= 40) {
    h.width = static_cast<int32_t>(r.u32(18));
    const int32_t height = static_cast<int32_t>(r.u32(22));
    h.top_down = height < 0;
    h.height = std::abs(static_cast<int64_t>(height));
    h.bits = r.u16(28);
    h.compression = r.u32(30);
    colors_used = r.u32(46);
    if (h.compression == kBitfields || h.compression == kAlphaBitfields) {
      // Version 2+ headers hold the masks; a 40-byte header is followed by them.
      for (int c = 0; c < 3; ++c) h.masks[c] = r.u32(54 + 4 * c);
      if (dib_size == 40) palette_at += h.compression == kAlphaBitfields ? 16 : 12;
    }
  } else {
    fail("unsupported header size " + std::to_string(dib_size));
  }
  if (h.bits <= 8) {
    if (h.bits != 1 && h.bits != 2 && h.bits != 4 && h.bits != 8) {
      fail("unsupported bit depth " + std::to_string(h.bits));
    }
    const uint32_t full = 1u << h.bits;
    const uint32_t count = colors_used == 0 || colors_used > full ? full : colors_used;
    const uint8_t* p = r.bytes(palette_at, count * palette_entry);
    for (uint32_t i = 0; i < count; ++i, p += palette_entry)
      h.palette.push_back({p[2], p[1], p[0]});
  } else if (h.compression == kRgb) {
    if (h.bits == 16) h.masks = {0x7C00, 0x03E0, 0x001F};
    if (h.bits == 32) h.masks = {0xFF0000, 0x00FF00, 0x0000FF};
  }
  const bool supported =
      (h.compression == kRgb && (h.bits <= 8 || h.bits == 16 || h.bits == 24 || h.bits == 32)) ||
      (h.compression == kRle8 && h.bits == 8) || (h.compression == kRle4 && h.bits == 4) ||
      ((h.compression == kBitfields || h.compression == kAlphaBitfields) &&
       (h.bits == 16 || h.bits == 32));
  if (!supported) {
    fail("unsupported combination of compression " + std::to_string(h.compression) + " and " +
         std::to_string(h.bits) + " bits per pixel");
  }
  return h;
}

// Writes palette entry `index` at `out`; out-of-range indices are an error.
void put_indexed(const Header& h, uint32_t index, uint8_t* out) {
  if (index >= h.palette.size()) fail("a pixel refers past the end of the palette");
  std::memcpy(out, h.palette[index].data(), 3);
}

void decode_uncompressed(const Reader& r, const Header& h, DecodedImage& image) {
  const size_t row_bytes = ((h.width * h.bits + 31) / 32) * 4;
  const Channel red(h.masks[0]), green(h.masks[1]), blue(h.masks[2]);
  for (int64_t y = 0; y < h.height; ++y) {
    const uint8_t* row = r.bytes(h.pixel_offset + y * row_bytes, row_bytes);
    const int64_t out_y = h.top_down ? y : h.height - 1 - y;
    uint8_t* out = image.pixels.data() + out_y * h.width * 3;
    for (int64_t x = 0; x < h.width; ++x, out += 3) {
      if (h.bits <= 8) {
        const int64_t bit = x * h.bits;
        const uint32_t index = (row[bit / 8] >> (8 - h.bits - bit % 8)) & ((1u << h.bits) - 1);
        put_indexed(h, index, out);
      } else if (h.bits == 24) {
        out[0] = row[x * 3 + 2];
        out[1] = row[x * 3 + 1];
        out[2] = row[x * 3];
      } else {
        const uint8_t* p = row + x * (h.bits / 8);
        const uint32_t pixel =
            h.bits == 16 ? p[0] | p[1] << 8
                         : p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24;
        out[0] = red(pixel);
        out[1] = green(pixel);
        out[2] = blue(pixel);
      }
    }
  }
}

// RLE8 / RLE4: runs of one index (two alternating ones for RLE4), literal runs, and escapes
// for end of line, end of bitmap and cursor moves. Pixels never written keep palette entry 0.
void decode_rle(const Reader& r, const Header& h, DecodedImage& image) {
  const bool four = h.compression == kRle4;
  for (int64_t i = 0; i < h.width * h.height; ++i) put_indexed(h, 0, image.pixels.data() + i * 3);
  int64_t x = 0, y = 0;
  size_t at = h.pixel_offset;
  auto put = [&](uint32_t index) {
    if (x < h.width && y < h.height) {
      const int64_t out_y = h.top_down ? y : h.height - 1 - y;
      put_indexed(h, index, image.pixels.data() + (out_y * h.width + x) * 3);
    }
    ++x;
  };
  while (y < h.height) {
    const uint8_t count = *r.bytes(at, 1), value = *r.bytes(at + 1, 1);
    at += 2;
    if (count > 0) {  // a run
      for (int i = 0; i < count; ++i) put(four ? (i % 2 == 0 ? value >> 4 : value & 15) : value);
    } else if (value == 0) {  // end of line
      x = 0;
      ++y;
    } else if (value == 1) {  // end of bitmap
      break;
    } else if (value == 2) {  // move the cursor
      x += *r.bytes(at, 1);
      y += *r.bytes(at + 1, 1);
      at += 2;
    } else {  // `value` literal indices, padded to a 16-bit boundary
      const size_t bytes = four ? (value + 1) / 2 : value;
      const uint8_t* p = r.bytes(at, bytes);
      for (int i = 0; i < value; ++i)
        put(four ? (i % 2 == 0 ? p[i / 2] >> 4 : p[i / 2] & 15) : p[i]);
      at += (bytes + 1) & ~size_t{1};
    }
  }
}

}  // namespace

DecodedImage decode_bmp(std::span<const uint8_t> data) {
  const Reader reader(data);
  const Header header = read_header(reader);
  DecodedImage image;
  allocate_pixels(image, header.width, header.height, 3, "BMP");
  if (header.compression == kRle8 || header.compression == kRle4) {
    decode_rle(reader, header, image);
  } else {
    decode_uncompressed(reader, header, image);
  }
  return image;
}

}  // namespace kiln::image
