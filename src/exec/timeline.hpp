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

}  // namespace rapidllm::exec
