// PNG through libpng. Palettes and low bit depths are expanded to 8 bits, 16-bit samples keep
// their high byte, and alpha and transparency are dropped; gamma chunks are not applied.
#include <png.h>

#include <cstring>
#include <string>

#include "kiln/error.h"
#include "ops/image_codecs/image_codecs.h"

namespace kiln::image {
namespace {

struct PngSource {
  std::span<const uint8_t> data;
  size_t offset = 0;
  char message[256] = {};
};

void read_bytes(png_structp png, png_bytep out, size_t length) {
  auto* source = static_cast<PngSource*>(png_get_io_ptr(png));
  if (length > source->data.size() - source->offset) png_error(png, "unexpected end of data");
  std::memcpy(out, source->data.data() + source->offset, length);
  source->offset += length;
}

// libpng's error callback must not return: it jumps back to decode_png.
[[noreturn]] void on_error(png_structp png, png_const_charp message) {
  auto* source = static_cast<PngSource*>(png_get_error_ptr(png));
  std::strncpy(source->message, message, sizeof(source->message) - 1);
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}  // recoverable: not printed

struct ReadStructGuard {
  png_structp* png;
  png_infop* info;
  ~ReadStructGuard() { png_destroy_read_struct(png, info, nullptr); }
};

}  // namespace

DecodedImage decode_png(std::span<const uint8_t> data) {
  DecodedImage image;
  PngSource source{data};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, on_error, on_warning);
  if (!png) throw Error("PNG: cannot create a decoder");
  png_infop info = png_create_info_struct(png);
  ReadStructGuard guard{&png, &info};
  if (!info) throw Error("PNG: cannot create a decoder");
  // Nothing with a destructor is created between here and the last libpng call.
  if (setjmp(png_jmpbuf(png))) throw Error(std::string("PNG: ") + source.message);
  png_set_read_fn(png, &source, read_bytes);
  png_read_info(png, info);
  const int color_type = png_get_color_type(png, info);
  const int bit_depth = png_get_bit_depth(png, info);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (bit_depth == 16) png_set_strip_16(png);
  if (color_type & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(png);
  const int passes = png_set_interlace_handling(png);  // 7 for Adam7, else 1
  png_read_update_info(png, info);
  const int channels = png_get_channels(png, info);
  if (channels != 1 && channels != 3) png_error(png, "unsupported channel layout");
  allocate_pixels(image, png_get_image_width(png, info), png_get_image_height(png, info), channels,
                  "PNG");
  const size_t row_bytes = static_cast<size_t>(image.width) * channels;
  if (png_get_rowbytes(png, info) != row_bytes) png_error(png, "unexpected row size");
  // Row by row (each interlace pass revisits every row): no row-pointer array to allocate.
  for (int pass = 0; pass < passes; ++pass) {
    for (int64_t y = 0; y < image.height; ++y) {
      png_read_row(png, image.pixels.data() + y * row_bytes, nullptr);
    }
  }
  png_read_end(png, nullptr);
  return image;
}

}  // namespace kiln::image
