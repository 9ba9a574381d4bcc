// ImageDecoder: decodes one encoded image (a 1-D uint8 tensor holding a JPEG, PNG, TIFF, WebP,
// JPEG 2000, BMP or PNM file, recognised by its signature) into [height, width, channels]
// uint8 pixels: 3 channels for pixel_format RGB (the default) or BGR, 1 for Grayscale.
#include <new>
#include <string>

#include "kernels/op_registry.h"
#include "ops/all_ops.h"
#include "ops/image_codecs/image_codecs.h"

namespace kiln {
namespace {

enum class PixelFormat { Rgb, Bgr, Grayscale };

image::DecodedImage decode(image::ImageFormat format, std::span<const uint8_t> data) {
  switch (format) {
    case image::ImageFormat::Jpeg:
      return image::decode_jpeg(data);
    case image::ImageFormat::Png:
      return image::decode_png(data);
    case image::ImageFormat::Tiff:
      return image::decode_tiff(data);
    case image::ImageFormat::WebP:
      return image::decode_webp(data);
    case image::ImageFormat::Jpeg2000:
      return image::decode_jpeg2000(data);
    case image::ImageFormat::Bmp:
      return image::decode_bmp(data);
    case image::ImageFormat::Pnm:
      return image::decode_pnm(data);
    case image::ImageFormat::Unknown:
      break;
  }
  throw Error("unrecognised image format");
}

// ITU-R 601-2 luma in 16-bit fixed point, rounded: the conversion the reference uses.
uint8_t luma(const uint8_t* rgb) {
  return static_cast<uint8_t>((rgb[0] * 19595 + rgb[1] * 38470 + rgb[2] * 7471 + 0x8000) >> 16);
}

void convert(const image::DecodedImage& in, PixelFormat format, uint8_t* out) {
  const int64_t pixels = in.width * in.height;
  const uint8_t* p = in.pixels.data();
  if (format == PixelFormat::Grayscale) {
    for (int64_t i = 0; i < pixels; ++i) out[i] = in.channels == 1 ? p[i] : luma(p + 3 * i);
    return;
  }
  const bool bgr = format == PixelFormat::Bgr;
  for (int64_t i = 0; i < pixels; ++i, out += 3) {
    if (in.channels == 1) {
      out[0] = out[1] = out[2] = p[i];
    } else {
      const uint8_t* rgb = p + 3 * i;
      out[0] = rgb[bgr ? 2 : 0];
      out[1] = rgb[1];
      out[2] = rgb[bgr ? 0 : 2];
    }
  }
}

CpuKernel make_image_decoder(const NodeInfo& info) {
  const std::string name = info.attr_string("pixel_format", "RGB");
  PixelFormat format = PixelFormat::Rgb;
  if (name == "BGR") {
    format = PixelFormat::Bgr;
  } else if (name == "Grayscale") {
    format = PixelFormat::Grayscale;
  } else if (name != "RGB") {
    info.fail("pixel_format must be RGB, BGR or Grayscale, got '" + name + "'");
  }
  return [format](OpContext& ctx) {
    const Tensor& encoded = ctx.input(0);
    if (encoded.dtype() != DataType::UInt8 || encoded.rank() != 1) {
      ctx.fail("encoded_stream must be a 1-D uint8 tensor, got " +
               std::string(dtype_name(encoded.dtype())) + encoded.shape().to_string());
    }
    const std::span<const uint8_t> data(encoded.data<uint8_t>(),
                                        static_cast<size_t>(encoded.element_count()));
    const image::ImageFormat file_format = image::detect_format(data);
    if (file_format == image::ImageFormat::Unknown) {
      ctx.fail("unrecognised image format: expected JPEG, PNG, TIFF, WebP, JPEG 2000, BMP or PNM");
    }
    image::DecodedImage decoded;
    try {
      decoded = decode(file_format, data);
    } catch (const std::bad_alloc&) {
      ctx.fail("out of memory while decoding the image");
    } catch (const Error& e) {
      ctx.fail(e.what());  // the decoder's message, tied to the node
    }
    const int64_t channels = format == PixelFormat::Grayscale ? 1 : 3;
    Tensor& y =
        ctx.allocate_output(0, DataType::UInt8, Shape{decoded.height, decoded.width, channels});
    convert(decoded, format, y.mutable_data<uint8_t>());
  };
}

}  // namespace

KILN_CPU_OPS(image_decoder);
void register_image_decoder_ops(OpRegistry& registry) {
  registry.add("ImageDecoder", make_image_decoder);
}

}  // namespace kiln
