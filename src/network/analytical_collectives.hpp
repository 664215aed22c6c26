// Closed-form (alpha-beta) collective times per network dimension and their hierarchical
// composition across dimensions. No congestion: each dimension's links are assumed to
// carry only this collective. The flow-level simulator (later) refines this.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "rapidllm/collective.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::network {

// The algorithm used on a dimension: the dimension's collective_override, else the
// execution_backend default, and `auto` resolved from the topology (as NCCL would).
[[nodiscard]] CollectiveAlgorithm resolve_algorithm(CollectiveOp op, int ranks,
                                                    const NetworkDimension& dimension,
                                                    const ExecutionBackendSpec& defaults);

// The phase of `bytes` as NCCL would run it: resolve_algorithm's algorithm (where `auto`
// resolved to nvls, the faster of ring and nvls at this size; an explicit nvls stays nvls)
// under its fastest protocol.
[[nodiscard]] CollectivePhase best_phase(CollectiveOp op, double bytes, int ranks, const NetworkDimension& dimension,
                                         const ExecutionBackendSpec& defaults);

// best_phase's algorithm.
[[nodiscard]] CollectiveAlgorithm choose_algorithm(CollectiveOp op, double bytes, int ranks,
                                                   const NetworkDimension& dimension,
                                                   const ExecutionBackendSpec& defaults);

// The per-rank rate a group of `ranks` gets on the dimension: bandwidth x util (SuperPOD:
// capped by the spine share when the group spans leaves).
[[nodiscard]] double dimension_rate(const NetworkDimension& dimension, int ranks);

// What a protocol makes of that rate: its bandwidth_fraction, under its max_bandwidth.
[[nodiscard]] double protocol_rate(double dimension_rate, const ProtocolSpec& protocol);

// The dimension's protocols (its configured list, or the single implicit alpha-beta one:
// no fixed latency, `latency` per step, the whole bandwidth), iterable without allocating.
class ProtocolList {
 public:
  explicit ProtocolList(const NetworkDimension& dimension);
  ProtocolList(const ProtocolList&) = delete;  // list_ may point into implicit_
  ProtocolList& operator=(const ProtocolList&) = delete;
  [[nodiscard]] auto begin() const { return list_.begin(); }
  [[nodiscard]] auto end() const { return list_.end(); }

 private:
  ProtocolSpec implicit_;
  std::span<const ProtocolSpec> list_;
};

// One collective of `bytes` (nccl-tests size: the per-rank buffer) among `ranks` peers of
// one dimension, under the fastest of the dimension's protocols (recorded in the phase).
// Throws InfeasibleError for an algorithm the topology cannot run.
[[nodiscard]] CollectivePhase time_on_dimension(CollectiveOp op, CollectiveAlgorithm algorithm,
                                                double bytes, int ranks,
                                                const NetworkDimension& dimension);

// One message of `bytes` to a neighbour on the dimension (a pipeline send): one step under
// the fastest protocol.
[[nodiscard]] double point_to_point_s(const NetworkDimension& dimension, double bytes);

// One phase of a collective over several dimensions, as the flat ring sees it.
struct RingPhaseSteps {
  int ranks = 1;
  double step_latency_s = 0.0;  // its protocol's per-step latency
  double time_s = 0.0;          // the phase alone, as estimate_collective charges it
  bool ring = true;             // a ring on a switched or Ring dimension (not 2-D, not nvls/direct/...)
};

struct FlatRingLatency {
  std::size_t phase = 0;  // the phase that carries it: the one with the slowest step
  double extra_s = 0.0;
};

// NCCL has no hierarchical all-gather or reduce-scatter: over several dimensions it runs one
// ring through all n ranks, and the ring moves in lock-step, each of its n - 1 steps lasting
// at least its slowest hop's step latency. The per-dimension phases carry the ring's bytes;
// when their sum is below that floor, (n - 1) x the slowest step latency, the collective
// lasts the floor: `extra_s` is the difference. Zero for other ops, one phase, or a phase
// that is not a ring. (All-reduce keeps the hierarchical composition: NCCL's tree, its pick
// where latency matters, is hierarchical too.)
[[nodiscard]] FlatRingLatency flat_ring_latency(CollectiveOp op, std::span<const RingPhaseSteps> phases);

// A collective over a group spanning several dimensions (innermost first), composed
// hierarchically: e.g. all-reduce = reduce-scatter inward-out, all-reduce on the
// outermost dimension on the shrunken buffer, all-gather back out-in; an all-gather or
// reduce-scatter lasts at least its flat ring's latency (flat_ring_latency).
[[nodiscard]] CollectiveEstimate estimate_collective(CollectiveOp op, double bytes,
                                                     const std::vector<GroupSpan>& group,
                                                     const ExecutionBackendSpec& defaults);

}  // namespace rapidllm::network
