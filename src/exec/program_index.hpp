// How the step simulator reads a stage program: which resource of a unit runs each node
// (the compute stream, a channel per communicator, a pipeline send channel per direction),
// each resource's issue list, each node's dependents, and where a micro-batch's
// activations become live and die.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "exec/step_graph.hpp"

namespace rapidllm::exec::detail {

// Resources of a unit: the compute stream, a channel per communicator, and the pipeline
// sends one channel per direction (a stage sends activations on while it sends gradients
// back, as Megatron's batched send/recv does).
enum Resource : std::uint8_t { compute_stream, tp_ch, cp_ch, ep_ch, dp_ch, pp_next, pp_prev, kResources, no_resource };
// Zero-bubble weight-gradient passes: issued on the compute stream, in their own order,
// only when the stream's next regular kernel is not ready.
constexpr std::size_t kFill = kResources;
constexpr std::array<const char*, kResources> kTrackNames{"compute", "tp", "cp", "ep", "dp", "pp_send_next",
                                                          "pp_send_prev"};

// The channel a collective of `p` runs on.
[[nodiscard]] Resource channel_of(Parallelism p);

// Per stage program: dependents, resources, per-resource issue lists, task markers.
struct ProgramIndex {
  std::vector<std::uint32_t> dep_offsets, dependents;
  std::vector<Resource> resource;
  std::array<std::vector<int>, kResources + 1> issue;  // [kFill]: weight-gradient fillers
  std::vector<int> wait_count;
  std::vector<std::int8_t> live_delta;  // +1: first node of a forward (mb, chunk); -1: end of its backward
  // ZB-H1's gate: a stage holds back at most pp - 1 W passes before one goes ahead of its
  // next F or B (with equal F, B and W this reproduces the paper's (p-1)(F+B-W) bubble).
  std::size_t fill_cap = 0;
};

[[nodiscard]] ProgramIndex index_program(const StageProgram& p, int stage, int pp);

}  // namespace rapidllm::exec::detail
