// A program outside kiln's tree, built against the installed package (find_package(kiln) or
// pkg-config kiln): classifies the demo digits and checks the labels.
//   consumer MODEL.onnx SAMPLES_DIR
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <kiln/kiln.h>

static_assert(KILN_VERSION_MAJOR >= 0 && KILN_VERSION >= KILN_MAKE_VERSION(0, 2, 0));

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer MODEL.onnx SAMPLES_DIR\n");
    return 2;
  }
  try {
    const std::string samples = argv[2];
    kiln::Model model = kiln::load_model(argv[1]);
    kiln::Worker worker(model, kiln::Backend::Cpu, {.num_threads = 1});
    worker.schedule({{"pixels", kiln::load_tensor(samples + "/digits_8x8.npy")}});
    const kiln::Tensor logits = worker.peek_output("logits").readback_and_clone();

    std::ifstream label_file(samples + "/labels.txt");
    std::vector<int> labels;
    for (int label; label_file >> label;) labels.push_back(label);
    const int64_t n = logits.shape()[0], classes = logits.shape()[1];
    int correct = 0;
    for (int64_t i = 0; i < n; ++i) {
      const float* row = logits.data<float>() + i * classes;
      correct += std::max_element(row, row + classes) - row == labels.at(static_cast<size_t>(i));
    }
    std::printf("kiln %s (headers %s): %d of %lld digits right\n", kiln::version(),
                KILN_VERSION_STRING, correct, static_cast<long long>(n));
    // A kiln::Error thrown inside the library is caught here by type (its type information must
    // cross a shared library's boundary).
    try {
      kiln::load_model(samples + "/no-such-model.onnx");
      return 1;
    } catch (const kiln::Error&) {
    }
    return correct == n && std::string(kiln::version()) == KILN_VERSION_STRING ? 0 : 1;
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
