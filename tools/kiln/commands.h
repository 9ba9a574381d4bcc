// The `kiln` program's subcommands. Each takes the arguments after its name and returns the
// process exit code; errors are printed to stderr.
#pragma once

#include <string>
#include <vector>

namespace kiln::cli {

using Args = std::vector<std::string>;

int run_command(const Args& args);
int test_onnx_command(const Args& args);
int inspect_command(const Args& args);
int bench_command(const Args& args);
int profile_command(const Args& args);
int convert_command(const Args& args);
int diff_command(const Args& args);

// Option parsing shared by the subcommands.
bool has_flag(const Args& args, const std::string& flag);
// The value after `option` ("--backend cpu"), or `fallback`.
std::string option_value(const Args& args, const std::string& option,
                         const std::string& fallback = "");
std::vector<std::string> option_values(const Args& args, const std::string& option);
// Arguments that are neither options nor option values. `valued` lists options taking a value.
std::vector<std::string> positional(const Args& args, const std::vector<std::string>& valued);

}  // namespace kiln::cli
