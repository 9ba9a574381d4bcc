// Value dumps: .npy files per node output with an index, and the diff of two dumps.
#include "kiln/value_dump.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "core/dtype_dispatch.h"
#include "ir/graph.h"

namespace kiln {
namespace {

constexpr const char* kIndex = "index.tsv";

// Letters, digits, '_' and '.' kept; anything else becomes '_'; short enough for any file system.
std::string file_part(const std::string& s) {
  std::string out;
  for (const char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return out.substr(0, 80);
}

// Tabs and line breaks would break the index's columns.
std::string field(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::string type_of(const Tensor& t) {
  if (t.kind() != ValueKind::Tensor) return t.to_string(0);
  return std::string(dtype_name(t.dtype())) + t.shape().to_string();
}

// How far `a` is from `e`, or an empty string when every element is close.
std::string difference(const Tensor& a, const Tensor& e, double rtol, double atol) {
  if (a.dtype() != e.dtype()) {
    return std::string("dtype ") + std::string(dtype_name(a.dtype())) + " vs " +
           std::string(dtype_name(e.dtype()));
  }
  if (a.shape() != e.shape()) return "shape " + a.shape().to_string() + " vs " + e.shape().to_string();
  std::string out;
  visit_dtype(e.dtype(), [&]<class T>() {
    const T* pa = a.data<T>();
    const T* pe = e.data<T>();
    int64_t bad = 0, first = -1;
    double worst = 0;
    for (int64_t i = 0; i < e.element_count(); ++i) {
      bool ok = true;
      double gap = 0;
      if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool> || is_complex_v<T>) {
        ok = pa[i] == pe[i];
      } else {
        const double av = to_double(pa[i]), ev = to_double(pe[i]);
        if (std::isnan(ev)) {
          ok = std::isnan(av);
        } else if (std::isinf(ev)) {
          ok = av == ev;
        } else {
          gap = std::abs(av - ev);
          ok = gap <= atol + rtol * std::abs(ev);
        }
      }
      if (ok) continue;
      ++bad;
      if (first < 0) first = i;
      if (!(gap <= worst)) worst = gap;
    }
    if (bad == 0) return;
    std::ostringstream s;
    s << bad << " of " << e.element_count() << " elements differ; first at flat index " << first;
    if constexpr (!std::is_same_v<T, std::string> && !std::is_same_v<T, bool> && !is_complex_v<T>) {
      s << " (" << to_double(pa[first]) << " vs " << to_double(pe[first])
        << "), largest difference " << worst;
    }
    out = s.str();
  });
  return out;
}

}  // namespace

std::vector<DumpedValue> dump_values(const Worker& worker, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  check(!ec && fs::is_directory(dir), dir + ": cannot create the dump folder");
  const ir::Graph& graph = worker.model().ir()->graph;
  std::unordered_map<std::string, std::pair<size_t, size_t>> producer;  // value -> node, output
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (size_t k = 0; k < graph.nodes[n].outputs.size(); ++k)
      producer.emplace(graph.nodes[n].outputs[k], std::pair{n, k});
  }
  std::vector<DumpedValue> dumped;
  for (const std::string& name : worker.output_names()) {
    DumpedValue v;
    v.value_name = name;
    std::string stem;
    if (auto it = producer.find(name); it != producer.end()) {
      const ir::Node& node = graph.nodes[it->second.first];
      v.order = it->second.first;
      v.node_name = node.name;
      v.op_type = node.op_type;
      v.output_index = it->second.second;
      char number[16];
      std::snprintf(number, sizeof number, "%04zu", v.order);
      stem = std::string(number) + "-" + file_part(node.op_type) + "-" +
             file_part(node.name.empty() ? name : node.name) + "." + std::to_string(v.output_index);
    } else {  // a graph input or an initializer the caller asked for
      v.order = 0;
      v.op_type = graph.initializers.count(name) ? "(initializer)" : "(input)";
      stem = "input-" + file_part(name);
    }
    const Tensor value = worker.peek_output(name).readback_and_clone();
    v.type = type_of(value);
    if (value.kind() == ValueKind::Tensor && value.dtype() != DataType::String) {
      v.file = stem + ".npy";
      save_tensor(value, (fs::path(dir) / v.file).string());
    }
    dumped.push_back(std::move(v));
  }
  std::stable_sort(dumped.begin(), dumped.end(), [](const DumpedValue& a, const DumpedValue& b) {
    return a.order < b.order;
  });
  std::ofstream index(fs::path(dir) / kIndex, std::ios::trunc);
  check(index.good(), dir + ": cannot write " + kIndex);
  index << "order\tnode\top\toutput\tvalue\ttype\tfile\n";
  for (const DumpedValue& v : dumped) {
    index << v.order << '\t' << field(v.node_name) << '\t' << field(v.op_type) << '\t'
          << v.output_index << '\t' << field(v.value_name) << '\t' << v.type << '\t' << v.file
          << '\n';
  }
  check(index.good(), dir + ": writing " + kIndex + " failed");
  return dumped;
}

std::vector<DumpedValue> read_value_dump_index(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / kIndex).string();
  std::ifstream in(path);
  check(in.good(), dir + ": not a value dump (no " + kIndex + "; write one with kiln run --dump-values)");
  std::string line;
  std::getline(in, line);  // the column names
  std::vector<DumpedValue> out;
  for (size_t number = 2; std::getline(in, line); ++number) {
    std::vector<std::string> cols;
    std::stringstream s(line);
    for (std::string c; std::getline(s, c, '\t');) cols.push_back(c);
    if (cols.size() == 6) cols.emplace_back();  // no file written
    if (cols.size() != 7) throw Error(path + ":" + std::to_string(number) + ": expected 7 columns");
    DumpedValue v;
    try {
      v.order = std::stoul(cols[0]);
      v.output_index = std::stoul(cols[3]);
    } catch (const std::exception&) {
      throw Error(path + ":" + std::to_string(number) + ": a position that is not a number");
    }
    v.node_name = cols[1];
    v.op_type = cols[2];
    v.value_name = cols[4];
    v.type = cols[5];
    v.file = cols[6];
    out.push_back(std::move(v));
  }
  return out;
}

DumpDifference diff_value_dumps(const std::string& actual_dir, const std::string& expected_dir,
                                double rtol, double atol) {
  namespace fs = std::filesystem;
  const auto actual = read_value_dump_index(actual_dir);
  std::map<std::string, DumpedValue> expected;
  for (DumpedValue& v : read_value_dump_index(expected_dir)) expected[v.value_name] = std::move(v);
  DumpDifference result;
  for (const DumpedValue& a : actual) {
    auto it = expected.find(a.value_name);
    if (it == expected.end() || a.file.empty() || it->second.file.empty()) {
      if (it == expected.end()) ++result.unmatched;
      continue;
    }
    const Tensor av = load_tensor((fs::path(actual_dir) / a.file).string());
    const Tensor ev = load_tensor((fs::path(expected_dir) / it->second.file).string());
    ++result.compared;
    std::string why = difference(av, ev, rtol, atol);
    if (why.empty()) continue;
    result.found = true;
    result.value = a;
    result.reason = std::move(why);
    return result;
  }
  return result;
}

}  // namespace kiln
