#include "io/spec_json.hpp"

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace rapidllm::io {

namespace {

using nlohmann::json;

json precision_json(const Precision& p) { return {{"bytes", p.bytes}, {"dtype", dtype_name(p.dtype)}}; }

json algorithms_json(const std::map<CollectiveOp, CollectiveAlgorithm>& m) {
  json out = json::object();
  for (const auto& [op, alg] : m) out[std::string(to_string(op))] = to_string(alg);
  return out;
}

}  // namespace

json hardware_json(const HardwareSpec& hw) {
  const auto& p = hw.sw.precision;
  json sw = {{"framework", hw.sw.framework},
             {"stack", hw.sw.stack},
             {"compute_efficiency", hw.sw.compute_efficiency},
             {"attention_kernel", to_string(hw.sw.attention_kernel)},
             {"activation_recompute", to_string(hw.sw.recompute)},
             {"elementwise_kernels", to_string(hw.sw.elementwise_kernels)},
             {"cross_entropy", to_string(hw.sw.cross_entropy)},
             {"kernel_launch_overhead_s", hw.sw.kernel_launch_overhead_s},
             {"pipeline_transfer_stall_s", hw.sw.pipeline_transfer_stall_s},
             {"dp_zero_stage", hw.sw.dp_zero_stage},
             {"precision",
              {{"tensor_format", precision_json(p.tensor_format)}, {"matmul", precision_json(p.matmul)},
               {"kv_cache", precision_json(p.kv_cache)},
               {"parameters", precision_json(p.parameters)}, {"gradients", precision_json(p.gradients)},
               {"grad_microbatch", precision_json(p.grad_microbatch)},
               {"grad_communication", precision_json(p.grad_communication)},
               {"optimizer_states", precision_json(p.optimizer_states)}, {"stats", precision_json(p.stats)},
               {"master_parameters_bytes", p.master_parameters_bytes}}},
             {"h2d_bandwidth_bytes_per_s", hw.sw.h2d_bandwidth_bytes_per_s ? json(*hw.sw.h2d_bandwidth_bytes_per_s) : json()},
             {"const_mem_offset_bytes", hw.sw.const_mem_offset_bytes},
             {"attention_softmax_overlap",
              hw.sw.attention_softmax_overlap ? json(*hw.sw.attention_softmax_overlap) : json(nullptr)},
             {"dp_bucket_params", hw.sw.dp_bucket_params},
             {"decode_kv_passes", hw.sw.decode_kv_passes},
             {"pipelined_tp_wait_s", hw.sw.pipelined_tp_wait_s},
             {"pipelined_tp_wait_per_rank_s", hw.sw.pipelined_tp_wait_per_rank_s},
             {"zero_gather_overlap", hw.sw.zero_gather_overlap},
             {"micro_batch_overhead_s", hw.sw.micro_batch_overhead_s},
             {"expert_call_overhead_s", hw.sw.expert_call_overhead_s},
             {"dp_microbatch", hw.sw.dp_microbatch == DpMicrobatchSync::last_mb ? "last_mb" : "every_mb"}};
  json scale = json::object();
  for (const auto& [d, s] : hw.core.dtype_flop_scale) scale[std::string(dtype_name(d))] = s;
  json dtype_util = json::object();
  for (const auto& [d, u] : hw.core.dtype_util) dtype_util[std::string(dtype_name(d))] = u;
  json fused_attention = json::object();
  for (const auto& [k, f] : hw.core.attention) {
    fused_attention[std::string(to_string(k))] = {
        {"forward_util", f.forward_util},
        {"backward_util", f.backward_util},
        {"softmax_overlap", f.softmax_overlap ? json(*f.softmax_overlap) : json(nullptr)},
        {"forward_cta_fill", f.forward_cta_fill},
        {"backward_cta_fill", f.backward_cta_fill}};
  }
  json core = {{"frequency_hz", hw.core.frequency_hz},
               {"num_sms", hw.core.num_sms},
               {"tensor_cores_per_sm", hw.core.tensor_cores_per_sm},
               {"flop_per_cycle_per_tensor_core", hw.core.flop_per_cycle_per_tensor_core},
               {"energy_per_flop_j", hw.core.energy_per_flop_j},
               {"fma_d1", hw.core.fma_d1},
               {"fma_d2", hw.core.fma_d2},
               {"dataflow", hw.core.dataflow},
               {"mma_threads", hw.core.mma_threads},
               {"max_cluster_size", hw.core.max_cluster_size},
               {"static_power_w", hw.core.static_power_w},
               {"max_power_w", hw.core.max_power_w},
               {"sfu_ops_per_cycle_per_sm", hw.core.sfu_ops_per_cycle_per_sm},
               {"fp32_ops_per_cycle_per_sm", hw.core.fp32_ops_per_cycle_per_sm},
               {"util", hw.core.util},
               {"dtype_flop_scale", scale},
               {"dtype_util", dtype_util},
               {"fused_attention", fused_attention}};
  // Only when set: an uncapped device keeps the config hash it always had.
  if (hw.core.power_limit_w > 0.0) core["power_limit_w"] = hw.core.power_limit_w;
  json memory = json::array();
  for (const auto& m : hw.memory) {
    memory.push_back({{"name", m.name},
                      {"scope", m.scope == MemoryScope::mcu ? "mcu" : m.scope == MemoryScope::mcu_bundle ? "mcu-bundle" : "global"},
                      {"size_bytes", m.size_bytes},
                      {"bandwidth_bytes_per_s", m.bandwidth_bytes_per_s},
                      {"dynamic_energy_per_bit_j", m.dynamic_energy_per_bit_j},
                      {"latency_s", m.latency_s},
                      {"util", m.util}});
  }
  const auto& par = hw.parallelism;
  json parallelism = {{"auto", par.auto_search}, {"tp", par.tp}, {"tp_sp", par.tp_sp}, {"cp", par.cp},
                      {"pp", par.pp}, {"mb", par.mb}, {"dp", par.dp}, {"ep", par.ep}, {"tp_ep", par.tp_ep},
                      {"replica_count", par.replica_count}, {"moe_dp", par.moe_dp},
                      {"pp_schedule", to_string(par.pp_schedule)}, {"vpp", par.vpp},
                      {"micro_batch_size", par.micro_batch_size ? json(*par.micro_batch_size) : json()}};
  json dims = json::array();
  for (const auto& d : hw.network.dimensions) {
    json ps = json::array();
    for (auto q : d.parallelisms) ps.push_back(to_string(q));
    json dim = {{"id", d.id},
                {"size", d.size.empty() ? json("auto") : json(d.size)},
                {"topology", to_string(d.topology)},
                {"bandwidth_bytes_per_s", d.bandwidth_bytes_per_s},
                {"latency_s", d.latency_s},
                {"energy_per_bit_j", d.energy_per_bit_j},
                {"util", d.util},
                {"gpus_per_nic", d.gpus_per_nic},
                {"parallelisms", ps},
                {"collective_override", algorithms_json(d.collective_override)}};
    for (const auto& proto : d.protocols) {
      dim["protocols"][std::string(to_string(proto.protocol))] = {{"latency_s", proto.latency_s},
                                                                   {"step_latency_s", proto.step_latency_s},
                                                                   {"bandwidth_fraction", proto.bandwidth_fraction}};
      if (std::isfinite(proto.max_bandwidth_bytes_per_s)) {
        dim["protocols"][std::string(to_string(proto.protocol))]["max_bandwidth_bytes_per_s"] =
            proto.max_bandwidth_bytes_per_s;
      }
    }
    if (d.superpod) {
      dim["superpod"] = {{"variant", d.superpod->variant},
                         {"leaf_size", d.superpod->leaf_size},
                         {"leaf_switches_per_su", d.superpod->leaf_switches_per_su},
                         {"spine_switches_per_su", d.superpod->spine_switches_per_su}};
    }
    dims.push_back(dim);
  }
  json links = json::array();
  for (const auto& l : hw.network.faulty_links) links.push_back({l.src, l.dst, l.weight});
  json network = {{"dimensions", dims},
                  {"faulty_links", links},
                  {"overlap",
                   {{"tp_overlap", hw.network.overlap.tp_overlap},
                    {"tp_sp_overlap", hw.network.overlap.tp_sp_overlap},
                    {"cp_overlap", hw.network.overlap.cp_overlap},
                    {"ep_overlap", hw.network.overlap.ep_overlap}}}};
  json execution = {{"mode", to_string(hw.execution.mode)},
                    {"collectives", algorithms_json(hw.execution.collectives)},
                    {"active_chunks_per_dimension", hw.execution.active_chunks_per_dimension}};
  return {{"sw", sw},           {"core", core},         {"memory", memory},
          {"parallelism", parallelism}, {"network", network}, {"execution", execution},
          {"kvcache_type", hw.kvcache_type}};
}

json model_json(const ModelSpec& model) {
  if (const auto* g = std::get_if<GemmModelSpec>(&model.workload)) {
    return {{"mode", "GEMM"}, {"m", g->m}, {"k", g->k}, {"n", g->n}, {"backward", g->backward},
            {"shard_axis", to_string(g->shard_axis)}};
  }
  const auto& l = std::get<LlmModelSpec>(model.workload);
  const auto& a = l.attention;
  json out = {{"mode", "LLM"},
          {"run_type", to_string(l.run_type)},
          {"model_type", l.model_type},
          {"tied_embeddings", l.tied_embeddings},
          {"global_batch_size", l.global_batch_size},
          {"gradient_accumulation_steps", l.gradient_accumulation_steps},
          {"seq_len", l.seq_len},
          {"decode_len", l.decode_len},
          {"hidden_dim", l.hidden_dim},
          {"intermediate_size", l.intermediate_size},
          {"vocab_size", l.vocab_size},
          {"num_layers", l.num_layers},
          {"attention",
           {{"type", a.type == AttentionType::mha ? "mha" : a.type == AttentionType::gqa ? "gqa" : "mla"},
            {"num_heads", a.num_heads}, {"kv_heads", a.kv_heads},
            {"head_dim", a.head_dim ? json(*a.head_dim) : json()},
            {"use_flash_attention", a.use_flash_attention},
            {"tile_size", a.tile_size ? json(*a.tile_size) : json()},
            {"kv_lora_rank", a.kv_lora_rank}, {"q_lora_rank", a.q_lora_rank},
            {"qk_nope_head_dim", a.qk_nope_head_dim}, {"qk_rope_head_dim", a.qk_rope_head_dim},
            {"v_head_dim", a.v_head_dim}}},
          {"moe",
           {{"num_experts", l.moe.num_experts}, {"top_k", l.moe.top_k},
            {"moe_intermediate_size", l.moe.moe_intermediate_size}, {"n_shared_experts", l.moe.n_shared_experts},
            {"expert_imbalance_factor", l.moe.expert_imbalance_factor}, {"moe_layer_freq", l.moe.moe_layer_freq},
            {"first_k_dense_replace", l.moe.first_k_dense_replace}}}};
  // Only when set, so that full-attention configs keep their resolved form (and hash).
  if (a.sliding_window > 0) {
    out["attention"]["sliding_window"] = a.sliding_window;
    if (a.global_every > 0) out["attention"]["global_every"] = a.global_every;
  }
  return out;
}

std::string config_hash(const nlohmann::json& resolved) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : resolved.dump()) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

}  // namespace rapidllm::io
