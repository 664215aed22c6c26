// What a whole-step simulation did when: spans on tracks (a GPU's compute stream, its
// communicator channels) of simulated units. With symmetry one unit stands for many ranks
// (every DP replica of a stage); `unit_of_rank` says which unit's spans a rank shows, so a
// trace writer can write any rank without the simulation holding every rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rapidllm::exec {

enum class SpanKind : std::uint8_t { compute, communication };

struct TimelineSpan {
  double start_s = 0.0;
  double end_s = 0.0;
  std::uint32_t name = 0;  // index into Timeline::names ("L12.mb3.fwd.qkv_proj")
  std::uint16_t track = 0;  // index into Timeline::tracks
  SpanKind kind = SpanKind::compute;
  int unit = 0;  // simulated unit
};

struct Timeline {
  std::vector<std::string> names;
  std::vector<std::string> tracks;  // "compute", "tp", "cp", "dp", "pp" ...
  std::vector<TimelineSpan> spans;  // any order
  int units = 0;
  std::vector<int> unit_of_rank;    // size = ranks in the cluster
};

// Appends `later`, a timeline of the same units, `offset_s` after `into` starts (an
// inference's decode step after its prefill).
inline void append_timeline(Timeline& into, const Timeline& later, double offset_s) {
  const auto names = static_cast<std::uint32_t>(into.names.size());
  into.names.insert(into.names.end(), later.names.begin(), later.names.end());
  into.spans.reserve(into.spans.size() + later.spans.size());
  for (TimelineSpan span : later.spans) {
    span.start_s += offset_s;
    span.end_s += offset_s;
    span.name += names;
    into.spans.push_back(span);
  }
}

}  // namespace rapidllm::exec
