// Profile's summaries: the op table and the Chrome trace (Trace Event Format, JSON).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "kiln/profile.h"

namespace kiln {
namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

const char* category(const ProfileEvent& e) {
  if (e.fallback) return "fallback";
  switch (e.kind) {
    case ProfileEvent::Kind::Layer:
      return "layer";
    case ProfileEvent::Kind::Record:
      return "record";
    case ProfileEvent::Kind::Device:
      return "device";
    case ProfileEvent::Kind::Transfer:
      return "transfer";
  }
  return "layer";
}

// Thread ids: the caller's thread first, then the workers in order, then the device queues.
int track_order(const std::string& track) {
  if (track == "caller thread") return 0;
  if (track.rfind("cpu worker ", 0) == 0) return 1 + std::stoi(track.substr(11));
  return 100000;
}

}  // namespace

std::vector<OpTime> Profile::by_op() const {
  std::map<std::string, OpTime> ops;
  double total = 0;
  for (const ProfileEvent& e : events) {
    if (e.kind != ProfileEvent::Kind::Layer && e.kind != ProfileEvent::Kind::Device) continue;
    OpTime& op = ops[e.op_type];
    op.op_type = e.op_type;
    op.count += 1;
    op.total_us += e.duration_us;
    total += e.duration_us;
  }
  std::vector<OpTime> out;
  for (auto& [name, op] : ops) {
    op.share = total > 0 ? op.total_us / total : 0;
    out.push_back(op);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const OpTime& a, const OpTime& b) { return a.total_us > b.total_us; });
  return out;
}

std::string Profile::to_chrome_trace() const {
  std::map<std::string, int> tids;
  for (const ProfileEvent& e : events) tids.emplace(e.track, 0);
  std::vector<std::string> tracks;
  for (const auto& [track, tid] : tids) tracks.push_back(track);
  std::stable_sort(tracks.begin(), tracks.end(), [](const std::string& a, const std::string& b) {
    return track_order(a) < track_order(b);
  });
  for (size_t i = 0; i < tracks.size(); ++i) tids[tracks[i]] = static_cast<int>(i) + 1;

  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  out += R"({"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"kiln"}})";
  for (const std::string& track : tracks) {
    out += ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":" +
           std::to_string(tids[track]) + ",\"args\":{\"name\":" + json_string(track) + "}}";
    out += ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":" +
           std::to_string(tids[track]) + ",\"args\":{\"sort_index\":" +
           std::to_string(tids[track]) + "}}";
  }
  for (const ProfileEvent& e : events) {
    out += ",\n{\"name\":" + json_string(e.name) + ",\"cat\":\"" + category(e) +
           "\",\"ph\":\"X\",\"pid\":1,\"tid\":" + std::to_string(tids[e.track]) +
           ",\"ts\":" + number(e.start_us) + ",\"dur\":" + number(e.duration_us) + ",\"args\":{";
    std::string args;
    if (!e.op_type.empty()) args += "\"op\":" + json_string(e.op_type);
    if (!e.detail.empty()) args += std::string(args.empty() ? "" : ",") + "\"detail\":" + json_string(e.detail);
    out += args + "}}";
  }
  out += "\n]}\n";
  return out;
}

}  // namespace kiln
