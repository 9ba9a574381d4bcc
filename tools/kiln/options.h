// Option groups that several `kiln` commands share, so each is spelled and checked once.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "kiln/kiln.h"

namespace kiln::cli {

// The one positional MODEL argument.
void add_model_argument(CLI::App& cmd, std::string& model);

// --backend, --device, --threads, --strict: which worker to build.
struct WorkerFlags {
  std::string backend = "cpu";
  std::string device;
  int threads = 0;
  bool strict = false;
  bool verify_shapes = false;
  Backend backend_kind() const { return parse_backend(backend); }
  WorkerOptions options() const;
};
struct WorkerFlagSet {
  bool threads = true;
  bool verify_shapes = false;
};
void add_worker_flags(CLI::App& cmd, WorkerFlags& flags, WorkerFlagSet set = {});

// --no-optimize: how to load the model.
struct LoadFlags {
  bool no_optimize = false;
  LoadOptions options() const { return LoadOptions{.optimize = !no_optimize}; }
};
void add_load_flags(CLI::App& cmd, LoadFlags& flags);

// --inputs-dir, --input NAME=FILE (repeatable) and, for random inputs, --dim NAME=VALUE.
struct InputFlags {
  std::string inputs_dir;
  std::vector<std::string> inputs;
  std::vector<std::string> dims;
};
void add_input_flags(CLI::App& cmd, InputFlags& flags, bool with_dims);

// A validator for options that take a regular expression (std::regex, ECMAScript).
CLI::Validator regex_validator();

}  // namespace kiln::cli
