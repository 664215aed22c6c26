// A collective phase written once, as a program of ring rounds: the analytical backend
// evaluates it in closed form (program_time), the flow backend executes it as transfers
// (collective_flows.cpp) and the work estimate counts its steps (work_estimate.cpp). So the
// three cannot disagree on how many steps a phase has, who talks to whom, how many bytes a
// step moves, or which share of the links a step gets.
//
// Written this way so far: the 2-D ring decomposition of Torus2D / Mesh2D
// (grid_ring_program). The 1-D algorithms (ring, direct, halving-doubling, trees, NVLS) are
// still written out in each of the three files.
#pragma once

#include <vector>

#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::network {

// One axis of the groups a program runs on: the rows (axis 0) or the columns (axis 1) of a
// 2-D grid, every group holding `ranks` members.
struct ProgramAxis {
  int ranks = 1;
  // The ring visits the even positions of the line outwards and the odd ones back
  // (0, 2, 4, ..., 5, 3, 1): a line without a wrap-around link (a mesh) folds the ring
  // onto itself, so no step crosses more than 2 links.
  bool folded = false;
  // Links the longest member path of one ring step crosses (each adds the link latency).
  int hops = 1;
  // The fraction of the per-GPU bandwidth B that one lane's member gets on this axis: the
  // capacity of one directed link over the lanes that cross it at once.
  double share = 1.0;
};

// Who a member sends to in a round: `ring`: its successor in the ring order (direction
// `dir` of the lane) at every step, one PairSet for all steps; `pairwise`: step s (1-based)
// to the member s positions on (all-to-all's pairwise exchange), a PairSet per step.
enum class RoundPeers { ring, pairwise };

// `steps` steps one after another on one axis's groups, each member sending `bytes`.
struct ProgramRound {
  int axis = 0;
  int steps = 0;
  RoundPeers peers = RoundPeers::ring;
  double bytes = 0.0;
};

// Rounds run one after another; a program's lanes run at the same time.
struct ProgramLane {
  int dir = 1;  // +1: towards the next position in the ring order; -1: the previous
  std::vector<ProgramRound> rounds;
};

struct CollectiveProgram {
  std::vector<ProgramAxis> axes;
  std::vector<ProgramLane> lanes;
};

// The 2-D ring decomposition of an a x b Torus2D or Mesh2D (docs/collectives-analytical.md):
// two halves of the buffer run the axis schedule in opposite axis orders, each half split
// over both ring directions: four lanes of S/4. A torus axis gives every lane its own
// directed links (B/4: share 1/4, one hop a step). A mesh axis has no wrap-around link: its
// ring is folded onto the line, so every directed link carries both directions' lanes
// (share 1/8) and a step crosses up to 2 links. All-to-all keeps the torus form on both
// (its pairwise exchange is charged one hop a step, as on a Ring). Broadcast and send/recv
// have no 2-D form (InfeasibleError).
[[nodiscard]] CollectiveProgram grid_ring_program(CollectiveOp op, double bytes, int a, int b, bool mesh);

// The program in closed form, on an idle network: its slowest lane, each round costing
// steps x (step_latency + (hops - 1) x link_latency) + steps x bytes / (bandwidth x share).
// `bandwidth` is the per-GPU rate B (util and protocol applied); a step's first link is in
// its step latency, each further link adds the link's own latency.
[[nodiscard]] double program_time(const CollectiveProgram& program, double bandwidth, double step_latency_s,
                                  double link_latency_s);

}  // namespace rapidllm::network
