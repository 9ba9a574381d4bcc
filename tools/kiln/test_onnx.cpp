// kiln test-onnx: runs ONNX backend test folders (model.onnx + test_data_set_*/input_N.pb,
// output_N.pb) and compares like the ONNX backend runner: same dtype and shape, float values
// within |actual - expected| <= atol + rtol * |expected|, NaN where NaN is expected, infinities
// and integers exactly. On a GPU backend it also counts how many nodes ran natively.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "command.h"
#include "core/dtype_dispatch.h"
#include "kiln/kiln.h"
#include "native_coverage.h"
#include "options.h"
#include "shape_coverage.h"

namespace fs = std::filesystem;

namespace kiln::cli {

namespace {

struct Outcome {
  enum Kind { Pass, Fail, Skip } kind = Fail;
  std::string message;
  std::optional<ShapeCoverage> coverage;  // with --verify-shapes, once the model loaded
  std::optional<NativeCoverage> native;   // on a GPU backend, once a worker was built
};

ValueKind value_kind(const ValueInfo& info) {
  switch (info.kind) {
    case ValueInfo::Kind::Sequence:
      return ValueKind::Sequence;
    case ValueInfo::Kind::Optional:
      return ValueKind::Optional;
    default:
      return ValueKind::Tensor;
  }
}

std::string describe_mismatch(const Tensor& actual, const Tensor& expected, double rtol,
                              double atol) {
  if (actual.kind() != expected.kind() || expected.kind() != ValueKind::Tensor) {
    if (actual.kind() != expected.kind() || actual.elements().size() != expected.elements().size())
      return actual.to_string(4) + ", expected " + expected.to_string(4);
    for (size_t i = 0; i < expected.elements().size(); ++i) {
      const Tensor& a = actual.elements()[i];
      const Tensor& e = expected.elements()[i];
      if (!all_close(a, e, rtol, atol))
        return "element " + std::to_string(i) + ": " + describe_mismatch(a, e, rtol, atol);
    }
    return "values differ";
  }
  if (actual.dtype() != expected.dtype()) {
    return "dtype " + std::string(dtype_name(actual.dtype())) + ", expected " +
           std::string(dtype_name(expected.dtype()));
  }
  if (actual.shape() != expected.shape()) {
    return "shape " + actual.shape().to_string() + ", expected " + expected.shape().to_string();
  }
  std::ostringstream out;
  int64_t bad = 0;
  visit_dtype(expected.dtype(), [&]<class T>() {
    const T* a = actual.data<T>();
    const T* e = expected.data<T>();
    for (int64_t i = 0; i < expected.element_count(); ++i) {
      bool ok;
      if constexpr (std::is_same_v<T, std::string> || std::is_integral_v<T> || is_complex_v<T>) {
        ok = a[i] == e[i];
      } else if constexpr (is_small_int_v<T>) {
        ok = to_double(a[i]) == to_double(e[i]);
      } else {
        const double av = to_double(a[i]), ev = to_double(e[i]);
        ok = std::isnan(ev)
                 ? std::isnan(av)
                 : (std::isinf(ev) ? av == ev : std::abs(av - ev) <= atol + rtol * std::abs(ev));
      }
      if (!ok && bad++ == 0)
        out << "element " << i << " is " << to_printable(a[i]) << ", expected "
            << to_printable(e[i]);
    }
  });
  out << " (" << bad << " of " << expected.element_count() << " elements differ)";
  return out.str();
}

std::vector<fs::path> sorted_files(const fs::path& dir, const std::string& prefix) {
  std::vector<std::pair<int, fs::path>> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && entry.path().extension() == ".pb") {
      files.emplace_back(std::atoi(name.c_str() + prefix.size()), entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<fs::path> out;
  for (auto& f : files) out.push_back(f.second);
  return out;
}

struct Settings {
  Backend backend = Backend::Cpu;
  WorkerOptions worker;
  LoadOptions load;
  double rtol = 1e-3, atol = 1e-7;
  int timeout_s = 120;
};

Outcome run_data_sets(const Model& model, Worker& worker, const fs::path& dir,
                      const Settings& settings) {
  const double rtol = settings.rtol, atol = settings.atol;
  std::vector<fs::path> data_sets;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
      data_sets.push_back(entry.path());
  }
  std::sort(data_sets.begin(), data_sets.end());
  if (data_sets.empty()) return {Outcome::Skip, "no test_data_set folder"};
  for (const auto& set : data_sets) {
    const auto inputs = sorted_files(set, "input_");
    const auto outputs = sorted_files(set, "output_");
    const auto& declared = model.inputs();
    if (inputs.size() > declared.size()) {
      return {Outcome::Fail, set.filename().string() + " has " + std::to_string(inputs.size()) +
                                 " inputs, the model takes " + std::to_string(declared.size())};
    }
    std::vector<Tensor> input_tensors;
    std::vector<NamedTensor> named;
    for (size_t i = 0; i < inputs.size(); ++i)
      input_tensors.push_back(load_tensor(inputs[i].string(), value_kind(declared[i])));
    for (size_t i = 0; i < inputs.size(); ++i)
      named.push_back({declared[i].name, input_tensors[i]});
    worker.schedule(std::span<const NamedTensor>(named));
    const auto& outs = model.outputs();
    if (outputs.size() != outs.size()) {
      return {Outcome::Fail, "the test has " + std::to_string(outputs.size()) +
                                 " outputs, the model " + std::to_string(outs.size())};
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      Tensor expected = load_tensor(outputs[i].string(), value_kind(outs[i]));
      Tensor actual = worker.peek_output(outs[i].name).readback_and_clone();
      if (!all_close(actual, expected, rtol, atol)) {
        return {Outcome::Fail, "output '" + outs[i].name +
                                   "': " + describe_mismatch(actual, expected, rtol, atol)};
      }
    }
  }
  return {Outcome::Pass, ""};
}

Outcome run_test(const fs::path& dir, const Settings& settings) {
  Model model = load_model((dir / "model.onnx").string(), settings.load);
  std::optional<ShapeCoverage> coverage;
  if (settings.worker.verify_shapes) coverage = shape_coverage(*model.ir());
  Worker worker(model, settings.backend, settings.worker);
  Outcome o;
  try {
    o = run_data_sets(model, worker, dir, settings);
  } catch (const std::exception& e) {
    o = {Outcome::Fail, e.what()};  // a run's error: the placements still count
  }
  o.coverage = coverage;
  if (settings.backend != Backend::Cpu) o.native = native_coverage(worker.placements());
  return o;
}

// The child's result on the pipe, one line each: the kind, the shape coverage ("outputs
// predicted" or empty), the native coverage (or empty), then the message (which may span lines).
std::string encode(const Outcome& o) {
  std::string s = std::to_string(static_cast<int>(o.kind)) + "\n";
  if (o.coverage)
    s += std::to_string(o.coverage->outputs) + " " + std::to_string(o.coverage->predicted);
  s += "\n";
  if (o.native) s += o.native->encode();
  return s + "\n" + o.message;
}

Outcome decode(const std::string& msg) {
  std::string lines[3];
  size_t start = 0;
  for (std::string& line : lines) {
    const size_t end = std::min(msg.find('\n', start), msg.size());
    line = msg.substr(start, end - start);
    start = std::min(end + 1, msg.size());
  }
  const std::string &kind = lines[0], &counts = lines[1], &native = lines[2];
  Outcome o{static_cast<Outcome::Kind>(kind.empty() ? Outcome::Fail : kind[0] - '0'), ""};
  if (const size_t space = counts.find(' '); space != std::string::npos) {
    o.coverage =
        ShapeCoverage{std::stoul(counts.substr(0, space)), std::stoul(counts.substr(space + 1))};
  }
  if (!native.empty()) o.native = NativeCoverage::decode(native);
  o.message = msg.substr(start);
  return o;
}

// Runs one test in a child process, so that a crash or a hang fails that test only.
Outcome run_isolated(const fs::path& dir, const Settings& settings) {
  const int timeout_s = settings.timeout_s;
  int fds[2];
  if (pipe(fds) != 0) return run_test(dir, settings);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(static_cast<unsigned>(timeout_s));
    Outcome o;
    try {
      o = run_test(dir, settings);
    } catch (const std::exception& e) {
      o = {Outcome::Fail, e.what()};
    }
    const std::string msg = encode(o);
    (void)!write(fds[1], msg.data(), msg.size());
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string msg;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) msg.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (msg.empty()) {
    if (WIFSIGNALED(status)) {
      const int sig = WTERMSIG(status);
      return {Outcome::Fail, sig == SIGALRM ? "timed out after " + std::to_string(timeout_s) + " s"
                                            : "crashed with signal " + std::to_string(sig)};
    }
    return {Outcome::Fail, "the test process exited without a result"};
  }
  return decode(msg);
}

// A list of test names, one per line ("name  # reason"); `what` names the list in errors. With
// `reasons_required`, a name without a reason is an error.
std::map<std::string, std::string> read_test_list(const std::string& path, const std::string& what,
                                                  bool reasons_required) {
  std::map<std::string, std::string> listed;
  if (path.empty()) return listed;
  std::ifstream file(path);
  check(file.good(), path + ": cannot open the " + what + " file");
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    const size_t hash = line.find('#');
    std::string name = line.substr(0, hash);
    name.erase(std::remove_if(name.begin(), name.end(), ::isspace), name.end());
    if (name.empty()) continue;
    std::string reason = hash == std::string::npos ? "" : line.substr(hash + 1);
    const bool has_reason = reason.find_first_not_of(" \t") != std::string::npos;
    check(has_reason || !reasons_required, path + ":" + std::to_string(number) + ": " + name +
                                               " has no reason (\"name  # reason\")");
    listed[name] = std::move(reason);
  }
  return listed;
}

