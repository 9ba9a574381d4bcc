// kiln demo: classifies the bundled 8x8 handwritten digits with the small CNN trained by
// demo/train_digits.py, and reports the time per run.
//
//   kiln_demo demo/digits.onnx demo/samples
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace {

// A digit as 8x8 characters, darker pixels drawn with denser glyphs.
void print_digit(const float* pixels) {
  const char* shades = " .:-=+*#";
  for (int y = 0; y < 8; ++y) {
    std::cout << "    ";
    for (int x = 0; x < 8; ++x) {
      const int level = std::clamp(static_cast<int>(pixels[y * 8 + x] * 7.99f), 0, 7);
      std::cout << shades[level] << shades[level];
    }
    std::cout << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: kiln_demo MODEL.onnx SAMPLES_DIR\n";
    return 2;
  }
  try {
    const std::string samples_dir = argv[2];
    kiln::Model model = kiln::load_model(argv[1]);
    kiln::Worker worker(model, kiln::Backend::Cpu);

    kiln::Tensor digits = kiln::load_tensor(samples_dir + "/digits_8x8.npy");  // [N, 1, 8, 8]
    std::vector<int> labels;
    std::ifstream label_file(samples_dir + "/labels.txt");
    for (int label; label_file >> label;) labels.push_back(label);

    // One warm-up run plans memory for this input shape; the timed runs reuse it.
    const std::string input = model.inputs().at(0).name;
    worker.schedule({{input, digits}});
    worker.peek_output().readback_and_clone();
    constexpr int kRuns = 200;
    const auto start = std::chrono::steady_clock::now();
    kiln::Tensor logits;
    for (int i = 0; i < kRuns; ++i) {
      worker.schedule({{input, digits}});
      logits = worker.peek_output().readback_and_clone();
    }
    const double micros =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count() /
        kRuns;

    const int64_t n = logits.shape()[0], classes = logits.shape()[1];
    const float* scores = logits.data<float>();
    const float* pixels = digits.data<float>();
    int correct = 0;
    for (int64_t i = 0; i < n; ++i) {
      const float* row = scores + i * classes;
      const int predicted = static_cast<int>(std::max_element(row, row + classes) - row);
      const int expected = i < static_cast<int64_t>(labels.size()) ? labels[i] : -1;
      correct += predicted == expected;
      std::cout << "sample " << i << ": predicted " << predicted << ", label " << expected
                << (predicted == expected ? "" : "  <-- wrong") << "\n";
      print_digit(pixels + i * 64);
    }
    std::printf(
        "%d of %lld correct; %.1f us per run of %lld digits (mean of %d runs, CPU backend)\n",
        correct, static_cast<long long>(n), micros, static_cast<long long>(n), kRuns);
    return correct == n ? 0 : 1;
  } catch (const kiln::Error& e) {
    std::cerr << "kiln_demo: " << e.what() << "\n";
    return 1;
  }
}
