// kiln run: one inference on inputs from files, outputs written as ONNX TensorProto files.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "command.h"
#include "inputs.h"
#include "kiln/kiln.h"

namespace fs = std::filesystem;

namespace kiln::cli {

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

struct RunOptions {
  std::string model;
  WorkerFlags worker;
  LoadFlags load;
  InputFlags inputs;
  std::string outputs_dir;
  std::string dump_dir;
};

int run(const RunOptions& o) {
  const std::string& path = o.model;
  const Backend backend = o.worker.backend_kind();
  const WorkerOptions options = o.worker.options();
  const std::string& outputs_dir = o.outputs_dir;

  auto start = std::chrono::steady_clock::now();
  Model model = load_model(path, o.load.options());
  // A dump runs the model with every value as an output; the printed outputs stay the model's.
  LoadOptions every_value = o.load.options();
  every_value.extra_outputs = {"*"};
  Worker worker(o.dump_dir.empty() ? model : load_model(path, every_value), backend, options);
  const double load_ms = ms_since(start);
  const InputSet inputs = load_inputs(model, o.inputs, /*random_fallback=*/false);
  const auto named = inputs.named();

  // The timed part is what an application pays per inference: scheduling plus waiting for
  // every output on the host.
  start = std::chrono::steady_clock::now();
  worker.schedule(std::span<const NamedTensor>(named));
  std::vector<Tensor> results;
  for (const auto& out : model.outputs())
    results.push_back(worker.peek_output(out.name).readback_and_clone());
  const double run_ms = ms_since(start);

  if (!outputs_dir.empty()) {
    std::error_code ec;
    fs::create_directories(outputs_dir, ec);
    check(fs::is_directory(outputs_dir), "--outputs-dir " + outputs_dir +
                                             ": cannot create the folder" +
                                             (ec ? " (" + ec.message() + ")" : ""));
  }

  const auto& outs = model.outputs();
  for (size_t i = 0; i < outs.size(); ++i) {
    std::cout << "output " << i << " '" << outs[i].name << "': " << results[i].to_string(8) << "\n";
    if (!outputs_dir.empty()) {
      const fs::path file = fs::path(outputs_dir) / ("output_" + std::to_string(i) + ".pb");
      save_tensor(results[i], file.string(), outs[i].name);
    }
  }
  char line[160];
  std::snprintf(line, sizeof line, "load %.2f ms, run %.3f ms (backend %s)\n", load_ms, run_ms,
                std::string(backend_name(backend)).c_str());
  std::cout << line;
  if (!outputs_dir.empty())
    std::cout << "wrote " << outs.size() << " output file(s) to " << outputs_dir << "\n";
  if (!o.dump_dir.empty()) {
    const auto dumped = dump_values(worker, o.dump_dir);
    std::cout << "wrote " << dumped.size() << " values to " << o.dump_dir << " (index.tsv)\n";
  }
  return 0;
}

const Registration kCommand{
    "run", "run a model once on inputs from .pb or .npy files, write outputs as .pb",
    [](CLI::App& cmd) {
      cmd.footer(
          "Runs MODEL once and prints each output's dtype, shape and first values, then the "
          "load and run times.");
      auto o = std::make_shared<RunOptions>();
      add_model_argument(cmd, o->model);
      add_input_flags(cmd, o->inputs, /*with_dims=*/false);
      cmd.add_option("--outputs-dir", o->outputs_dir,
                     "write output_0.pb, output_1.pb, ... there (created if needed)")
          ->type_name("DIR");
      cmd.add_option("--dump-values", o->dump_dir,
                     "also write every intermediate value as DIR/NNNN-Op-node.K.npy (graph "
                     "position, op, node name, output) with DIR/index.tsv; compare two dumps "
                     "with 'kiln diff'")
          ->type_name("DIR");
      add_worker_flags(cmd, o->worker, {.verify_shapes = true});
      add_load_flags(cmd, o->load);
      return [o] { return run(*o); };
    }};

}  // namespace

}  // namespace kiln::cli