// A known failure whose reason starts with "random draw:" expects one draw of a random generator
// no engine reproduces; kiln's own draw can match it by chance, so its passing is no news.
bool is_random_draw(const std::string& reason) {
  const size_t start = reason.find_first_not_of(" \t");
  return start != std::string::npos && reason.compare(start, 12, "random draw:") == 0;
}

struct TestOnnxOptions {
  std::vector<std::string> dirs;
  WorkerFlags worker;
  LoadFlags load;
  std::string filter = ".*";
  double rtol = 1e-3, atol = 1e-7;
  std::string known_failures;
  std::string cpu_only;
  int timeout_s = 120;
  bool verbose = false;
};

int test_onnx(const TestOnnxOptions& o) {
  Settings settings;
  settings.backend = o.worker.backend_kind();
  settings.worker = o.worker.options();
  // --strict is the suite's rule here, not the worker's: the worker falls back as usual, so that
  // every test still runs and its placements are counted, and a test with CPU work then fails.
  settings.worker.strict = false;
  const bool gpu = settings.backend != Backend::Cpu;
  const bool strict = o.worker.strict && gpu;
  settings.load = o.load.options();
  settings.rtol = o.rtol;
  settings.atol = o.atol;
  settings.timeout_s = o.timeout_s;
  const std::regex filter(o.filter);
  const bool verbose = o.verbose;
  const std::string& known_path = o.known_failures;
  const auto known = read_test_list(known_path, "known-failures", false);
  const auto cpu_only = read_test_list(o.cpu_only, "CPU-only", true);

  std::vector<fs::path> tests;
  for (const auto& arg : o.dirs) {
    const fs::path dir(arg);
    check(fs::is_directory(dir), arg + ": not a folder");
    if (fs::exists(dir / "model.onnx")) {
      tests.push_back(dir);
      continue;
    }
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (fs::exists(entry.path() / "model.onnx")) tests.push_back(entry.path());
    }
  }
  check(!tests.empty(), "no test folders given (see kiln test-onnx --help)");
  std::sort(tests.begin(), tests.end());

  int passed = 0, failed = 0, skipped = 0, unexpected_failures = 0, unexpected_passes = 0;
  int native_but_listed = 0;
  ShapeCoverage coverage;
  int measured = 0, complete = 0;
  NativeTally tally;
  for (const auto& dir : tests) {
    const std::string name = dir.filename().string();
    if (!std::regex_search(name, filter)) continue;
    Outcome o = run_isolated(dir, settings);
    const auto known_entry = known.find(name);
    const bool is_known = known_entry != known.end();
    if (o.coverage) {
      ++measured;
      complete += o.coverage->complete() ? 1 : 0;
      coverage.outputs += o.coverage->outputs;
      coverage.predicted += o.coverage->predicted;
    }
    if (gpu) tally.add(o.native);
    const bool listed_cpu_only = cpu_only.count(name) > 0;
    if (o.native && !o.native->fully_native()) {
      if (verbose) std::cout << "CPU " << name << ": " << o.native->cpu_work() << "\n";
      if (strict && !listed_cpu_only && o.kind == Outcome::Pass) {
        o = {Outcome::Fail, "--strict: " + o.native->cpu_work(), o.coverage, o.native};
      }
    } else if (o.native && listed_cpu_only) {
      ++native_but_listed;
      std::cout << "NATIVE " << name
                << "  (listed as running on the CPU, now every node runs natively: remove it "
                   "from the CPU-only list)\n";
    }
    switch (o.kind) {
      case Outcome::Pass:
        ++passed;
        if (is_known && is_random_draw(known_entry->second)) {
          std::cout << "PASS " << name << "  (listed as a random draw: matched it by chance)\n";
        } else if (is_known) {
          ++unexpected_passes;
          std::cout << "PASS " << name
                    << "  (listed as a known failure: remove it from the list)\n";
        } else if (verbose) {
          std::cout << "PASS " << name << "\n";
        }
        break;
      case Outcome::Fail:
        ++failed;
        if (!is_known) ++unexpected_failures;
        std::cout << "FAIL " << name << (is_known ? " (known)" : "") << ": " << o.message << "\n";
        break;
      case Outcome::Skip:
        ++skipped;
        std::cout << "SKIP " << name << ": " << o.message << "\n";
        break;
    }
    std::cout.flush();
  }
  if (!known_path.empty()) {
    std::cout << "unexpected failures: " << unexpected_failures
              << ", known failures that passed: " << unexpected_passes << "\n";
  }
  if (!o.cpu_only.empty()) {
    std::cout << "CPU-only tests now native: " << native_but_listed << "\n";
  }
  if (gpu) std::cout << tally.summary(backend_name(settings.backend)) << "\n";
  if (measured > 0) {
    std::cout << "shape inference predicted " << coverage.predicted << " of " << coverage.outputs
              << " node outputs (dtype and rank); every output in " << complete << " of "
              << measured << " models\n";
  }
  std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
  if (native_but_listed > 0) return 1;
  if (!known_path.empty()) return unexpected_failures == 0 && unexpected_passes == 0 ? 0 : 1;
  return failed == 0 ? 0 : 1;
}

