// kiln — the command-line front end. Each subcommand lives in its own file and registers itself
// (command.h); this file parses the command line with CLI11 and turns every failure into one
// line on stderr: exit status 2 for a wrong command line, 1 for a run that failed.
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "command.h"
#include "kiln/kiln.h"

namespace kiln::cli {
namespace {

std::vector<CommandSpec>& registry() {
  static std::vector<CommandSpec> commands;
  return commands;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The candidate closest to `word`, when it is close enough to be a likely typo.
std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string guess = closest(word, candidates);
  return guess.empty() ? "" : " (did you mean '" + guess + "'?)";
}

std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* o : cmd.get_options()) {
    for (const auto& n : o->get_lnames()) names.push_back("--" + n);
    for (const auto& n : o->get_snames()) names.push_back("-" + n);
  }
  return names;
}

// The first argument `cmd` did not take: an unknown option is named with a suggestion.
void reject_leftovers(const CLI::App& cmd) {
  const std::vector<std::string> rest = cmd.remaining();
  for (const auto& arg : rest) {
    if (arg.size() > 1 && arg[0] == '-') {
      const std::string name = arg.substr(0, arg.find('='));
      throw UsageError("unknown option '" + name + "'" + did_you_mean(name, option_names(cmd)));
    }
  }
  if (!rest.empty()) throw UsageError("unexpected argument '" + rest.front() + "'");
}

int usage_error(const std::string& where, const std::string& message) {
  std::cerr << where << ": " << message << "; see '" << where << " --help'\n";
  return 2;
}

}  // namespace

Registration::Registration(std::string name, std::string description, CommandSetup setup) {
  registry().push_back({std::move(name), std::move(description), std::move(setup)});
}

std::vector<CommandSpec> registered_commands() {
  std::vector<CommandSpec> commands = registry();
  std::sort(commands.begin(), commands.end(),
            [](const CommandSpec& a, const CommandSpec& b) { return a.name < b.name; });
  return commands;
}

int main(int argc, char** argv) {
  CLI::App app("kiln " + std::string(version()) +
                   " — runs ONNX models on the CPU (job system), "
                   "Vulkan compute or OpenGL ES",
               "kiln");
  app.set_version_flag("--version", "kiln " + std::string(version()));
  app.require_subcommand(1);
  app.footer("Run 'kiln COMMAND --help' for a command's options.");

  struct Entry {
    CLI::App* cmd;
    std::function<int()> run;
  };
  std::vector<Entry> entries;
  std::vector<std::string> names;
  for (const CommandSpec& spec : registered_commands()) {
    CLI::App* cmd = app.add_subcommand(spec.name, spec.description);
    // Leftovers are checked below, to name an unknown option with a suggestion.
    cmd->allow_extras();
    entries.push_back({cmd, spec.setup(*cmd)});
    names.push_back(spec.name);
  }

  if (argc < 2) {
    std::cerr << app.help();
    return 2;
  }
  const std::string first = argv[1];
  if (first[0] != '-' && std::find(names.begin(), names.end(), first) == names.end()) {
    return usage_error("kiln", "unknown command '" + first + "'" + did_you_mean(first, names));
  }
  if (first[0] == '-' && first != "--help" && first != "-h" && first != "--version") {
    const std::string name = first.substr(0, first.find('='));
    return usage_error("kiln", "unknown option '" + name + "' (options go after the command: "
                               "kiln COMMAND [OPTIONS])");
  }

  const Entry* chosen = nullptr;
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    for (const Entry& entry : entries) {
      if (!entry.cmd->parsed()) continue;
      // An unknown option explains a missing argument better than the missing argument does.
      try {
        reject_leftovers(*entry.cmd);
      } catch (const UsageError& u) {
        return usage_error("kiln " + entry.cmd->get_name(), u.what());
      }
      return usage_error("kiln " + entry.cmd->get_name(), e.what());
    }
    return usage_error("kiln", e.what());
  }
  for (const Entry& entry : entries) {
    if (entry.cmd->parsed()) chosen = &entry;
  }
  const std::string where = "kiln " + chosen->cmd->get_name();
  try {
    reject_leftovers(*chosen->cmd);
    return chosen->run();
  } catch (const UsageError& e) {
    return usage_error(where, e.what());
  } catch (const Error& e) {
    std::cerr << where << ": " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << where << ": internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace kiln::cli

int main(int argc, char** argv) { return kiln::cli::main(argc, argv); }
