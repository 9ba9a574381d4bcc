// kiln profile: where a model's time goes, op by op, on one backend.
#include <iostream>

#include "command.h"
#include "inputs.h"
#include "kiln/kiln.h"
#include "profile_table.h"

namespace kiln::cli {

namespace {

struct ProfileOptions {
  std::string model;
  WorkerFlags worker;
  LoadFlags load;
  InputFlags inputs;
  int runs = 10;
  int warmup = 3;
  std::string trace;
};

int profile(const ProfileOptions& o) {
  const Backend backend = o.worker.backend_kind();
  WorkerOptions options = o.worker.options();
  options.profile = true;
  Model model = load_model(o.model, o.load.options());
  Worker worker(model, backend, options);
  const InputSet inputs = load_inputs(model, o.inputs, /*random_fallback=*/true);
  const auto named = inputs.named();
  std::vector<Profile> profiles;
  for (int i = 0; i < o.warmup + o.runs; ++i) {
    worker.schedule(std::span<const NamedTensor>(named));
    for (const auto& out : model.outputs()) (void)worker.peek_output(out.name).readback_and_clone();
    if (i >= o.warmup) profiles.push_back(worker.profile());
  }
  std::cout << "model: " << o.model << " (" << model.node_count() << " nodes)\n";
  std::cout << "backend: " << backend_name(backend) << " (" << worker.device_description() << ")";
  if (!profiles.back().device_timing.empty())
    std::cout << ", GPU layers timed by " << profiles.back().device_timing;
  std::cout << "\nruns: " << o.runs << " profiled after " << o.warmup << " warm-up\n\n";
  print_op_table(std::cout, profiles);
  if (!o.trace.empty()) {
    write_trace(profiles.back(), o.trace);
    std::cout << "\nwrote " << o.trace << ": " << describe_trace(profiles.back()) << "\n";
  }
  return 0;
}

const Registration kCommand{
    "profile", "time every layer and print the ops by total time and share",
    [](CLI::App& cmd) {
      cmd.footer(
          "Runs MODEL with per-layer timing after a warm-up and prints the ops by total time\n"
          "with their share. On a GPU backend, GPU layers count their device time (Vulkan\n"
          "timestamp queries, OpenGL timer queries where the driver has them, else CPU-side\n"
          "intervals) and layers that fell back to the CPU their CPU time. Inputs given by\n"
          "neither --inputs-dir nor --input get random values of the declared dtype and shape.");
      auto o = std::make_shared<ProfileOptions>();
      add_model_argument(cmd, o->model);
      cmd.add_option("--runs", o->runs, "profiled runs, averaged (default 10)")
          ->check(CLI::Range(1, 1'000'000'000))
          ->type_name("N");
      cmd.add_option("--warmup", o->warmup, "unprofiled runs first (default 3)")
          ->check(CLI::Range(0, 1'000'000'000))
          ->type_name("N");
      cmd.add_option("--trace", o->trace,
                     "also write the last run as a Chrome trace (chrome://tracing, Perfetto)")
          ->type_name("FILE");
      add_input_flags(cmd, o->inputs, /*with_dims=*/true);
      add_worker_flags(cmd, o->worker);
      add_load_flags(cmd, o->load);
      return [o] { return profile(*o); };
    }};

}  // namespace

}  // namespace kiln::cli
