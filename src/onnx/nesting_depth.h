// How deeply a model's subgraphs nest (If branches, Loop and Scan bodies inside each other),
// read straight from the protobuf bytes without recursion, so that a model nested too deeply
// gets kiln's own error before protobuf's parser (whose recursion limit would call it
// "truncated or corrupt") sees it.
#pragma once

#include <cstddef>

namespace kiln::onnx_import {

// The deepest subgraph nesting in a serialized ModelProto: 0 for a graph without subgraphs, 1
// when some node has a graph attribute, and so on (functions' nodes count from their own top).
// Malformed bytes end the scan early: the parser reports them afterwards.
size_t subgraph_nesting_depth(const void* data, size_t size);

// The deepest nesting kiln accepts; a model nested deeper is refused at load time with
// "subgraphs nested deeper than kMaxSubgraphDepth". Exporters produce a few levels; the limit
// keeps the parser's and the runtime's recursion within the stack of any thread.
inline constexpr size_t kMaxSubgraphDepth = 64;

}  // namespace kiln::onnx_import
