// kiln diff: the first node, in graph order, where two value dumps (kiln run --dump-values)
// part ways.
#include <iostream>

#include "command.h"
#include "kiln/kiln.h"

namespace kiln::cli {

namespace {

struct DiffOptions {
  std::string a, b;
  double rtol = 1e-3;
  double atol = 1e-4;
};

int diff(const DiffOptions& o) {
  const DumpDifference d = diff_value_dumps(o.a, o.b, o.rtol, o.atol);
  if (!d.found) {
    std::cout << "no difference: " << d.compared << " values close (atol " << o.atol << ", rtol "
              << o.rtol << ")";
    if (d.unmatched) std::cout << "; " << d.unmatched << " values of " << o.a << " not in " << o.b;
    std::cout << "\n";
    return 0;
  }
  const DumpedValue& v = d.value;
  std::cout << "first difference at node " << v.order << " '" << v.node_name << "' (" << v.op_type
            << "), output " << v.output_index << " '" << v.value_name << "' " << v.type << ": "
            << d.reason << "\n";
  std::cout << "  " << o.a << "/" << v.file << "\n";
  std::cout << "  " << d.compared - 1 << " values before it are close\n";
  return 1;
}

const Registration kCommand{
    "diff", "find the first node where two value dumps (run --dump-values) differ",
    [](CLI::App& cmd) {
      cmd.footer(
          "Compares two value dumps written by 'kiln run --dump-values' (say, a GPU backend's\n"
          "and the CPU's) value by value in graph order, and prints the first node whose output\n"
          "in DIR_A is not close to the same value in DIR_B: |a - b| <= atol + rtol * |b| for\n"
          "every element. Exits 0 when every shared value is close, 1 when one differs.");
      auto o = std::make_shared<DiffOptions>();
      cmd.add_option("dir_a", o->a, "a value dump")->required()->type_name("DIR_A");
      cmd.add_option("dir_b", o->b, "the value dump to compare with")->required()->type_name("DIR_B");
      cmd.add_option("--rtol", o->rtol, "relative tolerance (default 1e-3)")
          ->check(CLI::NonNegativeNumber)
          ->type_name("R");
      cmd.add_option("--atol", o->atol, "absolute tolerance (default 1e-4)")
          ->check(CLI::NonNegativeNumber)
          ->type_name("A");
      return [o] { return diff(*o); };
    }};

}  // namespace

}  // namespace kiln::cli
