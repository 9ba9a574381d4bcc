#include "options.h"

#include <charconv>
#include <regex>

namespace kiln::cli {

void add_model_argument(CLI::App& cmd, std::string& model) {
  cmd.add_option("model", model, "the model: an .onnx file")->required()->type_name("MODEL");
}

WorkerOptions WorkerFlags::options() const {
  WorkerOptions o;
  o.num_threads = threads;
  o.strict = strict;
  o.device = device;
  o.verify_shapes = verify_shapes;
  return o;
}

void add_worker_flags(CLI::App& cmd, WorkerFlags& flags, WorkerFlagSet set) {
  cmd.add_option("--backend,-b", flags.backend, "cpu (default), gpu-compute or gpu-pixel")
      ->check(CLI::IsMember({"cpu", "gpu-compute", "gpu-pixel"}))
      ->type_name("B");
  cmd.add_option("--device", flags.device,
                 "the GPU device: an index or a name substring (see kiln devices); "
                 "KILN_GPU_COMPUTE_DEVICE / KILN_GPU_PIXEL_DEVICE override it")
      ->type_name("D");
  if (set.threads) {
    cmd.add_option("--threads,-t", flags.threads,
                   "CPU threads (default: every hardware thread, or KILN_NUM_THREADS)")
        ->check(integer_in(0, 4096))
        ->type_name("N");
  }
  cmd.add_flag("--strict", flags.strict,
               "fail instead of running on the CPU the nodes the GPU backend cannot run");
  if (set.verify_shapes) {
    cmd.add_flag("--verify-shapes", flags.verify_shapes,
                 "check every CPU layer's outputs against the dtypes and shapes that shape "
                 "inference predicted (a mismatch fails the run)");
  }
}

void add_load_flags(CLI::App& cmd, LoadFlags& flags) {
  cmd.add_flag("--no-optimize", flags.no_optimize,
               "skip the load-time passes (constant folding, no-op removal, fusions)");
}

void add_input_flags(CLI::App& cmd, InputFlags& flags, bool with_dims) {
  cmd.add_option("--inputs-dir", flags.inputs_dir,
                 "read input_0.pb, input_1.pb, ... (or .npy) for the model's inputs in order "
                 "(the ONNX test-data layout)")
      ->type_name("DIR");
  cmd.add_option("--input", flags.inputs,
                 "read input NAME from FILE (.pb TensorProto or .npy); repeatable, and "
                 "overrides --inputs-dir")
      ->allow_extra_args(false)
      ->type_name("NAME=FILE");
  if (with_dims) {
    cmd.add_option("--dim", flags.dims,
                   "size of the symbolic dimension NAME for random inputs (default 1); "
                   "repeatable")
        ->allow_extra_args(false)
        ->type_name("NAME=VALUE");
  }
}

CLI::Validator regex_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          std::regex check(text);
        } catch (const std::regex_error& e) {
          return "'" + text + "' is not a regular expression (" + e.what() + ")";
        }
        return "";
      },
      "REGEX");
}

CLI::Validator integer_in(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        int64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [p, ec] = std::from_chars(text.data(), end, v);
        if (ec == std::errc::result_out_of_range) return "'" + text + "' is out of range";
        if (ec != std::errc() || p != end) return "'" + text + "' is not an integer";
        if (v < min) return text + " is less than " + std::to_string(min);
        if (v > max) return text + " is more than " + std::to_string(max);
        return "";
      },
      "INT in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
}

CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        size_t used = 0;
        double v = 0;
        try {
          v = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size()) return "'" + text + "' is not a number";
        if (!(v >= 0)) return text + " is negative";
        return "";
      },
      "NUMBER >= 0");
}

}  // namespace kiln::cli
