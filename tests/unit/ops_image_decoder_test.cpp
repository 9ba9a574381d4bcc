// Tests of ImageDecoder: every format against the pixels the image was made from, the three
// pixel formats, and corrupt or unsupported input turning into kiln::Error.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "encoded_images.h"
#include "kiln/kiln.h"
#include "test_util.h"

namespace kiln::testing {
namespace {

// The 3x2 image most test files hold, row by row.
const std::vector<uint8_t> kRgbPixels = {255, 0,  0,  0,   255, 0,  0,   0,   255,
                                         10,  20, 30, 200, 100, 50, 255, 255, 255};

Tensor bytes_tensor(const std::vector<uint8_t>& bytes) {
  return Tensor::from_data<uint8_t>({static_cast<int64_t>(bytes.size())}, bytes);
}

Tensor decode(const std::vector<uint8_t>& bytes, const std::string& pixel_format = "RGB") {
  return OpTest("ImageDecoder", 20)
      .attr("pixel_format", pixel_format)
      .input(bytes_tensor(bytes))
      .run()[0];
}

std::vector<uint8_t> text_bytes(const std::string& s) { return {s.begin(), s.end()}; }

// A Windows BMP with a 40-byte header: `pixels` are the rows as stored (bottom-up unless the
// height is negative), `palette` its BGRX entries.
std::vector<uint8_t> make_bmp(int32_t width, int32_t height, uint16_t bits, uint32_t compression,
                              const std::vector<uint8_t>& palette,
                              const std::vector<uint8_t>& pixels) {
  std::vector<uint8_t> b;
  auto put16 = [&](uint32_t v) {
    b.push_back(v & 0xFF);
    b.push_back((v >> 8) & 0xFF);
  };
  auto put32 = [&](uint32_t v) {
    put16(v & 0xFFFF);
    put16(v >> 16);
  };
  const uint32_t offset = 14 + 40 + static_cast<uint32_t>(palette.size());
  b.push_back('B');
  b.push_back('M');
  put32(offset + static_cast<uint32_t>(pixels.size()));
  put32(0);
  put32(offset);
  put32(40);
  put32(static_cast<uint32_t>(width));
  put32(static_cast<uint32_t>(height));
  put16(1);
  put16(bits);
  put32(compression);
  put32(static_cast<uint32_t>(pixels.size()));
  put32(2835);
  put32(2835);
  put32(static_cast<uint32_t>(palette.size() / 4));
  put32(0);
  b.insert(b.end(), palette.begin(), palette.end());
  b.insert(b.end(), pixels.begin(), pixels.end());
  return b;
}

// --- Lossless formats --------------------------------------------------------------------------

TEST(SignalImageDecoder, LosslessFormatsGiveTheSourcePixels) {
  const std::vector<std::pair<const char*, const std::vector<uint8_t>*>> files = {
      {"PNG", &kPng},   {"PNG with alpha", &kPngRgba},
      {"TIFF", &kTiff}, {"WebP", &kWebp},
      {"JP2", &kJp2},   {"J2K", &kJ2k}};
  for (const auto& [name, bytes] : files) {
    SCOPED_TRACE(name);
    const Tensor out = decode(*bytes);
    EXPECT_EQ(out.dtype(), DataType::UInt8);
    EXPECT_EQ(out.shape(), (Shape{2, 3, 3}));
    EXPECT_EQ(out.to_vector<uint8_t>(), kRgbPixels);
  }
}

TEST(SignalImageDecoder, BgrAndGrayscaleFromColour) {
  const Tensor bgr = decode(kPng, "BGR");
  std::vector<uint8_t> expected = kRgbPixels;
  for (size_t i = 0; i < expected.size(); i += 3) std::swap(expected[i], expected[i + 2]);
  EXPECT_EQ(bgr.to_vector<uint8_t>(), expected);
  // ITU-R 601-2 luma, 0.299 R + 0.587 G + 0.114 B, rounded.
  const Tensor gray = decode(kPng, "Grayscale");
  EXPECT_EQ(gray.shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(gray.to_vector<uint8_t>(), (std::vector<uint8_t>{76, 150, 29, 18, 124, 255}));
}

TEST(SignalImageDecoder, GrayImageInEveryPixelFormat) {
  const std::vector<uint8_t> levels = {0, 50, 100, 150, 200, 250};
  EXPECT_EQ(decode(kPngGray, "Grayscale").to_vector<uint8_t>(), levels);
  std::vector<uint8_t> replicated;
  for (uint8_t v : levels) replicated.insert(replicated.end(), {v, v, v});
  EXPECT_EQ(decode(kPngGray, "RGB").to_vector<uint8_t>(), replicated);
  EXPECT_EQ(decode(kPngGray, "BGR").to_vector<uint8_t>(), replicated);
}

// --- JPEG (lossy: solid colours come back within a step or two) ---------------------------------

void expect_all_near(const Tensor& t, const std::vector<int>& pixel, int tolerance) {
  const auto v = t.to_vector<uint8_t>();
  ASSERT_EQ(v.size() % pixel.size(), 0u);
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_NEAR(v[i], pixel[i % pixel.size()], tolerance) << "element " << i;
  }
}

TEST(SignalImageDecoder, JpegColourInEveryPixelFormat) {
  const Tensor rgb = decode(kJpeg);
  EXPECT_EQ(rgb.shape(), (Shape{8, 8, 3}));
  expect_all_near(rgb, {90, 160, 220}, 2);
  expect_all_near(decode(kJpeg, "BGR"), {220, 160, 90}, 2);
  const Tensor gray = decode(kJpeg, "Grayscale");
  EXPECT_EQ(gray.shape(), (Shape{8, 8, 1}));
  expect_all_near(gray, {146}, 2);  // 0.299 * 90 + 0.587 * 160 + 0.114 * 220 = 145.9
}

TEST(SignalImageDecoder, GrayJpeg) {
  expect_all_near(decode(kJpegGray, "Grayscale"), {77}, 1);
  expect_all_near(decode(kJpegGray, "RGB"), {77, 77, 77}, 1);
}

// --- BMP ----------------------------------------------------------------------------------------

TEST(SignalImageDecoder, Bmp24BitBottomUpAndTopDown) {
  // Rows of 3 BGR pixels padded to 12 bytes; the file's first row is the image's last.
  const std::vector<uint8_t> top = {0, 0, 255, 0, 255, 0, 255, 0, 0, 0, 0, 0};
  const std::vector<uint8_t> bottom = {30, 20, 10, 50, 100, 200, 255, 255, 255, 0, 0, 0};
  std::vector<uint8_t> bottom_up = bottom;
  bottom_up.insert(bottom_up.end(), top.begin(), top.end());
  EXPECT_EQ(decode(make_bmp(3, 2, 24, 0, {}, bottom_up)).to_vector<uint8_t>(), kRgbPixels);
  std::vector<uint8_t> top_down = top;
  top_down.insert(top_down.end(), bottom.begin(), bottom.end());
  EXPECT_EQ(decode(make_bmp(3, -2, 24, 0, {}, top_down)).to_vector<uint8_t>(), kRgbPixels);
}

TEST(SignalImageDecoder, BmpPaletteAndRle8) {
  const std::vector<uint8_t> palette = {255, 0, 0, 0, 0, 0,
                                        255, 0, 3, 2, 1, 0};  // blue red (1,2,3)
  // 8 bits per pixel, 2x1: indices 1, 2 (row padded to 4 bytes).
  EXPECT_EQ(decode(make_bmp(2, 1, 8, 0, palette, {1, 2, 0, 0})).to_vector<uint8_t>(),
            (std::vector<uint8_t>{255, 0, 0, 1, 2, 3}));
  // RLE8, 4x2. Stored bottom row: a run of four 1s, end of line. Top row: literal 2 0 1
  // (padded to an even length), a run of one 2, end of bitmap.
  const std::vector<uint8_t> rle = {4, 1, 0, 0, 0, 3, 2, 0, 1, 0, 1, 2, 0, 1};
  const Tensor out = decode(make_bmp(4, 2, 8, 1, palette, rle));
  EXPECT_EQ(out.to_vector<uint8_t>(),
            (std::vector<uint8_t>{1,   2, 3, 0,   0, 255, 255, 0, 0, 1,   2, 3,  // top: 2 0 1 2
                                  255, 0, 0, 255, 0, 0,   255, 0, 0, 255, 0, 0}));
}

TEST(SignalImageDecoder, Bmp16BitDefaultMasks) {
  // 5-5-5: 0x7C00 is full red; 0x03E1 is full green and blue 1 of 31 (8 of 255).
  const Tensor out = decode(make_bmp(2, 1, 16, 0, {}, {0x00, 0x7C, 0xE1, 0x03}));
  EXPECT_EQ(out.to_vector<uint8_t>(), (std::vector<uint8_t>{255, 0, 0, 0, 255, 8}));
}

// --- PNM ----------------------------------------------------------------------------------------

TEST(SignalImageDecoder, PnmBinaryAndPlain) {
  std::vector<uint8_t> p6 = text_bytes("P6\n3 2\n255\n");
  p6.insert(p6.end(), kRgbPixels.begin(), kRgbPixels.end());
  EXPECT_EQ(decode(p6).to_vector<uint8_t>(), kRgbPixels);
  const auto p3 = text_bytes(
      "P3\n# a comment\n3 2 255\n255 0 0  0 255 0  0 0 255\n"
      "10 20 30  200 100 50  255 255 255\n");
  EXPECT_EQ(decode(p3).to_vector<uint8_t>(), kRgbPixels);
  // 16-bit gray, most significant byte first: 65535 -> 255, 32768 -> 128.
  std::vector<uint8_t> p5 = text_bytes("P5 2 1 65535\n");
  p5.insert(p5.end(), {0xFF, 0xFF, 0x80, 0x00});
  EXPECT_EQ(decode(p5, "Grayscale").to_vector<uint8_t>(), (std::vector<uint8_t>{255, 128}));
  // Bitmaps: 1 is black.
  std::vector<uint8_t> p4 = text_bytes("P4 3 1\n");
  p4.push_back(0b10100000);
  EXPECT_EQ(decode(p4, "Grayscale").to_vector<uint8_t>(), (std::vector<uint8_t>{0, 255, 0}));
  EXPECT_EQ(decode(text_bytes("P1 2 1\n0 1\n"), "Grayscale").to_vector<uint8_t>(),
            (std::vector<uint8_t>{255, 0}));
}

// --- Bad input ----------------------------------------------------------------------------------

std::vector<uint8_t> prefix(const std::vector<uint8_t>& bytes, size_t n) {
  return {bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n)};
}

TEST(SignalImageDecoder, TruncatedFilesFail) {
  for (const auto* bytes : {&kPng, &kTiff, &kWebp, &kJp2, &kJ2k, &kJpeg}) {
    EXPECT_THROW(decode(prefix(*bytes, bytes->size() / 2)), Error);
    EXPECT_THROW(decode(prefix(*bytes, 4)), Error);
  }
  EXPECT_THROW(decode(make_bmp(3, 2, 24, 0, {}, std::vector<uint8_t>(12))), Error);
  EXPECT_THROW(decode(text_bytes("P6 3 2 255\n\x01\x02")), Error);
}

TEST(SignalImageDecoder, CorruptDataFails) {
  std::vector<uint8_t> jpeg = kJpeg;
  for (size_t i = 2; i < 200; ++i) jpeg[i] = 0xFF;  // markers destroyed
  EXPECT_THROW(decode(jpeg), Error);
  std::vector<uint8_t> png = kPng;
  png[20] ^= 0x55;  // breaks the header chunk's CRC
  EXPECT_THROW(decode(png), Error);
  EXPECT_THROW(decode(text_bytes("P2 1 1 100 101")), Error);                      // sample > maxval
  EXPECT_THROW(decode(make_bmp(2, 1, 8, 0, {0, 0, 0, 0}, {1, 0, 0, 0})), Error);  // no entry 1
  EXPECT_THROW(decode(make_bmp(0, 1, 24, 0, {}, {})), Error);                     // zero width
  EXPECT_THROW(decode(text_bytes("P5 1000000 1000000 255\n")), Error);  // beyond the limit
}

TEST(SignalImageDecoder, ErrorsNameTheNodeAndTheFormat) {
  const std::vector<std::pair<std::vector<uint8_t>, std::string>> cases = {
      {prefix(kJpeg, kJpeg.size() / 2), "JPEG"},
      {prefix(kPng, 40), "PNG"},
      {prefix(kTiff, 60), "TIFF"},
      {prefix(kJp2, 100), "JPEG 2000"},
      {prefix(kWebp, 30), "WebP"}};
  for (const auto& [bytes, format] : cases) {
    try {
      decode(bytes);
      ADD_FAILURE() << format << " decoded";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("ImageDecoder"), std::string::npos) << message;
      EXPECT_NE(message.find(format + ":"), std::string::npos) << message;
    }
  }
}

TEST(SignalImageDecoder, UnknownFormatAndBadTensorsFail) {
  EXPECT_THROW(decode(text_bytes("GIF89a......")), Error);
  EXPECT_THROW(decode({}), Error);
  EXPECT_THROW(OpTest("ImageDecoder", 20).input(f32({2}, {1, 2})).run(), Error);
  EXPECT_THROW(OpTest("ImageDecoder", 20)
                   .input(Tensor::from_data<uint8_t>({1, static_cast<int64_t>(kPng.size())}, kPng))
                   .run(),
               Error);
  EXPECT_THROW(decode(kPng, "RGBA"), Error);
}

TEST(SignalImageDecoder, InputIsNotModified) {
  const Tensor encoded = bytes_tensor(kPng);
  OpTest("ImageDecoder", 20).input(encoded).constant_input(0).run();
  EXPECT_EQ(encoded.to_vector<uint8_t>(), kPng);
}

}  // namespace
}  // namespace kiln::testing
