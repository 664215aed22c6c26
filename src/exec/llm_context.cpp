#include "exec/llm_context.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "network/analytical_collectives.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::exec {

namespace {

parallel::Degrees degrees_of(const ParallelismSpec& p, RunType run) {
  parallel::Degrees d;
  d.tp = p.tp;
  d.cp = p.cp;
  d.pp = p.pp;
  // Dense models: expert parallelism has nothing to shard (Megatron carves EP out of DP).
  d.ep = 1;
  d.dp = run == RunType::training ? p.dp : p.replica_count;
  return d;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw InfeasibleError(what);
}

}  // namespace

LlmContext::LlmContext(const HardwareSpec& hw, const LlmModelSpec& spec, const std::string& source, CostCache& costs)
    : hw_(hw),
      spec_(spec),
      dims_(model::llm_dims(spec, source)),
      degrees_(degrees_of(hw.parallelism, spec.run_type)),
      sequence_parallel_(hw.parallelism.tp_sp && hw.parallelism.tp > 1),
      dtype_(hw.sw.precision.tensor_format.dtype),
      placement_(hw.network, degrees_),
      coster_(costs.coster(hw, dtype_, hw.sw.precision.matmul.dtype)) {
  const int tp = degrees_.tp;
  require(dims_.heads % tp == 0, fmt::format("num_heads = {} is not divisible by tp = {}", dims_.heads, tp));
  require(dims_.kv_heads % tp == 0 || tp % dims_.kv_heads == 0,
          fmt::format("kv_heads = {} and tp = {}: one must divide the other", dims_.kv_heads, tp));
  require(dims_.ffn % tp == 0, fmt::format("intermediate_size = {} is not divisible by tp = {}", dims_.ffn, tp));
  require(spec.seq_len % degrees_.cp == 0,
          fmt::format("seq_len = {} is not divisible by cp = {}", spec.seq_len, degrees_.cp));
  const int chunks = degrees_.pp * (hw.parallelism.pp_schedule == PipelineSchedule::interleaved_1f1b ? hw.parallelism.vpp : 1);
  require(dims_.layers >= chunks,
          fmt::format("{} layers cannot fill pp x vpp = {} pipeline chunks", dims_.layers, chunks));
  if (spec.run_type == RunType::inference) {
    require(degrees_.cp == 1, "context parallelism (cp > 1) is not modelled for inference; set parallelism.cp: 1");
  }
}

double LlmContext::collective_s(CollectiveOp op, double bytes, Parallelism p) const {
  const auto& group = placement_.group(p);
  if (group.empty() || bytes <= 0) return 0.0;
  return network::estimate_collective(op, bytes, group, hw_.execution).time_s;
}

double LlmContext::collective_energy_j(CollectiveOp op, double bytes, Parallelism p) const {
  const auto& spans = placement_.group(p);
  if (spans.empty() || bytes <= 0) return 0.0;
  double group = 1.0;
  for (const auto& span : spans) group *= span.ranks;
  // Every rank takes part in each phase, sending the phase's bus-factor share of the
  // buffer that phase works on over that phase's dimension.
  double joules = 0.0;
  for (const auto& phase : network::estimate_collective(op, bytes, spans, hw_.execution).phases) {
    for (const auto& d : hw_.network.dimensions) {
      if (d.id == phase.dimension_id) {
        joules += group * bus_bandwidth_factor(phase.op, phase.ranks) * phase.bytes * 8.0 * d.energy_per_bit_j;
      }
    }
  }
  return joules;
}

double LlmContext::layer_tp_exchange_s(double bytes) const {
  if (sequence_parallel_) {
    return 2.0 * (collective_s(CollectiveOp::all_gather, bytes, Parallelism::tp) +
                  collective_s(CollectiveOp::reduce_scatter, bytes, Parallelism::tp));
  }
  return 2.0 * collective_s(CollectiveOp::all_reduce, bytes, Parallelism::tp);
}

double LlmContext::layer_tp_exchange_j(double bytes) const {
  if (sequence_parallel_) {
    return 2.0 * (collective_energy_j(CollectiveOp::all_gather, bytes, Parallelism::tp) +
                  collective_energy_j(CollectiveOp::reduce_scatter, bytes, Parallelism::tp));
  }
  return 2.0 * collective_energy_j(CollectiveOp::all_reduce, bytes, Parallelism::tp);
}

double LlmContext::send_recv_energy_j(double bytes, Parallelism p) const {
  const NetworkDimension* d = placement_.neighbour_dimension(p);
  return d == nullptr ? 0.0 : bytes * 8.0 * d->energy_per_bit_j;
}

double LlmContext::send_recv_s(double bytes, Parallelism p) const {
  const NetworkDimension* d = placement_.neighbour_dimension(p);
  if (d == nullptr || bytes <= 0) return 0.0;
  return network::point_to_point_s(*d, bytes);
}

double LlmContext::exposed(double comm_s, double compute_s, double fraction) {
  return comm_s - fraction * std::min(comm_s, compute_s);
}

std::vector<int> layers_per_stage(int layers, int pp, int vpp) {
  const int chunks = pp * vpp;
  std::vector<int> out(static_cast<std::size_t>(pp), 0);
  for (int c = 0; c < chunks; ++c) {
    const int in_chunk = layers / chunks + (c < layers % chunks ? 1 : 0);
    out[static_cast<std::size_t>(c % pp)] += in_chunk;
  }
  return out;
}

}  // namespace rapidllm::exec
