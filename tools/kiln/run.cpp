// kiln run: one inference on inputs from files, outputs written as ONNX TensorProto files.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "inputs.h"
#include "kiln/kiln.h"

namespace fs = std::filesystem;

namespace kiln::cli {

namespace {

const char* kHelp = R"(usage: kiln run MODEL [options]

Runs MODEL once and prints each output's dtype, shape and first values.

options:
  --backend B          cpu (default), gpu-compute or gpu-pixel
  --inputs-dir DIR     read input_0.pb, input_1.pb, ... (or .npy) for the model's inputs in
                       order (the ONNX test-data layout)
  --input NAME=FILE    read input NAME from FILE (.pb TensorProto or .npy); repeatable, and
                       overrides --inputs-dir
  --outputs-dir DIR    write output_0.pb, output_1.pb, ... there (created if needed)
  --threads N          CPU threads (default: every hardware thread, or KILN_NUM_THREADS)
  --dump-values DIR    also write every intermediate value as DIR/NNNN-Op-node.K.npy (graph
                       position, op, node name, output) with DIR/index.tsv; compare two dumps
                       with 'kiln diff'
)";

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

int run_command(const Args& args) {
  if (has_flag(args, "--help")) {
    std::cout << kHelp;
    return 0;
  }
  std::vector<std::string> valued = {"--backend", "--outputs-dir", "--threads", "--dump-values"};
  valued.insert(valued.end(), kInputOptions.begin(), kInputOptions.end());
  const std::string path = model_path_argument(args, valued, "run");
  const Backend backend = parse_backend(option_value(args, "--backend", "cpu"));
  WorkerOptions options;
  options.num_threads = int_option(args, "--threads", 0, 0);
  const std::string outputs_dir = option_value(args, "--outputs-dir");
  const std::string dump_dir = option_value(args, "--dump-values");

  auto start = std::chrono::steady_clock::now();
  Model model = load_model(path);
  // A dump runs the model with every value as an output; the printed outputs stay the model's.
  Worker worker(dump_dir.empty() ? model : load_model(path, {.extra_outputs = {"*"}}), backend,
                options);
  const double load_ms = ms_since(start);
  const InputSet inputs = load_inputs(model, args, /*random_fallback=*/false);
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
  if (!dump_dir.empty()) {
    const auto dumped = dump_values(worker, dump_dir);
    std::cout << "wrote " << dumped.size() << " values to " << dump_dir << " (index.tsv)\n";
  }
  return 0;
}

}  // namespace kiln::cli
