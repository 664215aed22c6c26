#include "api/execution_plan.hpp"

#include <spdlog/spdlog.h>

#include "parallel/batching.hpp"
#include "parallel/pipeline_schedule.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::detail {

void note_batching(const HardwareSpec& hw, const LlmModelSpec& model) {
  if (model.run_type == RunType::inference) {
    const int ep = hw.parallelism.moe_dp;
    if (model.moe.num_experts > 1 && model.global_batch_size % ep != 0) {
      spdlog::warn("parallelism.inference.moe_dp = {} does not divide global_batch_size = {}: each expert-parallel "
                   "rank serves ceil = {} sequence(s) (RAPID-LLM pads the routed tokens alike); throughput counts only "
                   "the batch's",
                   ep, model.global_batch_size, (model.global_batch_size + ep - 1) / ep);
    }
    return;
  }
  const ParallelismSpec& par = hw.parallelism;
  const int chunks = par.pp * parallel::schedule_of(par.pp_schedule).virtual_stages(par.vpp);
  if (chunks > 1 && model.num_layers >= chunks && model.num_layers % chunks != 0 &&
      par.layer_split == LayerSplit::even) {
    const int longer = model.num_layers % chunks;
    spdlog::warn("{} layers do not split evenly over pp x vpp = {} pipeline chunks: the first {} chunk(s) hold {} "
                 "layers, the other {} hold {}, and the fuller stages set the pace; pick pp (and vpp) dividing the layer "
                 "count for equal stages",
                 model.num_layers, chunks, longer, model.num_layers / chunks + 1, chunks - longer,
                 model.num_layers / chunks);
  }
  parallel::Batching b;
  try {
    b = parallel::training_batching(model, hw.parallelism);
  } catch (const InfeasibleError&) {
    return;  // the prediction reports why
  }
  if (b.padded_sequences == 0) return;
  spdlog::warn("parallelism.mb = {} does not divide the {} sequences per data-parallel rank and flush: each "
               "micro-batch takes ceil = {} sequences (RAPID-LLM's rule), so every flush computes {} padding "
               "sequence(s) beyond the batch; throughput counts only the batch's tokens",
               b.micro_batches, b.micro_batches * b.micro_batch_size - b.padded_sequences, b.micro_batch_size,
               b.padded_sequences);
}

void note_network_settings(const HardwareSpec& hw, bool simulated) {
  const ExecutionBackendSpec& e = hw.execution;
  if (simulated) {
    if (!e.collective_arbitration.empty()) {
      spdlog::warn("execution_backend.astra.sys_options.collective_arbitration = '{}' is not modelled: concurrent "
                   "collectives share every link max-min fairly; remove the key",
                   e.collective_arbitration);
    }
    return;
  }
  std::vector<std::string_view> unused;
  if (e.endpoint_delay_s != 0.0) unused.emplace_back("endpoint_delay");
  if (e.active_chunks_per_dimension != 1) unused.emplace_back("active_chunks_per_dimension");
  if (e.preferred_dataset_splits != 1) unused.emplace_back("preferred_dataset_splits");
  if (!e.collective_arbitration.empty()) unused.emplace_back("collective_arbitration");
  if (unused.empty()) return;
  spdlog::warn("execution_backend.astra.sys_options {} shape only a simulated network (execution_backend.model: astra, "
               "or collective --backend flow/ns3); the analytical network used here ignores them",
               fmt::join(unused, ", "));
}

void note_execution_mode(const HardwareSpec& hw) {
  note_network_settings(hw, hw.execution.mode != ExecutionMode::analytical);
  const ExecutionMode mode = hw.execution.mode;
  const std::size_t faults = hw.network.faulty_links.size();
  if (mode == ExecutionMode::analytical && faults > 0) {
    spdlog::warn("network.faulty_links lists {} degraded or failed link(s), but execution_backend.model is analytical: "
                 "the analytical network has no links to degrade, so this is the healthy network's prediction. Set "
                 "execution_backend.model: astra with astra.mode: full_astrasim_hierarchical (or --set "
                 "execution_backend.model=astra) to simulate them",
                 faults);
  }
  if (mode == ExecutionMode::hybrid && faults > 0) {
    spdlog::warn("execution mode hybrid times the communicators of rank 0 alone: a faulty link that none of them "
                 "crosses does not change the prediction; full_astrasim_hierarchical simulates every DP replica");
  }
}

}  // namespace rapidllm::detail
