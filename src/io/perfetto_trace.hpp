// Whole-step simulation timelines as a Chrome trace-event JSON file, which
// https://ui.perfetto.dev (and chrome://tracing) open: one process per GPU rank, one thread per
// track (the compute stream, each communicator channel), one complete event per span.
#pragma once

#include <ostream>
#include <string_view>
#include <vector>

#include "exec/timeline.hpp"

namespace rapidllm::io {

// Streams `t` to `out` as {"displayTimeUnit":"ns","traceEvents":[...]}: for each rank in
// `ranks` (empty = every rank of t.unit_of_rank; duplicates are written once, in increasing
// order) a process "GPU <rank>" with the spans of unit t.unit_of_rank[rank], "ts"/"dur" in
// microseconds. Events are dumped one at a time, never the whole document in memory.
// Throws Error, before writing anything, for a rank outside the cluster or a timeline whose
// indices (unit, name, track) are out of range or whose spans end before they start; throws
// Error when the stream fails.
void write_perfetto_trace(const exec::Timeline& t, std::ostream& out, const std::vector<int>& ranks);

// Parses a --trace-ranks value, "0-7,64,128-130", into sorted unique ranks. Throws ConfigError
// (naming --trace-ranks, what is wrong and the valid range 0-<num_ranks-1>) for bad syntax, a
// range that runs backwards, or a rank >= num_ranks.
std::vector<int> parse_rank_list(std::string_view text, int num_ranks);

}  // namespace rapidllm::io
