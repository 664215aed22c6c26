// One rank's work for one micro-batch through one part of the model (a transformer layer,
// the embedding, the LM head, a distributed GEMM) as data: compute ops, which compute/
// costs, and communication ops over a parallelism's process group, which the network
// times, in program order with their dependencies. parallel/ builds these graphs (it
// inserts the collectives); an exec/ Executor runs them.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <string_view>
#include <vector>

#include "model/layer_ops.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::model {

enum class Pass : std::uint8_t { forward, backward };

// What a communication op is for; its breakdown category is "communication." + name.
// ep: the expert-parallel token dispatch and combine of MoE layers.
enum class CommPurpose : std::uint8_t { tp, cp, zero3, pp, dp, embedding_sync, ep };
inline constexpr std::size_t kCommPurposes = 7;
[[nodiscard]] std::string_view comm_category(CommPurpose p);

// How the analytical evaluator overlaps a communication op with the rest of its pass (the
// event-driven executor overlaps by dependencies instead; docs/architecture.md):
enum class HiddenUnder : std::uint8_t {
  nothing,       // fully exposed
  pass_compute,  // `overlap` x the shorter of (these ops together, the pass's compute)
  attention,     // the same against the pass's attention kernels (ring attention)
  pass_time,     // entirely under everything else the pass does (prefetched ZeRO-3 gathers)
};

struct CommOp {
  CollectiveOp op = CollectiveOp::all_reduce;  // send_recv: one message to the next rank
  Parallelism group = Parallelism::tp;
  double bytes = 0.0;  // nccl-tests size
  CommPurpose purpose = CommPurpose::tp;
  HiddenUnder hidden_under = HiddenUnder::nothing;
  double overlap = 0.0;  // the fraction for pass_compute and attention
};

// What backward re-runs of the forward: nothing, the attention core, or all of it.
enum class Recompute : std::uint8_t { none, attention_core, full, op_level };

enum class NodeKind : std::uint8_t { compute, communication };

struct Node {
  NodeKind kind = NodeKind::compute;
  Pass pass = Pass::forward;
  std::uint32_t index = 0;  // into ops() or comms()
  std::uint32_t deps_begin = 0;
  std::uint32_t deps_end = 0;
};

class OpGraph {
 public:
  // Each returns the node id; `deps` are node ids that must finish first (negative ids are
  // no dependency). Inline: graphs are rebuilt for every prediction.
  int add_compute(std::uint32_t op, Pass pass, std::initializer_list<int> deps = {}) {
    return add_node(NodeKind::compute, pass, op, deps);
  }
  int add_comm(const CommOp& comm, Pass pass, std::initializer_list<int> deps = {}) {
    comms_.push_back(comm);
    return add_node(NodeKind::communication, pass, static_cast<std::uint32_t>(comms_.size() - 1), deps);
  }
  // A compute op's kernels; both passes' nodes refer to it by index.
  std::uint32_t add_op(Op op) {
    ops_.push_back(std::move(op));
    return static_cast<std::uint32_t>(ops_.size() - 1);
  }
  // Empties the graph, keeping its storage (graphs are rebuilt for every prediction).
  void clear();
  // Room for `ops` ops run forward and backward and `comms` communication ops.
  void reserve(std::size_t ops, std::size_t comms);

  [[nodiscard]] const std::vector<Op>& ops() const { return ops_; }
  [[nodiscard]] const std::vector<CommOp>& comms() const { return comms_; }
  [[nodiscard]] const std::vector<Node>& nodes() const { return nodes_; }
  [[nodiscard]] const int* deps_begin(const Node& n) const { return deps_.data() + n.deps_begin; }
  [[nodiscard]] const int* deps_end(const Node& n) const { return deps_.data() + n.deps_end; }

  Recompute recompute = Recompute::none;

 private:
  int add_node(NodeKind kind, Pass pass, std::uint32_t index, std::initializer_list<int> deps) {
    Node n;
    n.kind = kind;
    n.pass = pass;
    n.index = index;
    n.deps_begin = static_cast<std::uint32_t>(deps_.size());
    for (int d : deps) {
      if (d >= 0) deps_.push_back(d);
    }
    n.deps_end = static_cast<std::uint32_t>(deps_.size());
    nodes_.push_back(n);
    return static_cast<int>(nodes_.size() - 1);
  }

  std::vector<Op> ops_;
  std::vector<CommOp> comms_;
  std::vector<Node> nodes_;
  std::vector<int> deps_;
};

}  // namespace rapidllm::model
