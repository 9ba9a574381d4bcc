// Small helpers the passes share for reading and rewriting a graph.
#pragma once

#include <set>
#include <string>

#include "ir/graph.h"

namespace kiln::passes {

// Every value name some node reads, directly or from inside a subgraph, plus graph outputs.
std::set<std::string> used_values(const ir::Graph& graph);
// Replaces reads of `from` by `to` in the graph's nodes (not in subgraphs).
void rename_reads(ir::Graph& graph, const std::string& from, const std::string& to);
bool is_graph_output(const ir::Graph& graph, const std::string& value);
bool has_subgraph(const ir::Node& node);

}  // namespace kiln::passes
