// kiln profile: where a model's time goes, op by op, on one backend.
#include <iostream>

#include "commands.h"
#include "inputs.h"
#include "kiln/kiln.h"
#include "profile_table.h"

namespace kiln::cli {

namespace {

const char* kHelp = R"(usage: kiln profile MODEL [options]

Runs MODEL with per-layer timing after a warm-up and prints the ops by total time with their
share. On a GPU backend, GPU layers count their device time (Vulkan timestamp queries, OpenGL
timer queries where the driver has them, else CPU-side intervals) and layers that fell back to
the CPU their CPU time.

options:
  --backend B          cpu (default), gpu-compute or gpu-pixel
  --runs N             profiled runs, averaged (default 10)
  --warmup N           unprofiled runs first (default 3)
  --threads N          CPU threads (default: every hardware thread, or KILN_NUM_THREADS)
  --trace FILE         also write the last run as a Chrome trace (chrome://tracing, Perfetto)
  --inputs-dir DIR     inputs from input_0.pb, input_1.pb, ... (or .npy)
  --input NAME=FILE    input NAME from FILE (.pb or .npy); repeatable
  --dim NAME=VALUE     size of the symbolic dimension NAME for random inputs (default 1)
Inputs given by neither option get random values of the declared dtype and shape.
)";

}  // namespace

int profile_command(const Args& args) {
  if (has_flag(args, "--help")) {
    std::cout << kHelp;
    return 0;
  }
  std::vector<std::string> valued = {"--backend", "--runs", "--warmup", "--threads", "--trace"};
  valued.insert(valued.end(), kInputOptions.begin(), kInputOptions.end());
  const std::string path = model_path_argument(args, valued, "profile");
  const Backend backend = parse_backend(option_value(args, "--backend", "cpu"));
  const int runs = int_option(args, "--runs", 10, 1);
  const int warmup = int_option(args, "--warmup", 3, 0);
  const std::string trace = option_value(args, "--trace");
  WorkerOptions options;
  options.num_threads = int_option(args, "--threads", 0, 0);
  options.profile = true;

  Model model = load_model(path);
  Worker worker(model, backend, options);
  const InputSet inputs = load_inputs(model, args, /*random_fallback=*/true);
  const auto named = inputs.named();
  std::vector<Profile> profiles;
  for (int i = 0; i < warmup + runs; ++i) {
    worker.schedule(std::span<const NamedTensor>(named));
    for (const auto& out : model.outputs()) (void)worker.peek_output(out.name).readback_and_clone();
    if (i >= warmup) profiles.push_back(worker.profile());
  }
  std::cout << "model: " << path << " (" << model.node_count() << " nodes)\n";
  std::cout << "backend: " << backend_name(backend) << " (" << worker.device_description() << ")";
  if (!profiles.back().device_timing.empty())
    std::cout << ", GPU layers timed by " << profiles.back().device_timing;
  std::cout << "\nruns: " << runs << " profiled after " << warmup << " warm-up\n\n";
  print_op_table(std::cout, profiles);
  if (!trace.empty()) {
    write_trace(profiles.back(), trace);
    std::cout << "\nwrote " << trace << ": " << describe_trace(profiles.back()) << "\n";
  }
  return 0;
}

}  // namespace kiln::cli
