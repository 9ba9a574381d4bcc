// The op table `kiln profile` prints, and the trace file `kiln profile` / `kiln bench --trace`
// write, shared by both commands.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "kiln/kiln.h"

namespace kiln::cli {

// Ops by total time over `profiles` (one per run), with the mean per run and the share.
void print_op_table(std::ostream& out, const std::vector<Profile>& profiles);

// Writes `profile` as a Chrome trace to `path`; kiln::Error when it cannot.
void write_trace(const Profile& profile, const std::string& path);

// "trace: 6 tracks (cpu worker 0, ..., gpu-compute queue), 212 events (layer 180, ...)"
std::string describe_trace(const Profile& profile);

}  // namespace kiln::cli
