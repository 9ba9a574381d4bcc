#include "ops/image_codecs/image_codecs.h"

#include <cstring>

#include "kiln/error.h"

namespace kiln::image {

namespace {

bool starts_with(std::span<const uint8_t> data, const char* signature, size_t length,
                 size_t offset = 0) {
  return data.size() >= offset + length &&
         std::memcmp(data.data() + offset, signature, length) == 0;
}

}  // namespace

ImageFormat detect_format(std::span<const uint8_t> data) {
  if (starts_with(data, "\xFF\xD8\xFF", 3)) return ImageFormat::Jpeg;
  if (starts_with(data, "\x89PNG\r\n\x1A\n", 8)) return ImageFormat::Png;
  if (starts_with(data, "II*\0", 4) || starts_with(data, "MM\0*", 4)) return ImageFormat::Tiff;
  if (starts_with(data, "RIFF", 4) && starts_with(data, "WEBP", 4, 8)) return ImageFormat::WebP;
  // A JP2 file starts with its signature box; a raw codestream with the SOC and SIZ markers.
  if (starts_with(data, "\0\0\0\x0CjP  \r\n\x87\n", 12) ||
      starts_with(data, "\xFF\x4F\xFF\x51", 4)) {
    return ImageFormat::Jpeg2000;
  }
  if (starts_with(data, "BM", 2)) return ImageFormat::Bmp;
  if (data.size() >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '6') {
    return ImageFormat::Pnm;
  }
  return ImageFormat::Unknown;
}

void allocate_pixels(DecodedImage& image, int64_t width, int64_t height, int channels,
                     const char* format) {
  if (width < 1 || height < 1) {
    throw Error(std::string(format) + ": invalid image size " + std::to_string(width) + "x" +
                std::to_string(height));
  }
  if (width > kMaxPixels / height) {
    throw Error(std::string(format) + ": image of " + std::to_string(width) + "x" +
                std::to_string(height) + " pixels exceeds the limit of " +
                std::to_string(kMaxPixels) + " pixels");
  }
  image.width = width;
  image.height = height;
  image.channels = channels;
  image.pixels.assign(static_cast<size_t>(width * height * channels), 0);
}

}  // namespace kiln::image
