// kiln — command-line front end: run, test-onnx, inspect, bench.
#include <algorithm>
#include <cstring>
#include <iostream>

#include "commands.h"
#include "kiln/error.h"

namespace {

const char* kUsage = R"(usage: kiln <command> [options]

commands:
  run        run a model on inputs from .pb or .npy files, write outputs as .pb
  test-onnx  run ONNX backend test folders and compare with their expected outputs
  inspect    show the optimized graph, shapes, CPU-residency marks and per-node backend
  bench      measure load time and latency (min / median / mean over many runs)
  profile    time every layer and print the ops by total time and share
  convert    save a model as a .kiln file (optimized, weights laid out for mapping)
  diff       find the first node where two value dumps (run --dump-values) differ

Run 'kiln <command> --help' for a command's options.
)";

}  // namespace

namespace kiln::cli {

bool has_flag(const Args& args, const std::string& flag) {
  for (const auto& a : args) {
    if (a == flag) return true;
  }
  return false;
}

std::string option_value(const Args& args, const std::string& option, const std::string& fallback) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == option) return args[i + 1];
  }
  for (const auto& a : args) {
    if (a.rfind(option + "=", 0) == 0) return a.substr(option.size() + 1);
  }
  return fallback;
}

std::vector<std::string> option_values(const Args& args, const std::string& option) {
  std::vector<std::string> values;
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == option) values.push_back(args[i + 1]);
  }
  return values;
}

std::vector<std::string> positional(const Args& args, const std::vector<std::string>& valued) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a.rfind("--", 0) == 0) {
      bool takes_value = a.find('=') == std::string::npos;
      takes_value = takes_value && std::find(valued.begin(), valued.end(), a) != valued.end();
      if (takes_value) ++i;
      continue;
    }
    out.push_back(a);
  }
  return out;
}

}  // namespace kiln::cli

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  const kiln::cli::Args args(argv + 2, argv + argc);
  try {
    if (command == "run") return kiln::cli::run_command(args);
    if (command == "test-onnx") return kiln::cli::test_onnx_command(args);
    if (command == "inspect") return kiln::cli::inspect_command(args);
    if (command == "bench") return kiln::cli::bench_command(args);
    if (command == "profile") return kiln::cli::profile_command(args);
    if (command == "convert") return kiln::cli::convert_command(args);
    if (command == "diff") return kiln::cli::diff_command(args);
    std::cerr << "kiln: unknown command '" << command << "'\n" << kUsage;
    return 2;
  } catch (const kiln::Error& e) {
    std::cerr << "kiln " << command << ": " << e.what() << "\n";
    return 1;
  }
}
