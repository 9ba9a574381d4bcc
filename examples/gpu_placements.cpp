// Runs a model on a GPU worker and prints where each node runs: on the GPU, or on the CPU and
// why (the backend lacks the op, the value decides shapes, ...). Takes the first GPU backend
// that has a device, or the one named; lists the devices it can see first.
//
//   gpu_placements demo/digits.onnx [gpu-compute|gpu-pixel] [DEVICE]
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <kiln/kiln.h>

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: gpu_placements MODEL.onnx [gpu-compute|gpu-pixel] [DEVICE]\n");
    return 2;
  }
  try {
    // Fallbacks are reported through the log at info level; show them as they happen.
    kiln::set_log_level(kiln::LogLevel::Info);
    kiln::set_log_handler([](kiln::LogLevel level, std::string_view message) {
      std::printf("  log [%s] %.*s\n", std::string(kiln::log_level_name(level)).c_str(),
                  static_cast<int>(message.size()), message.data());
    });

    for (const kiln::DeviceInfo& d : kiln::list_devices()) {
      std::printf("device %s %d: %s%s%s\n", std::string(kiln::backend_name(d.backend)).c_str(),
                  d.index, d.name.c_str(), d.is_default ? " [default]" : "",
                  d.usable ? "" : (" (not usable: " + d.problem + ")").c_str());
    }

    kiln::Model model = kiln::load_model(argv[1]);
    std::vector<kiln::Backend> candidates = {kiln::Backend::GpuCompute, kiln::Backend::GpuPixel};
    if (argc >= 3) candidates = {kiln::parse_backend(argv[2])};
    kiln::WorkerOptions options;
    if (argc == 4) options.device = argv[3];
    options.profile = true;  // time every layer, on the GPU with its timer queries

    for (kiln::Backend backend : candidates) {
      std::unique_ptr<kiln::Worker> worker;
      try {
        worker = std::make_unique<kiln::Worker>(model, backend, options);
      } catch (const kiln::Error& e) {
        std::printf("%s: no worker (%s)\n", std::string(kiln::backend_name(backend)).c_str(),
                    e.what());
        continue;
      }
      std::printf("%s on %s\n", std::string(kiln::backend_name(backend)).c_str(),
                  worker->device_description().c_str());
      int native = 0, total = 0;
      for (const kiln::NodePlacement& p : worker->placements()) {
        ++total;
        native += p.fallback_reason.empty();
        std::printf("  %-14s %-24s %s%s\n", p.op_type.c_str(), p.node_name.c_str(),
                    std::string(kiln::backend_name(p.backend)).c_str(),
                    p.fallback_reason.empty() ? "" : (" (" + p.fallback_reason + ")").c_str());
      }
      std::printf("%d of %d nodes on the GPU\n", native, total);

      // One run with zeros, to show that the worker runs and where the output comes from.
      std::vector<kiln::NamedTensor> inputs;
      std::vector<kiln::Tensor> tensors;
      for (const kiln::ValueInfo& in : model.inputs()) {
        kiln::Shape shape;
        for (const kiln::Dim& d : in.shape) shape.push_back(d.is_fixed() ? d.value : 1);
        tensors.push_back(kiln::Tensor::zeros(in.dtype, shape));
      }
      for (size_t i = 0; i < tensors.size(); ++i)
        inputs.push_back({model.inputs()[i].name, tensors[i]});
      worker->schedule(std::span<const kiln::NamedTensor>(inputs));
      std::printf("output: %s\n", worker->peek_output().readback_and_clone().to_string(4).c_str());
      const kiln::Profile profile = worker->profile();
      std::printf("profile (%s):\n", profile.device_timing.c_str());
      for (const kiln::OpTime& op : profile.by_op()) {
        std::printf("  %-14s %3d layers %10.1f us %5.1f%%\n", op.op_type.c_str(), op.count,
                    op.total_us, 100.0 * op.share);
      }
      return 0;
    }
    std::printf("no GPU backend could start a worker on this machine\n");
    return 0;
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "gpu_placements: %s\n", e.what());
    return 1;
  }
}
