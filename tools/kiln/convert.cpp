// kiln convert: an ONNX model saved as a .kiln file (the optimized graph, weights laid out for
// mapping), which later loads without parsing or optimizing.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "command.h"
#include "kiln/kiln.h"
#include "options.h"

namespace kiln::cli {

namespace {

struct ConvertOptions {
  std::string model;
  std::string output;
  LoadFlags load;
};

int convert(const ConvertOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const Model model = load_model(o.model, o.load.options());
  save_model(model, o.output);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  char line[256];
  std::snprintf(line, sizeof line, "wrote %s: %zu nodes, %.1f MB, in %.0f ms\n", o.output.c_str(),
                model.node_count(),
                static_cast<double>(std::filesystem::file_size(o.output)) / 1e6, ms);
  std::cout << line;
  return 0;
}

const Registration kCommand{
    "convert", "save a model as a .kiln file (optimized, weights laid out for mapping)",
    [](CLI::App& cmd) {
      cmd.footer(
          "Loads MODEL (.onnx, or a .kiln file), runs the load-time passes and writes the\n"
          "result to OUTPUT as a .kiln file. Any kiln program loads it with the same\n"
          "load_model call, told apart by its first bytes, without parsing or optimizing.");
      auto o = std::make_shared<ConvertOptions>();
      add_model_argument(cmd, o->model);
      cmd.add_option("output", o->output, "the .kiln file to write")->required()->type_name("OUTPUT");
      add_load_flags(cmd, o->load);
      return [o] { return convert(*o); };
    }};

}  // namespace

}  // namespace kiln::cli
