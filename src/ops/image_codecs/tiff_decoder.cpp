// TIFF through libtiff's RGBA interface, which handles every photometric interpretation, bit
// depth, tiling and compression libtiff knows. The first image of the file is decoded.
#include <tiffio.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kiln/error.h"
#include "ops/image_codecs/image_codecs.h"

namespace kiln::image {
namespace {

// The encoded bytes as a read-only file for TIFFClientOpenExt, and the first error message.
struct TiffSource {
  std::span<const uint8_t> data;
  uint64_t offset = 0;
  std::string error;
};

TiffSource& source_of(thandle_t handle) { return *static_cast<TiffSource*>(handle); }

tmsize_t read_bytes(thandle_t handle, void* out, tmsize_t size) {
  TiffSource& s = source_of(handle);
  if (size <= 0 || s.offset >= s.data.size()) return 0;
  const uint64_t n = std::min<uint64_t>(static_cast<uint64_t>(size), s.data.size() - s.offset);
  std::memcpy(out, s.data.data() + s.offset, n);
  s.offset += n;
  return static_cast<tmsize_t>(n);
}

tmsize_t write_bytes(thandle_t, void*, tmsize_t) { return 0; }  // opened for reading only

toff_t seek(thandle_t handle, toff_t offset, int whence) {
  TiffSource& s = source_of(handle);
  uint64_t base = 0;
  if (whence == SEEK_CUR) base = s.offset;
  if (whence == SEEK_END) base = s.data.size();
  s.offset = base + offset;  // reading past the end returns no bytes
  return s.offset;
}

int close_file(thandle_t) { return 0; }
toff_t file_size(thandle_t handle) { return source_of(handle).data.size(); }
int map_file(thandle_t, void**, toff_t*) { return 0; }  // no mapping: libtiff reads instead
void unmap_file(thandle_t, void*, toff_t) {}

int on_error(TIFF*, void* user, const char* module, const char* format, va_list args) {
  TiffSource& s = *static_cast<TiffSource*>(user);
  if (s.error.empty()) {
    char message[512];
    std::vsnprintf(message, sizeof(message), format, args);
    s.error = std::string(module ? module : "") + (module ? ": " : "") + message;
  }
  return 1;  // handled: not passed on to the process-wide handler, which prints
}

int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

[[noreturn]] void fail(const TiffSource& source, const std::string& what) {
  throw Error("TIFF: " + what + (source.error.empty() ? "" : " (" + source.error + ")"));
}

}  // namespace

DecodedImage decode_tiff(std::span<const uint8_t> data) {
  TiffSource source{data, 0, {}};
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  if (!options) throw Error("TIFF: cannot create a decoder");
  TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, &source);
  TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, &source);
  TIFF* tif = TIFFClientOpenExt("encoded image", "r", &source, read_bytes, write_bytes, seek,
                                close_file, file_size, map_file, unmap_file, options);
  TIFFOpenOptionsFree(options);
  if (!tif) fail(source, "cannot read the file header");
  struct Closer {
    TIFF* tif;
    ~Closer() { TIFFClose(tif); }
  } closer{tif};

  char message[1024] = {};
  if (!TIFFRGBAImageOK(tif, message)) fail(source, message);
  uint32_t width = 0, height = 0;
  uint16_t photometric = PHOTOMETRIC_RGB, samples = 1, extra_count = 0;
  uint16_t* extra_types = nullptr;
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
  TIFFGetFieldDefaulted(tif, TIFFTAG_PHOTOMETRIC, &photometric);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types);
  const bool gray =
      (photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE) &&
      samples - extra_count == 1;

  DecodedImage image;
  allocate_pixels(image, width, height, gray ? 1 : 3, "TIFF");
  std::vector<uint32_t> rgba(static_cast<size_t>(image.width * image.height));
  if (!TIFFReadRGBAImageOriented(tif, width, height, rgba.data(), ORIENTATION_TOPLEFT, 1)) {
    fail(source, "cannot decode the image data");
  }
  uint8_t* out = image.pixels.data();
  for (uint32_t p : rgba) {
    *out++ = static_cast<uint8_t>(TIFFGetR(p));
    if (!gray) {
      *out++ = static_cast<uint8_t>(TIFFGetG(p));
      *out++ = static_cast<uint8_t>(TIFFGetB(p));
    }
  }
  return image;
}

}  // namespace kiln::image
