// kiln convert: an ONNX model saved as a .kiln file (the optimized graph, weights laid out for
// mapping), which later loads without parsing or optimizing.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "kiln/kiln.h"

namespace kiln::cli {

namespace {

const char* kHelp = R"(usage: kiln convert MODEL OUTPUT

Loads MODEL (.onnx, or a .kiln file), runs the load-time passes and writes the result to OUTPUT
as a .kiln file. Any kiln program loads it with the same load_model call, told apart by its
first bytes.
)";

}  // namespace

int convert_command(const Args& args) {
  if (has_flag(args, "--help")) {
    std::cout << kHelp;
    return 0;
  }
  const std::vector<std::string> paths = positional(args, {});
  if (paths.size() != 2) throw Error("expected MODEL and OUTPUT (see kiln convert --help)");
  for (const auto& a : args) {
    if (a.rfind("-", 0) == 0) throw Error("unknown option " + a + " (see kiln convert --help)");
  }
  const auto start = std::chrono::steady_clock::now();
  const Model model = load_model(paths[0]);
  save_model(model, paths[1]);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  char line[256];
  std::snprintf(line, sizeof line, "wrote %s: %zu nodes, %.1f MB, in %.0f ms\n", paths[1].c_str(),
                model.node_count(),
                static_cast<double>(std::filesystem::file_size(paths[1])) / 1e6, ms);
  std::cout << line;
  return 0;
}

}  // namespace kiln::cli
