#include "profile_table.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

namespace kiln::cli {

void print_op_table(std::ostream& out, const std::vector<Profile>& profiles) {
  std::map<std::string, OpTime> total;
  double sum = 0;
  for (const Profile& p : profiles) {
    for (const OpTime& op : p.by_op()) {
      OpTime& t = total[op.op_type];
      t.op_type = op.op_type;
      t.count = op.count;  // layers per run
      t.total_us += op.total_us;
      sum += op.total_us;
    }
  }
  std::vector<OpTime> ops;
  for (auto& [name, op] : total) ops.push_back(op);
  std::stable_sort(ops.begin(), ops.end(),
                   [](const OpTime& a, const OpTime& b) { return a.total_us > b.total_us; });
  const double runs = static_cast<double>(std::max<size_t>(profiles.size(), 1));
  char line[200];
  std::snprintf(line, sizeof line, "%-28s %7s %14s %12s %7s\n", "op", "layers", "ms per run",
                "ms per layer", "share");
  out << line;
  for (const OpTime& op : ops) {
    const double per_run = op.total_us / runs / 1000.0;
    std::snprintf(line, sizeof line, "%-28s %7d %14.3f %12.4f %6.1f%%\n", op.op_type.c_str(),
                  op.count, per_run, op.count ? per_run / op.count : 0.0,
                  sum > 0 ? 100.0 * op.total_us / sum : 0.0);
    out << line;
  }
  std::snprintf(line, sizeof line, "%-28s %7s %14.3f\n", "total (summed layers)", "",
                sum / runs / 1000.0);
  out << line;
}

void write_trace(const Profile& profile, const std::string& path) {
  std::ofstream file(path, std::ios::trunc);
  check(file.good(), path + ": cannot open the trace file for writing");
  file << profile.to_chrome_trace();
  file.close();
  check(file.good(), path + ": writing the trace failed");
}

std::string describe_trace(const Profile& profile) {
  std::set<std::string> tracks;
  std::map<std::string, int> kinds;
  for (const ProfileEvent& e : profile.events) {
    tracks.insert(e.track);
    const char* kind = e.fallback ? "fallback"
                       : e.kind == ProfileEvent::Kind::Layer    ? "layer"
                       : e.kind == ProfileEvent::Kind::Record   ? "record"
                       : e.kind == ProfileEvent::Kind::Device   ? "device"
                                                                : "transfer";
    kinds[kind] += 1;
  }
  std::string out = std::to_string(tracks.size()) + " tracks (";
  const char* sep = "";
  for (const auto& t : tracks) {
    out += sep + t;
    sep = ", ";
  }
  out += "), " + std::to_string(profile.events.size()) + " events (";
  sep = "";
  for (const auto& [kind, n] : kinds) {
    out += sep + kind + " " + std::to_string(n);
    sep = ", ";
  }
  return out + ")";
}

}  // namespace kiln::cli
