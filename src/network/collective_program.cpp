#include "network/collective_program.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::network {

namespace {

// A line of `ranks` GPUs as one axis of a Torus2D or Mesh2D (B/4 per directed link).
ProgramAxis grid_axis(int ranks, bool mesh) {
  ProgramAxis axis;
  axis.ranks = ranks;
  if (!mesh) {
    // Each ring direction has its own directed links (a two-rank axis merges its two cables
    // into one link of B/2, which the two directions share): B/4 a lane, one hop a step.
    axis.share = 0.25;
    return axis;
  }
  // No wrap-around: the folded ring's steps cross up to 2 links (one on a two-rank line),
  // and the two directions' lanes both cross every directed link of the line: B/8 a lane.
  // (No ring embedding does better: a GPU at the end of a line has one link in.)
  axis.folded = ranks > 2;
  axis.hops = ranks > 2 ? 2 : 1;
  axis.share = 0.125;
  return axis;
}

}  // namespace

CollectiveProgram grid_ring_program(CollectiveOp op, double bytes, int a, int b, bool mesh) {
  if (op == CollectiveOp::broadcast || op == CollectiveOp::send_recv) {
    throw InfeasibleError(fmt::format("{} has no 2-D ring decomposition", to_string(op)));
  }
  // The pairwise all-to-all is charged one hop a step on every axis, as on a Ring.
  const bool folded_rings = mesh && op != CollectiveOp::all_to_all;
  CollectiveProgram p;
  p.axes = {grid_axis(a, folded_rings), grid_axis(b, folded_rings)};
  const double q = bytes / 4.0;  // each of the four lanes carries a quarter
  for (int order = 0; order < 2; ++order) {
    // Half 1 runs rows (axis 0) then columns; half 2 the other way round.
    const int first = order;
    const int second = 1 - order;
    const int n1 = p.axes[static_cast<std::size_t>(first)].ranks;
    const int n2 = p.axes[static_cast<std::size_t>(second)].ranks;
    for (int dir : {1, -1}) {
      ProgramLane lane;
      lane.dir = dir;
      // A ring pass of `op_steps` steps over the axis's groups, each member sending buffer / n.
      const auto ring = [&lane](int axis, int n, int op_steps, double buffer) {
        if (n < 2) return;
        lane.rounds.push_back({axis, op_steps, RoundPeers::ring, buffer / n});
      };
      switch (op) {
        case CollectiveOp::all_reduce:
          // Reduce-scatter along the first axis, all-reduce of the 1/n1 shard along the
          // second (2 (n2 - 1) steps), all-gather back along the first.
          ring(first, n1, n1 - 1, q);
          ring(second, n2, 2 * (n2 - 1), q / n1);
          ring(first, n1, n1 - 1, q);
          break;
        case CollectiveOp::all_gather:
          // Gather along the first axis into S/n2, then along the second into S.
          ring(first, n1, n1 - 1, q / n2);
          ring(second, n2, n2 - 1, q);
          break;
        case CollectiveOp::reduce_scatter:
          // Scatter along the first axis into S/n1 shards, then along the second into S/n.
          ring(first, n1, n1 - 1, q);
          ring(second, n2, n2 - 1, q / n1);
          break;
        case CollectiveOp::all_to_all:
          // Dimension-ordered exchange: each axis forwards the whole buffer, bucket by bucket.
          if (n1 >= 2) lane.rounds.push_back({first, n1 - 1, RoundPeers::pairwise, q / n1});
          if (n2 >= 2) lane.rounds.push_back({second, n2 - 1, RoundPeers::pairwise, q / n2});
          break;
        case CollectiveOp::broadcast:
        case CollectiveOp::send_recv:
          break;  // refused above
      }
      p.lanes.push_back(std::move(lane));
    }
  }
  return p;
}

double program_time(const CollectiveProgram& program, double bandwidth, double step_latency_s,
                    double link_latency_s) {
  double slowest = 0.0;
  for (const ProgramLane& lane : program.lanes) {
    double t = 0.0;
    for (const ProgramRound& r : lane.rounds) {
      const ProgramAxis& axis = program.axes[static_cast<std::size_t>(r.axis)];
      const double steps = r.steps;
      t += steps * (step_latency_s + (axis.hops - 1) * link_latency_s) + steps * r.bytes / (bandwidth * axis.share);
    }
    slowest = std::max(slowest, t);
  }
  return slowest;
}

}  // namespace rapidllm::network
