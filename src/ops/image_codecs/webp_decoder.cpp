// WebP (lossy and lossless, still images) through libwebp.
#include <webp/decode.h>

#include <string>

#include "kiln/error.h"
#include "ops/image_codecs/image_codecs.h"

namespace kiln::image {

DecodedImage decode_webp(std::span<const uint8_t> data) {
  WebPBitstreamFeatures features;
  if (WebPGetFeatures(data.data(), data.size(), &features) != VP8_STATUS_OK) {
    throw Error("WebP: cannot read the image header");
  }
  if (features.has_animation) throw Error("WebP: animated images are not supported");
  DecodedImage image;
  allocate_pixels(image, features.width, features.height, 3, "WebP");
  const int stride = static_cast<int>(image.width * 3);
  if (!WebPDecodeRGBInto(data.data(), data.size(), image.pixels.data(), image.pixels.size(),
                         stride)) {
    throw Error("WebP: cannot decode the image data");
  }
  return image;
}

}  // namespace kiln::image
