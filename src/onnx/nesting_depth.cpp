#include "onnx/nesting_depth.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kiln::onnx_import {

namespace {

// The messages on the path to a subgraph, and the field numbers that lead from one to the next
// (onnx.proto).
enum class Kind { Model, Function, Graph, Node, Attribute };

struct Region {
  const uint8_t* begin;
  const uint8_t* end;
  Kind kind;
  size_t depth;  // graphs around this message, counting the model's own
};

bool read_varint(const uint8_t*& p, const uint8_t* end, uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    const uint8_t byte = *p++;
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

// The kind of a length-delimited field inside `parent` that leads towards a subgraph, or false.
bool child_kind(Kind parent, uint64_t field, Kind& child) {
  switch (parent) {
    case Kind::Model:
      if (field == 7) return child = Kind::Graph, true;
      if (field == 25) return child = Kind::Function, true;
      return false;
    case Kind::Function:
      if (field == 7) return child = Kind::Node, true;
      return false;
    case Kind::Graph:
      if (field == 1) return child = Kind::Node, true;
      return false;
    case Kind::Node:
      if (field == 5) return child = Kind::Attribute, true;
      return false;
    case Kind::Attribute:
      if (field == 6 || field == 11) return child = Kind::Graph, true;
      return false;
  }
  return false;
}

}  // namespace

size_t subgraph_nesting_depth(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  std::vector<Region> pending{{bytes, bytes + size, Kind::Model, 0}};
  size_t deepest = 0;
  while (!pending.empty()) {
    const Region r = pending.back();
    pending.pop_back();
    const uint8_t* p = r.begin;
    while (p < r.end) {
      uint64_t key = 0, length = 0, skipped = 0;
      if (!read_varint(p, r.end, key)) break;
      const uint64_t field = key >> 3;
      switch (key & 7) {
        case 0:
          if (!read_varint(p, r.end, skipped)) p = r.end;
          continue;
        case 1:
          p = r.end - p >= 8 ? p + 8 : r.end;
          continue;
        case 5:
          p = r.end - p >= 4 ? p + 4 : r.end;
          continue;
        case 2:
          break;
        default:  // groups and invalid wire types: not in ONNX files
          p = r.end;
          continue;
      }
      if (!read_varint(p, r.end, length) || length > static_cast<uint64_t>(r.end - p)) break;
      Kind child;
      if (child_kind(r.kind, field, child)) {
        // A graph below the model's own one is a subgraph: one level deeper.
        const bool subgraph = child == Kind::Graph && r.kind == Kind::Attribute;
        const size_t depth = r.depth + (subgraph ? 1 : 0);
        deepest = std::max(deepest, depth);
        pending.push_back({p, p + length, child, depth});
      }
      p += length;
    }
  }
  return deepest;
}

}  // namespace kiln::onnx_import