const Registration kCommand{
    "test-onnx", "run ONNX backend test folders and compare with their expected outputs",
    [](CLI::App& cmd) {
      cmd.footer(
          "DIR is a test folder (holding model.onnx and test_data_set_*) or a folder of them.\n"
          "Each test runs in a child process, so a crash or a hang fails that test only.\n"
          "On a GPU backend it counts the tests whose nodes all, some or none ran natively, and\n"
          "the run-time fallbacks (--verbose names the CPU work of each test); --strict fails a\n"
          "test with any node on the CPU or any run-time fallback, except the tests listed in\n"
          "--cpu-only (a listed test that runs fully native fails the run: the list only\n"
          "shrinks).\n"
          "Closes with the line \"N passed, N failed, N skipped\".");
      auto o = std::make_shared<TestOnnxOptions>();
      cmd.add_option("dirs", o->dirs, "test folders, or folders of them")
          ->required()
          ->type_name("DIR...");
      cmd.add_option("--filter", o->filter, "run only tests whose name matches REGEX")
          ->check(regex_validator())
          ->type_name("REGEX");
      cmd.add_option("--rtol", o->rtol, "relative tolerance (default 1e-3, as the ONNX runner)")
          ->check(non_negative_number())
          ->type_name("R");
      cmd.add_option("--atol", o->atol, "absolute tolerance (default 1e-7, as the ONNX runner)")
          ->check(non_negative_number())
          ->type_name("A");
      cmd.add_option(
             "--known-failures", o->known_failures,
             "tests expected to fail, one per line (\"name  # reason\"); the exit status "
             "is then 0 unless a test not listed fails or a listed one passes (except one whose "
             "reason starts with \"random draw:\", which may match by chance)")
          ->type_name("FILE");
      cmd.add_option("--cpu-only", o->cpu_only,
                     "tests allowed to run partly or wholly on the CPU under --strict, one per "
                     "line (\"name  # reason\", the reason required)")
          ->type_name("FILE");
      cmd.add_option("--timeout", o->timeout_s,
                     "seconds per test before it counts as failed (default 120)")
          ->check(integer_in(1, 86400))
          ->type_name("S");
      cmd.add_flag("--verbose,-v", o->verbose,
                   "print passing tests too, and the CPU work of each test on a GPU backend");
      add_worker_flags(cmd, o->worker, {.verify_shapes = true});
      add_load_flags(cmd, o->load);
      return [o] { return test_onnx(*o); };
    }};

}  // namespace

}  // namespace kiln::cli
