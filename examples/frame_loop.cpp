// A render loop that runs a model without ever waiting for it: each inference is scheduled, its
// result requested with readback_request(), and the loop keeps drawing frames, polling
// is_readback_request_done() once per frame, until the result is there. It then schedules the
// next one. This is how a game or a UI thread uses kiln (on a GPU backend the download overlaps
// the frames too).
//
//   frame_loop demo/digits.onnx demo/samples [cpu|gpu-compute|gpu-pixel]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace {

// Stands for a frame's own work (drawing, physics): about a millisecond of arithmetic.
double render_frame(int frame) {
  double acc = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(1000);
  for (int i = 0; std::chrono::steady_clock::now() < until; ++i) acc += std::sin(frame + i * 1e-3);
  return acc;
}

int argmax(const float* row, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i) best = row[i] > row[best] ? i : best;
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: frame_loop MODEL.onnx SAMPLES_DIR [BACKEND]\n");
    return 2;
  }
  try {
    const std::string samples = argv[2];
    const kiln::Backend backend = kiln::parse_backend(argc == 4 ? argv[3] : "cpu");
    kiln::Model model = kiln::load_model(argv[1]);
    kiln::Worker worker(model, backend);
    const kiln::Tensor digits = kiln::load_tensor(samples + "/digits_8x8.npy");  // [8, 1, 8, 8]
    std::vector<int> labels;
    std::ifstream label_file(samples + "/labels.txt");
    for (int label; label_file >> label;) labels.push_back(label);

    const int64_t count = digits.shape()[0];
    const std::string input = model.inputs().at(0).name;
    int frame = 0, correct = 0;
    double checksum = 0;
    for (int64_t i = 0; i < count; ++i) {
      // One digit per inference: a [1, 1, 8, 8] slice of the samples.
      const float* pixels = digits.data<float>() + i * 64;
      const kiln::Tensor x =
          kiln::Tensor::from_data<float>({1, 1, 8, 8}, std::span<const float>(pixels, 64));
      worker.schedule({{input, x}});  // returns at once
      const kiln::Tensor& logits = worker.peek_output();
      logits.readback_request();  // starts the download, does not wait
      const int started = frame;
      while (!logits.is_readback_request_done()) checksum += render_frame(frame++);
      const kiln::Tensor host = logits.readback_and_clone();  // ready: no waiting here
      const int predicted = argmax(host.data<float>(), static_cast<int>(host.element_count()));
      correct += predicted == labels.at(static_cast<size_t>(i));
      std::printf("inference %lld: digit %d (label %d), %d frame(s) drawn while it ran\n",
                  static_cast<long long>(i), predicted, labels.at(static_cast<size_t>(i)),
                  frame - started);
      checksum += render_frame(frame++);  // at least one frame between inferences
    }
    std::printf("%d of %lld right over %d frames (backend %s, checksum %.1f)\n", correct,
                static_cast<long long>(count), frame,
                std::string(kiln::backend_name(backend)).c_str(), checksum);
    return correct == count ? 0 : 1;
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "frame_loop: %s\n", e.what());
    return 1;
  }
}
