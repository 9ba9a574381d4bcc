// The .kiln file: a model saved after kiln's load-time passes, so loading it parses no
// protobuf and runs no optimization, and its weights are used in place from a memory mapping.
//
// Layout (little-endian):
//   [0, 64)   header: magic "KILNMDL\x1a", format version, header size, file size, the model's
//             and the weight block's offset and size, and an XXH3 checksum over the header's
//             other fields and everything after it
//   model     a FlatBuffers "Model" table (kiln_model.fbs): graph, value types, opsets
//   weights   64-byte-aligned tensor data that the model's tensors point into
// A reader checks the magic, the version, the sizes against the file, the checksum and the
// FlatBuffers structure before it trusts anything; a damaged file is a kiln::Error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "ir/graph.h"

namespace kiln::format {

inline constexpr uint32_t kFormatVersion = 1;

// Whether `data` starts with the .kiln magic (what load_model goes by, not the extension).
bool has_kiln_magic(const void* data, size_t size);

// The file's bytes for `model` (the graph as the passes left it).
std::string serialize_model(const ir::Model& model);
void write_model_file(const ir::Model& model, const std::string& path);

// A model from a .kiln image of `size` bytes at `data`. Its tensors borrow from the image,
// which `owner` keeps alive. `name` is used in messages.
std::shared_ptr<ir::Model> read_model(const void* data, size_t size, std::shared_ptr<void> owner,
                                      const std::string& name);
// Maps `path` read-only (the weights are used in place) and reads it.
std::shared_ptr<ir::Model> read_model_file(const std::string& path);

}  // namespace kiln::format
