// kiln diff: the first node, in graph order, where two value dumps (kiln run --dump-values)
// part ways.
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "kiln/kiln.h"

namespace kiln::cli {

namespace {

const char* kHelp = R"(usage: kiln diff DIR_A DIR_B [options]

Compares two value dumps written by 'kiln run --dump-values' (say, a GPU backend's and the
CPU's) value by value in graph order, and prints the first node whose output in DIR_A is not
close to the same value in DIR_B: |a - b| <= atol + rtol * |b| for every element. Exits 0 when
every shared value is close, 1 when one differs.

options:
  --rtol R    relative tolerance (default 1e-3)
  --atol A    absolute tolerance (default 1e-4)
)";

double number_option(const Args& args, const std::string& option, double fallback) {
  const std::string text = option_value(args, option);
  if (text.empty()) return fallback;
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(v >= 0))
    throw Error(option + " " + text + ": expected a number >= 0");
  return v;
}

}  // namespace

int diff_command(const Args& args) {
  if (has_flag(args, "--help")) {
    std::cout << kHelp;
    return 0;
  }
  const std::vector<std::string> dirs = positional(args, {"--rtol", "--atol"});
  if (dirs.size() != 2) throw Error("expected DIR_A and DIR_B (see kiln diff --help)");
  const double rtol = number_option(args, "--rtol", 1e-3);
  const double atol = number_option(args, "--atol", 1e-4);
  const DumpDifference d = diff_value_dumps(dirs[0], dirs[1], rtol, atol);
  if (!d.found) {
    std::cout << "no difference: " << d.compared << " values close (atol " << atol << ", rtol "
              << rtol << ")";
    if (d.unmatched) std::cout << "; " << d.unmatched << " values of " << dirs[0] << " not in " << dirs[1];
    std::cout << "\n";
    return 0;
  }
  const DumpedValue& v = d.value;
  std::cout << "first difference at node " << v.order << " '" << v.node_name << "' (" << v.op_type
            << "), output " << v.output_index << " '" << v.value_name << "' " << v.type << ": "
            << d.reason << "\n";
  std::cout << "  " << dirs[0] << "/" << v.file << "\n";
  std::cout << "  " << d.compared - 1 << " values before it are close\n";
  return 1;
}

}  // namespace kiln::cli
