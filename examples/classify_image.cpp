// Classifies a picture of a handwritten digit with the demo model: decodes the image file with
// libpng, turns it into the model's input (grey levels, dark ink on a light background, shrunk to
// 8x8 by averaging), runs it, and prints the three likeliest digits.
//
//   classify_image demo/digits.onnx examples/data/digit_7.png
//   predicted 7 (99.9%), then 9 (0.1%), 2 (0.0%)
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace {

struct GreyImage {
  int width = 0, height = 0;
  std::vector<float> pixels;  // row-major, 0 = black, 1 = white
};

// Any PNG (grey, RGB, palette, with or without alpha, 8 or 16 bits) as grey levels in [0, 1].
GreyImage read_png(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str()))
    throw std::runtime_error(path + ": " + image.message);
  image.format = PNG_FORMAT_GRAY;  // libpng converts colour to grey (and composites alpha)
  std::vector<png_byte> bytes(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, bytes.data(), 0, nullptr)) {
    png_image_free(&image);
    throw std::runtime_error(path + ": " + image.message);
  }
  GreyImage grey{static_cast<int>(image.width), static_cast<int>(image.height), {}};
  grey.pixels.reserve(bytes.size());
  for (png_byte b : bytes) grey.pixels.push_back(b / 255.0f);
  return grey;
}

// The model's input [1, 1, 8, 8]: ink in [0, 1], each of the 8x8 cells the mean of the image
// pixels it covers.
kiln::Tensor to_model_input(const GreyImage& image) {
  std::vector<float> cells(64, 0.0f);
  std::vector<int> counts(64, 0);
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const int cell = (y * 8 / image.height) * 8 + x * 8 / image.width;
      cells[cell] += 1.0f - image.pixels[static_cast<size_t>(y) * image.width + x];
      ++counts[cell];
    }
  }
  for (int i = 0; i < 64; ++i) cells[i] = counts[i] ? cells[i] / counts[i] : 0.0f;
  return kiln::Tensor::from_data<float>({1, 1, 8, 8}, cells);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: classify_image MODEL.onnx IMAGE.png\n");
    return 2;
  }
  try {
    const GreyImage image = read_png(argv[2]);
    if (image.width < 8 || image.height < 8)
      throw std::runtime_error(std::string(argv[2]) + ": smaller than 8x8 pixels");

    kiln::Model model = kiln::load_model(argv[1]);
    kiln::Worker worker(model, kiln::Backend::Cpu);
    worker.schedule({{model.inputs().at(0).name, to_model_input(image)}});
    const kiln::Tensor logits = worker.peek_output().readback_and_clone();

    // Softmax over the ten logits, then the three largest.
    const float* z = logits.data<float>();
    const int classes = static_cast<int>(logits.element_count());
    const float top = *std::max_element(z, z + classes);
    std::vector<double> p(static_cast<size_t>(classes));
    for (int i = 0; i < classes; ++i) p[i] = std::exp(static_cast<double>(z[i] - top));
    const double sum = std::accumulate(p.begin(), p.end(), 0.0);
    std::vector<int> order(static_cast<size_t>(classes));
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + 3, order.end(),
                      [&](int a, int b) { return p[a] > p[b]; });
    std::printf("predicted %d (%.1f%%), then %d (%.1f%%), %d (%.1f%%)\n", order[0],
                100 * p[order[0]] / sum, order[1], 100 * p[order[1]] / sum, order[2],
                100 * p[order[2]] / sum);
    return 0;
  } catch (const std::exception& e) {  // kiln::Error, or the image's own errors
    std::fprintf(stderr, "classify_image: %s\n", e.what());
    return 1;
  }
}
