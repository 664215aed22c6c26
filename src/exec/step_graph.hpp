// One training step as programs: every rank of a pipeline stage runs the same program (its
// DP replicas, TP and CP ranks are identical), so the graph holds one program per stage and
// says which cluster ranks run which. A program lists its nodes in issue order: each
// resource of a rank (the compute stream, one channel per communicator) takes its nodes in
// that order, a node starting once its dependencies (same stage) have finished; a recv
// also waits for the matching send of the peer stage's rank. The pipeline schedule is
// only this order: bubbles come out of the dependencies.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/op_graph.hpp"
#include "rapidllm/collective.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::exec {

enum class StepNodeKind : std::uint8_t { compute, collective, send, recv };

struct StepNode {
  StepNodeKind kind = StepNodeKind::compute;
  std::uint32_t name = 0;  // index into StepGraph::names, e.g. "L12.mb3.fwd.qkv_proj"
  model::Pass pass = model::Pass::forward;
  int layer = -1;          // -1: not inside a transformer layer (embedding, head, optimizer, sync)
  int micro_batch = -1;    // -1: once per step (gradient synchronisation, optimizer)
  int chunk = 0;           // virtual pipeline chunk (interleaved schedules)
  model::OpClass cls = model::OpClass::elementwise;  // compute: breakdown category
  bool recompute = false;  // compute: forward work repeated in backward
  bool weight_grad = false;  // compute: a zero-bubble weight-gradient pass (W)
  // compute: no kernel, the host blocked for duration_s on the communication of `purpose`:
  // a pipeline transfer's handshake (sw_param.pipeline_transfer_stall, pp) or what a
  // layer's TP collectives hold it beyond its kernels (sw_param.pipelined_tp_wait, tp). The
  // stream launches nothing meanwhile; charged as that purpose's exposed time.
  bool host_wait = false;
  // A parameter all-gather after the optimizer: it overlaps the next step's first forward,
  // so only what outlasts that forward (or its last bucket) is part of this step.
  bool next_step = false;
  // compute: kernel time on one rank of the stage (recomputation included where it runs).
  double duration_s = 0.0;
  double flops = 0.0;      // compute: floating-point operations on one rank (Chakra num_ops)
  // compute: bytes the kernel reads and writes in HBM (Chakra tensor_size);
  // collective: nccl-tests size; send/recv: message bytes.
  double bytes = 0.0;
  CollectiveOp op = CollectiveOp::all_reduce;  // collective
  Parallelism group = Parallelism::tp;         // collective: communicator; send/recv: pp
  model::CommPurpose purpose = model::CommPurpose::tp;
  // A communication op a consumer does not wait for in full: the consumer may start once
  // (1 - overlap) of it is done, the rest runs beside it (the configured overlap fraction
  // as real overlap).
  double overlap = 0.0;
  int peer_stage = -1;     // send: receiving stage; recv: sending stage
  int tag = 0;             // a send and its recv carry the same tag
  std::uint32_t deps_begin = 0;  // [deps_begin, deps_end) in StageProgram::deps: node ids
  std::uint32_t deps_end = 0;    //   of the same program
};

struct StageProgram {
  std::vector<StepNode> nodes;      // issue order
  std::vector<std::uint32_t> deps;  // flat dependency lists
};

struct StepGraph {
  std::vector<StageProgram> stages;  // one per pipeline stage
  std::vector<std::string> names;
  int num_ranks = 1;
  int pp = 1;
  int pp_stride = 1;  // rank distance between neighbouring stages (ranks numbered tp fastest)
  // Per parallelism (index static_cast<size_t>(Parallelism)): which network dimensions
  // (innermost first) its communicator spans (Chakra involved_dim).
  std::array<std::vector<bool>, 5> involved_dims{};

  [[nodiscard]] int stage_of_rank(int rank) const { return (rank / pp_stride) % pp; }
  // The rank of stage `stage` that exchanges pipeline messages with `rank`.
  [[nodiscard]] int peer_rank(int rank, int stage) const {
    return rank + (stage - stage_of_rank(rank)) * pp_stride;
  }
  [[nodiscard]] std::size_t node_count() const {
    std::size_t n = 0;
    for (const auto& s : stages) n += s.nodes.size();
    return n;
  }
};

}  // namespace rapidllm::exec
