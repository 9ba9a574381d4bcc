// The image formats ImageDecoder reads. JPEG, PNG, TIFF, WebP and JPEG 2000 wrap the system
// libraries; BMP and PNM, simple enough to parse safely by hand, are read directly.
//
// Every decoder returns 8-bit pixels, either gray or RGB as the file stores them (alpha is
// dropped), and throws kiln::Error for data it cannot decode, including the errors the
// libraries report through longjmp or callbacks.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kiln::image {

struct DecodedImage {
  int64_t height = 0;
  int64_t width = 0;
  int channels = 0;             // 1 (gray) or 3 (RGB)
  std::vector<uint8_t> pixels;  // height * width * channels, rows top to bottom
};

enum class ImageFormat { Unknown, Jpeg, Png, Tiff, WebP, Jpeg2000, Bmp, Pnm };

// The format announced by the first bytes of `data` (its signature).
ImageFormat detect_format(std::span<const uint8_t> data);

DecodedImage decode_jpeg(std::span<const uint8_t> data);
DecodedImage decode_png(std::span<const uint8_t> data);
DecodedImage decode_tiff(std::span<const uint8_t> data);
DecodedImage decode_webp(std::span<const uint8_t> data);
DecodedImage decode_jpeg2000(std::span<const uint8_t> data);
DecodedImage decode_bmp(std::span<const uint8_t> data);
DecodedImage decode_pnm(std::span<const uint8_t> data);

// Allocates `image`'s pixels after checking the dimensions: positive, and at most
// kMaxPixels pixels, so that a forged header cannot make a decoder allocate without bound.
// `format` prefixes the error message.
inline constexpr int64_t kMaxPixels = int64_t{1} << 28;
void allocate_pixels(DecodedImage& image, int64_t width, int64_t height, int channels,
                     const char* format);

}  // namespace kiln::image
