#include "inputs.h"

#include <charconv>
#include <filesystem>
#include <random>
#include <regex>

#include "core/dtype_dispatch.h"

namespace fs = std::filesystem;

namespace kiln::cli {

namespace {

size_t input_index(const Model& model, const std::string& name) {
  const auto& declared = model.inputs();
  for (size_t i = 0; i < declared.size(); ++i) {
    if (declared[i].name == name) return i;
  }
  throw Error("the model has no input named '" + name + "'; its inputs:\n" +
              describe_inputs(model));
}

// Splits "NAME=VALUE"; the first '=' separates, since file paths are likelier than input
// names to contain one.
std::pair<std::string, std::string> split_assignment(const std::string& text,
                                                     const std::string& option) {
  const size_t eq = text.find('=');
  check(eq != std::string::npos && eq > 0 && eq + 1 < text.size(),
        option + " expects NAME=VALUE, got '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

int64_t parse_int64(const std::string& text, const std::string& what) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  check(ec == std::errc() && p == end, what + ": '" + text + "' is not an integer");
  return v;
}

}  // namespace

std::vector<NamedTensor> InputSet::named() const {
  std::vector<NamedTensor> out;
  out.reserve(entries_.size());
  for (const auto& [name, tensor] : entries_) out.push_back({*name, tensor});
  return out;
}

void InputSet::add(const std::string& name_in_model, Tensor tensor) {
  entries_.emplace_back(&name_in_model, std::move(tensor));
}

std::string describe_inputs(const Model& model) {
  std::string s;
  for (const auto& in : model.inputs()) s += "  '" + in.name + "' " + in.to_string() + "\n";
  if (s.empty()) s = "  (none)\n";
  return s;
}

Tensor random_tensor(const ValueInfo& info,
                     const std::vector<std::pair<std::string, int64_t>>& dims) {
  check(info.kind == ValueInfo::Kind::Tensor,
        "input '" + info.name + "' (" + info.to_string() +
            ") is not a tensor; give it with --input NAME=FILE");
  check(info.dtype != DataType::Undefined,
        "input '" + info.name + "' has no declared element type; give it with --input");
  check(info.has_shape,
        "input '" + info.name + "' has no declared shape; give it with --input NAME=FILE");
  Shape shape;
  for (const Dim& d : info.shape) {
    int64_t size = d.is_fixed() ? d.value : 1;
    for (const auto& [symbol, value] : dims) {
      if (!d.is_fixed() && symbol == d.symbol) size = value;
    }
    shape.push_back(size);
  }
  Tensor t = Tensor::zeros(info.dtype, shape);
  // A fixed seed keeps benchmark inputs (and so data-dependent paths) the same between runs.
  static std::mt19937 rng(12345);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::uniform_int_distribution<int> small(0, 3);
  const int64_t n = t.element_count();
  visit_dtype(info.dtype, [&]<class T>() {
    if constexpr (is_float_like_v<T> || is_complex_v<T>) {
      T* p = t.mutable_data<T>();
      for (int64_t i = 0; i < n; ++i) p[i] = T(unit(rng));
    } else if constexpr (is_plain_int_v<T> || is_small_int_v<T>) {
      T* p = t.mutable_data<T>();
      for (int64_t i = 0; i < n; ++i) p[i] = T(small(rng));
    }
    // bool and string keep their zero values: false and "".
  });
  return t;
}

InputSet load_inputs(const Model& model, const InputFlags& flags, bool random_fallback) {
  const auto& declared = model.inputs();
  std::vector<Tensor> tensors(declared.size());

  const std::string& dir = flags.inputs_dir;
  if (!dir.empty()) {
    check(fs::is_directory(dir), "--inputs-dir " + dir + ": not a folder");
    static const std::regex file_name(R"(input_(\d+)\.(pb|npy))");
    bool any = false;
    for (const auto& entry : fs::directory_iterator(dir)) {
      std::smatch m;
      const std::string name = entry.path().filename().string();
      if (!std::regex_match(name, m, file_name)) continue;
      const size_t index = static_cast<size_t>(std::stoul(m[1].str()));
      check(index < declared.size(), entry.path().string() + ": the model has only " +
                                         std::to_string(declared.size()) + " inputs:\n" +
                                         describe_inputs(model));
      tensors[index] = load_tensor(entry.path().string());
      any = true;
    }
    check(any, "--inputs-dir " + dir + ": no input_N.pb or input_N.npy files");
  }

  for (const auto& spec : flags.inputs) {
    const auto [name, file] = split_assignment(spec, "--input");
    // The name first, so that a typo is reported as such rather than as a file problem.
    const size_t index = input_index(model, name);
    tensors[index] = load_tensor(file);
  }

  std::vector<std::pair<std::string, int64_t>> dims;
  for (const auto& spec : flags.dims) {
    const auto [name, value] = split_assignment(spec, "--dim");
    const int64_t v = parse_int64(value, "--dim " + name);
    check(v >= 0, "--dim " + name + ": a dimension cannot be negative");
    dims.emplace_back(name, v);
  }

  InputSet set;
  std::string missing;
  for (size_t i = 0; i < declared.size(); ++i) {
    if (!tensors[i].defined()) {
      if (!random_fallback) {
        missing += (missing.empty() ? "'" : ", '") + declared[i].name + "'";
        continue;
      }
      tensors[i] = random_tensor(declared[i], dims);
    }
    set.add(declared[i].name, tensors[i]);
  }
  check(missing.empty(), "no value for input " + missing +
                             " (use --inputs-dir DIR or --input NAME=FILE); the model's inputs:\n" +
                             describe_inputs(model));
  return set;
}

}  // namespace kiln::cli
