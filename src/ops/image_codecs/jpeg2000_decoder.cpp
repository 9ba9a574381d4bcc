// JPEG 2000 (JP2 files and raw J2K codestreams) through OpenJPEG. One or two components
// (gray, gray + alpha) give a gray image, three or more an RGB one; samples of other
// precisions are scaled to 8 bits, and subsampled components are stretched to full size.
#include <openjpeg.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "kiln/error.h"
#include "ops/image_codecs/image_codecs.h"

namespace kiln::image {
namespace {

struct J2kSource {
  std::span<const uint8_t> data;
  uint64_t offset = 0;
  std::string error;
};

OPJ_SIZE_T read_bytes(void* out, OPJ_SIZE_T size, void* user) {
  auto& s = *static_cast<J2kSource*>(user);
  if (s.offset >= s.data.size()) return static_cast<OPJ_SIZE_T>(-1);  // end of stream
  const uint64_t n = std::min<uint64_t>(size, s.data.size() - s.offset);
  std::memcpy(out, s.data.data() + s.offset, n);
  s.offset += n;
  return static_cast<OPJ_SIZE_T>(n);
}

OPJ_OFF_T skip_bytes(OPJ_OFF_T count, void* user) {
  auto& s = *static_cast<J2kSource*>(user);
  if (count < 0) return -1;
  const uint64_t n = std::min<uint64_t>(static_cast<uint64_t>(count), s.data.size() - s.offset);
  s.offset += n;
  return static_cast<OPJ_OFF_T>(n);
}

OPJ_BOOL seek_to(OPJ_OFF_T position, void* user) {
  auto& s = *static_cast<J2kSource*>(user);
  if (position < 0 || static_cast<uint64_t>(position) > s.data.size()) return OPJ_FALSE;
  s.offset = static_cast<uint64_t>(position);
  return OPJ_TRUE;
}

void on_error(const char* message, void* user) {
  auto& s = *static_cast<J2kSource*>(user);
  if (s.error.empty()) {
    s.error = message;
    while (!s.error.empty() && s.error.back() == '\n') s.error.pop_back();
  }
}

void ignore_message(const char*, void*) {}

// A component's sample at image position (x, y), scaled to 8 bits.
int sample(const opj_image_comp_t& comp, int64_t x, int64_t y, int64_t width, int64_t height) {
  // Components may be subsampled (w, h smaller than the image): nearest sample.
  const int64_t cx = std::min<int64_t>(x * comp.w / width, comp.w - 1);
  const int64_t cy = std::min<int64_t>(y * comp.h / height, comp.h - 1);
  int64_t v = comp.data[cy * comp.w + cx];
  if (comp.sgnd) v += int64_t{1} << (comp.prec - 1);
  if (comp.prec > 8) v >>= comp.prec - 8;
  if (comp.prec < 8) v = v * 255 / ((int64_t{1} << comp.prec) - 1);
  return static_cast<int>(std::clamp<int64_t>(v, 0, 255));
}

uint8_t clamp_byte(double v) { return static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L)); }

}  // namespace

DecodedImage decode_jpeg2000(std::span<const uint8_t> data) {
  J2kSource source{data, 0, {}};
  const bool is_jp2 = data.size() >= 4 && data[0] == 0 && data[1] == 0 && data[2] == 0;
  opj_stream_t* stream = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
  opj_codec_t* codec = opj_create_decompress(is_jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  opj_image_t* decoded = nullptr;
  struct Cleanup {
    opj_stream_t*& stream;
    opj_codec_t*& codec;
    opj_image_t*& image;
    ~Cleanup() {
      if (image) opj_image_destroy(image);
      if (codec) opj_destroy_codec(codec);
      if (stream) opj_stream_destroy(stream);
    }
  } cleanup{stream, codec, decoded};
  if (!stream || !codec) throw Error("JPEG 2000: cannot create a decoder");

  opj_stream_set_user_data(stream, &source, nullptr);
  opj_stream_set_user_data_length(stream, data.size());
  opj_stream_set_read_function(stream, read_bytes);
  opj_stream_set_skip_function(stream, skip_bytes);
  opj_stream_set_seek_function(stream, seek_to);
  opj_set_error_handler(codec, on_error, &source);
  opj_set_warning_handler(codec, ignore_message, nullptr);
  opj_set_info_handler(codec, ignore_message, nullptr);
  opj_dparameters_t parameters;
  opj_set_default_decoder_parameters(&parameters);
  auto fail = [&](const char* what) {
    throw Error(std::string("JPEG 2000: ") + what +
                (source.error.empty() ? "" : " (" + source.error + ")"));
  };
  if (!opj_setup_decoder(codec, &parameters)) fail("cannot set up the decoder");
  if (!opj_read_header(stream, codec, &decoded) || !decoded) fail("cannot read the header");

  DecodedImage image;
  const int64_t width = static_cast<int64_t>(decoded->x1) - decoded->x0;
  const int64_t height = static_cast<int64_t>(decoded->y1) - decoded->y0;
  const int components = static_cast<int>(decoded->numcomps);
  if (components < 1) fail("the image has no components");
  // Checked before decoding, so that a forged header cannot make OpenJPEG allocate first.
  allocate_pixels(image, width, height, components >= 3 ? 3 : 1, "JPEG 2000");
  if (!opj_decode(codec, stream, decoded) || !opj_end_decompress(codec, stream)) {
    fail("cannot decode the image data");
  }
  const int used = image.channels;
  for (int c = 0; c < used; ++c) {
    const opj_image_comp_t& comp = decoded->comps[c];
    if (!comp.data || comp.w == 0 || comp.h == 0 || comp.prec < 1 || comp.prec > 31) {
      fail("a component has no usable data");
    }
  }
  const bool ycc = decoded->color_space == OPJ_CLRSPC_SYCC && used == 3;
  uint8_t* out = image.pixels.data();
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x, out += used) {
      if (!ycc) {
        for (int c = 0; c < used; ++c)
          out[c] = static_cast<uint8_t>(sample(decoded->comps[c], x, y, width, height));
        continue;
      }
      // sYCC without the codestream's own colour transform: the usual YCbCr to RGB matrix.
      const double luma = sample(decoded->comps[0], x, y, width, height);
      const double cb = sample(decoded->comps[1], x, y, width, height) - 128.0;
      const double cr = sample(decoded->comps[2], x, y, width, height) - 128.0;
      out[0] = clamp_byte(luma + 1.402 * cr);
      out[1] = clamp_byte(luma - 0.344136 * cb - 0.714136 * cr);
      out[2] = clamp_byte(luma + 1.772 * cb);
    }
  }
  return image;
}

}  // namespace kiln::image
