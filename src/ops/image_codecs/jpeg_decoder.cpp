// JPEG through libjpeg(-turbo), with its default (accurate integer) IDCT and fancy upsampling,
// the settings most decoders use, so that pixels match theirs exactly.
#include <csetjmp>
#include <cstdio>  // jpeglib.h uses FILE and size_t without including their headers
#include <string>

#include <jerror.h>
#include <jpeglib.h>

#include "kiln/error.h"
#include "ops/image_codecs/image_codecs.h"

namespace kiln::image {
namespace {

// libjpeg reports errors by calling error_exit, which must not return: it jumps back to
// decode_jpeg, which turns the message into a kiln::Error.
struct ErrorManager {
  jpeg_error_mgr base;  // first member: libjpeg hands back a pointer to it
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void on_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

void on_message(j_common_ptr cinfo, int level) {
  // A truncated file is padded with gray and only warned about; it is an error here. Other
  // warnings (recoverable corruption) and trace messages are not printed.
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) on_error(cinfo);
}

// Destroys the decompressor however decode_jpeg leaves (a zeroed one is a no-op).
struct DecompressGuard {
  jpeg_decompress_struct* cinfo;
  ~DecompressGuard() { jpeg_destroy_decompress(cinfo); }
};

uint8_t mul_div_255(unsigned a, unsigned b) {
  const unsigned t = a * b + 128;
  return static_cast<uint8_t>(((t >> 8) + t) >> 8);
}

// CMYK to RGB as the common imaging libraries do: R = (255 - C) * (255 - K) / 255. Adobe
// applications write the channels inverted, and say so with their APP14 marker.
void cmyk_to_rgb(const uint8_t* cmyk, uint8_t* rgb, int64_t pixels, bool inverted) {
  for (int64_t i = 0; i < pixels; ++i, cmyk += 4, rgb += 3) {
    const unsigned k = inverted ? 255u - cmyk[3] : cmyk[3];
    const unsigned keep = 255u - k;
    for (int c = 0; c < 3; ++c) {
      const unsigned ink = inverted ? 255u - cmyk[c] : cmyk[c];
      rgb[c] = static_cast<uint8_t>(keep - mul_div_255(ink, keep));
    }
  }
}

}  // namespace

DecodedImage decode_jpeg(std::span<const uint8_t> data) {
  DecodedImage image;
  DecodedImage cmyk;  // the 4-channel rows of a CMYK image before conversion
  jpeg_decompress_struct cinfo{};
  ErrorManager err;
  DecompressGuard guard{&cinfo};
  cinfo.err = jpeg_std_error(&err.base);
  err.base.error_exit = on_error;
  err.base.emit_message = on_message;
  // Nothing with a destructor is created between here and the last libjpeg call, so a jump
  // back skips none.
  if (setjmp(err.jump)) throw Error(std::string("JPEG: ") + err.message);
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data.data(), static_cast<unsigned long>(data.size()));
  jpeg_read_header(&cinfo, TRUE);
  const bool is_cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  const bool is_gray = cinfo.jpeg_color_space == JCS_GRAYSCALE;
  cinfo.out_color_space = is_cmyk ? JCS_CMYK : is_gray ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_calc_output_dimensions(&cinfo);
  DecodedImage& target = is_cmyk ? cmyk : image;
  allocate_pixels(target, cinfo.output_width, cinfo.output_height, cinfo.out_color_components,
                  "JPEG");
  jpeg_start_decompress(&cinfo);
  const size_t row_bytes = static_cast<size_t>(target.width) * target.channels;
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = target.pixels.data() + cinfo.output_scanline * row_bytes;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  if (is_cmyk) {
    allocate_pixels(image, cmyk.width, cmyk.height, 3, "JPEG");
    cmyk_to_rgb(cmyk.pixels.data(), image.pixels.data(), cmyk.width * cmyk.height,
                cinfo.saw_Adobe_marker);
  }
  return image;
}

}  // namespace kiln::image
