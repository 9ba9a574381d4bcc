// How a subcommand of the `kiln` program is defined: one file per command, each registering
// itself with one static object, so adding a command touches no other file.
//
//   namespace {
//   struct Options { std::string model; WorkerFlags worker; };
//   int run(const Options& o) { ...; return 0; }
//   const Registration kCommand{"name", "one line for `kiln --help`", [](CLI::App& cmd) {
//     auto o = std::make_shared<Options>();
//     add_model_argument(cmd, o->model);
//     add_worker_flags(cmd, o->worker);
//     return [o] { return run(*o); };
//   }};
//   }  // namespace
//
// The runner returns the exit status; a kiln::Error it throws is printed on one line and exits
// 1, a UsageError exits 2 (options.h has the shared option groups).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cli {

// Adds the command's options to `cmd` and returns the function that runs it once parsed.
using CommandSetup = std::function<std::function<int()>(CLI::App& cmd)>;

struct CommandSpec {
  std::string name;
  std::string description;
  CommandSetup setup;
};

struct Registration {
  Registration(std::string name, std::string description, CommandSetup setup);
};

// Every registered command, sorted by name.
std::vector<CommandSpec> registered_commands();

// A wrong command line (rather than a failed run): reported with exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace kiln::cli
