#include "native_coverage.h"

#include <map>
#include <sstream>

namespace kiln::cli {

namespace {

constexpr char kSeparator = '\x1f';  // between fields of encode(); never in a reason

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == kSeparator) c = ' ';
  }
  return s;
}

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

}  // namespace

NativeCoverage native_coverage(const std::vector<NodePlacement>& placements) {
  NativeCoverage c;
  std::map<std::string, int> on_cpu;  // "Op: reason" -> nodes, in a stable order
  for (const NodePlacement& p : placements) {
    ++c.nodes;
    if (p.backend == Backend::Cpu) {
      ++on_cpu[p.op_type + ": " + p.fallback_reason];
      continue;
    }
    ++c.native;
    if (p.run_time_fallbacks > 0) {
      c.run_time_fallbacks += p.run_time_fallbacks;
      c.fell_back.push_back(p.op_type + ": " + p.run_time_reason + " (" +
                            std::to_string(p.run_time_fallbacks) + " runs)");
    }
  }
  for (const auto& [what, n] : on_cpu)
    c.on_cpu.push_back(n > 1 ? what + " (" + std::to_string(n) + " nodes)" : what);
  return c;
}

std::string NativeCoverage::cpu_work() const {
  std::string out;
  if (native < nodes) {
    out = std::to_string(nodes - native) + " of " + std::to_string(nodes) +
          " nodes on the CPU: " + joined(on_cpu, "; ");
  }
  if (run_time_fallbacks > 0) {
    out += std::string(out.empty() ? "" : "; ") + "run-time fallbacks: " + joined(fell_back, "; ");
  }
  return out;
}

std::string NativeCoverage::encode() const {
  std::ostringstream s;
  s << nodes << kSeparator << native << kSeparator << run_time_fallbacks << kSeparator
    << on_cpu.size() << kSeparator << fell_back.size();
  for (const auto& item : on_cpu) s << kSeparator << one_line(item);
  for (const auto& item : fell_back) s << kSeparator << one_line(item);
  return s.str();
}

NativeCoverage NativeCoverage::decode(const std::string& text) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(text);
  while (std::getline(in, field, kSeparator)) fields.push_back(field);
  NativeCoverage c;
  if (fields.size() < 5) return c;
  c.nodes = std::stoul(fields[0]);
  c.native = std::stoul(fields[1]);
  c.run_time_fallbacks = std::stoull(fields[2]);
  const size_t cpu = std::stoul(fields[3]), fell = std::stoul(fields[4]);
  for (size_t i = 0; i < cpu && 5 + i < fields.size(); ++i) c.on_cpu.push_back(fields[5 + i]);
  for (size_t i = 0; i < fell && 5 + cpu + i < fields.size(); ++i)
    c.fell_back.push_back(fields[5 + cpu + i]);
  return c;
}

void NativeTally::add(const std::optional<NativeCoverage>& coverage) {
  if (!coverage) {
    ++unmeasured;
    return;
  }
  if (coverage->native == coverage->nodes) {
    ++every;
    if (coverage->nodes == 0) ++without_nodes;
  } else if (coverage->native == 0) {
    ++none;
  } else {
    ++some;
  }
  run_time_fallbacks += coverage->run_time_fallbacks;
  tests_with_fallbacks += coverage->run_time_fallbacks > 0 ? 1 : 0;
}

std::string NativeTally::summary(std::string_view backend) const {
  std::ostringstream s;
  s << "placement on " << backend << ": every node native in " << every << " tests";
  if (without_nodes > 0) s << " (" << without_nodes << " with no node left after the passes)";
  s << ", some nodes native in " << some << ", no node native in " << none;
  if (unmeasured > 0) s << " (" << unmeasured << " not measured: no worker was built)";
  s << "; " << run_time_fallbacks << " run-time fallbacks in " << tests_with_fallbacks << " tests";
  return s.str();
}

}  // namespace kiln::cli
