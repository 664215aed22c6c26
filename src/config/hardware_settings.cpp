// Settings of a hardware file (RAPID-LLM schema + rapidllm extensions, marked "[rapidllm]").
#include <deque>
#include <string>

#include <fmt/format.h>

#include "config/settings_tables.hpp"
#include "rapidllm/software_stack.hpp"

namespace rapidllm::config {

namespace {

constexpr auto H = ConfigFile::hardware;
constexpr double kInf = std::numeric_limits<double>::infinity();

const std::vector<std::string_view> kAlgorithms = {
    "auto", "ring", "direct", "halvingDoubling", "doubleBinaryTree", "mesh", "mesh2d", "hypercube", "torus2d", "nvls"};
const std::vector<std::string_view> kAsTensorFormat = {"as_tensor_format"};

Setting precision(std::string_view path, std::string_view doc) {
  // At least half a byte (FP4): a zero-byte format would make its memory and traffic vanish.
  return {path, H, ValueKind::precision, "B", "as_tensor_format", doc, {}, 0.5, 8.0, false, kAsTensorFormat};
}

Setting memory_field(std::string_view path, ValueKind kind, std::string_view unit,
                     std::optional<std::string_view> def, std::string_view doc, double min = 0.0,
                     double max = kInf) {
  return {path, H, kind, unit, def, doc, {}, min, max};
}

// tech_param.core.fused_attention.<family>.<field>: a kernel family measured per pass (the
// alternative to attention_util.<family>'s one share). Paths must outlive the registry.
enum class FusedField { matmul_share, softmax_overlap, cta_fill };

Setting fused_attention_field(std::string_view family, std::string_view field, FusedField kind, std::string_view what) {
  static std::deque<std::string> paths;
  static std::deque<std::string> docs;
  const std::string& path = paths.emplace_back(fmt::format("tech_param.core.fused_attention.{}.{}", family, field));
  const std::string& doc = docs.emplace_back(fmt::format(
      "[rapidllm] {} kernels ({}) measured on this GPU: {} (not with attention_util.{})",
      family == "flash2" ? "FlashAttention-2-class" : "FlashAttention-3-class", family, what, family));
  switch (kind) {
    case FusedField::matmul_share: return {path, H, ValueKind::real, "", "null", doc, {}, 1e-3, 1.0, true};
    case FusedField::softmax_overlap: return {path, H, ValueKind::real, "", "null", doc, {}, 0.0, 1.0, true};
    case FusedField::cta_fill: break;
  }
  return {path, H, ValueKind::real, "", "0", doc, {}, 0.0, 64.0};  // tile iterations per CTA
}

std::vector<std::string_view> framework_choices() {
  std::vector<std::string_view> out{kAutoFramework};
  for (auto name : software_stack_names()) out.push_back(name);
  return out;
}

}  // namespace

std::vector<Setting> hardware_settings() {
  return {
      // ---- software ----
      {"sw_param.full_recomputation", H, ValueKind::boolean, "", "false",
       "recompute every layer's forward during backward (activation checkpointing)"},
      {"sw_param.activation_recompute", H, ValueKind::choice, "", "auto",
       "[rapidllm] activations recomputed in backward: none, selective (attention core), full, op (torchtitan's "
       "selective op checkpointing: every second matmul and every non-matmul op but attention); auto = "
       "full_recomputation ? full : selective",
       {"auto", "none", "selective", "full", "op"}},
      {"sw_param.framework", H, ValueKind::choice, "", "auto",
       "[rapidllm] software-stack profile (docs/software-stacks.md): what share of the kernels' speed the "
       "framework's step sustains and its launch gap; auto = megatron-core for training, tensorrt-llm for "
       "inference",
       framework_choices()},
      {"sw_param.compute_efficiency", H, ValueKind::real, "", "null",
       "[rapidllm] share of the device's kernel-level tensor-core rate the stack's step sustains (absent: the "
       "framework profile's)", {}, 1e-3, 1.0, true},
      {"sw_param.attention_kernel", H, ValueKind::choice, "", "auto",
       "[rapidllm] fused-attention kernel family the stack runs: flash2 (FlashAttention-2 class), flash3 "
       "(FlashAttention-3 / cuDNN class), triton (flash-attn's Triton FlashAttention with a bias, MPT's "
       "attn_impl: triton); auto = the framework profile's",
       {"auto", "flash2", "flash3", "triton"}},
      {"sw_param.kernel_launch_overhead", H, ValueKind::duration, "s", "null",
       "host-side cost of launching one kernel (absent: the framework profile's)", {}, 0.0, 1e-2, true},
      {"sw_param.pipeline_transfer_stall", H, ValueKind::duration, "s", "null",
       "[rapidllm] host time the pipeline engine blocks on each activation / gradient send and receive between "
       "stages, launching nothing meanwhile (absent: the framework profile's; 0 = asynchronous transfers)",
       {}, 0.0, 10.0, true},
      {"sw_param.dp_zero_stage", H, ValueKind::integer, "", "0",
       "ZeRO stage of data parallelism: 0 = DDP, 1 = optimizer, 2 = +gradients, 3 = +parameters", {}, 0, 3},
      {"sw_param.precision.tensor_format", H, ValueKind::precision, "B", "bf16",
       "activation / compute format (bytes per element or dtype)", {}, 0.5, 8.0},
      precision("sw_param.precision.matmul",
                "[rapidllm] GEMM operand format (fp8 for FP8 training recipes; activations stay in tensor_format)"),
      precision("sw_param.precision.kv_cache", "KV-cache element format"),
      precision("sw_param.precision.parameters", "model parameter format"),
      precision("sw_param.precision.gradients", "accumulated gradient format"),
      {"sw_param.precision.grad_microbatch", H, ValueKind::precision, "B", "as_gradients",
       "format a layer's weight gradients leave backward in before they are added into the gradient buffer; another "
       "format than `gradients` holds them in a buffer of their own (the largest layer's); as_gradients = written "
       "straight into it (Megatron's gradient_accumulation_fusion)",
       {}, 0.5, 8.0, false, {"as_tensor_format", "as_gradients"}},
      precision("sw_param.precision.grad_communication", "gradient collective format"),
      precision("sw_param.precision.optimizer_states", "optimizer state format (per state)"),
      precision("sw_param.precision.stats", "normalisation statistics format"),
      {"sw_param.precision.master_parameters", H, ValueKind::precision, "B", "0",
       "bytes per parameter of the master weight copy (0 = none)", {}, 0.0, 8.0},
      {"sw_param.h2d_bandwidth", H, ValueKind::bandwidth, "B/s", "-1",
       "host-to-device bandwidth; -1 disables host-to-device timing", {}, 0.0, kInf, false, {"-1"}},
      {"sw_param.const_mem_offset", H, ValueKind::size, "B", "0",
       "constant per-GPU memory added to the peak (framework reservations)", {}, 0.0, 1e15},
      {"sw_param.attention_softmax_overlap", H, ValueKind::real, "", "null",
       "[rapidllm] share of fused attention's softmax hidden under its matmuls (FlashAttention-2: 0, -3: 1); absent: "
       "the device's measured value for the kernel family (tech_param.core.fused_attention), else 0",
       {}, 0.0, 1.0, true},
      {"sw_param.dp_bucket_params", H, ValueKind::real, "", "null",
       "[rapidllm] parameters per data-parallel gradient bucket, reduced while backward still runs (absent: the "
       "framework profile's; Megatron-LM's 40M, megatron-lm-2020 and megatron-deepspeed one bucket of every gradient "
       "after backward)",
       {}, 1.0, 1e15, true},
      {"sw_param.decode_kv_passes", H, ValueKind::real, "", "null",
       "[rapidllm] HBM passes a decode step's attention makes over each KV head's cache: 1 when its query heads "
       "share one read, up to the group size when each reads it (absent: the framework profile's)",
       {}, 1.0, 1024.0, true},
      {"sw_param.pipelined_tp_wait", H, ValueKind::duration, "s", "null",
       "[rapidllm] host wait on each tensor-parallel collective while the pipeline's stages span nodes; a layer's "
       "pass lasts at least its TP collectives' waits (absent: the framework profile's; 0 = none)",
       {}, 0.0, 1.0, true},
      {"sw_param.pipelined_tp_wait_per_rank", H, ValueKind::duration, "s", "null",
       "[rapidllm] what that wait adds per tensor-parallel rank beyond the first (absent: the framework profile's)",
       {}, 0.0, 1.0, true},
      {"sw_param.micro_batch_overhead", H, ValueKind::duration, "s", "null",
       "[rapidllm] host time the trainer adds to every micro-batch with the GPUs idle (its per-micro-batch "
       "bookkeeping and synchronisation; training only; absent: the framework profile's)",
       {}, 0.0, 100.0, true},
      {"sw_param.expert_call_overhead", H, ValueKind::duration, "s", "null",
       "[rapidllm] host time of each per-expert call of a mixture-of-experts layer (Transformer Engine's "
       "GroupedLinear: a quantize and a GEMM call per local expert); a pass over the experts lasts at least "
       "calls x this (absent: the framework profile's; 0 = one grouped kernel)",
       {}, 0.0, 1e-2, true},
      {"sw_param.zero_gather_overlap", H, ValueKind::boolean, "", "null",
       "[rapidllm] ZeRO >= 1: whether the parameter all-gather after the optimizer runs behind the next step's "
       "forward (true: Megatron's distributed optimizer) or before the next step starts (false: nanotron's "
       "optimizer.step()) (absent: the framework profile's)",
       {}, 0.0, 0.0, true},
      {"sw_param.cross_entropy", H, ValueKind::choice, "", "auto",
       "[rapidllm] the loss's cross-entropy over the vocabulary: fused (one kernel over the 16-bit logits that "
       "writes their gradient in place: Transformer Engine's, flash-attn's), megatron (Megatron-Core's "
       "vocabulary-parallel cross-entropy on an fp32 copy of the logits, its steps compiled: "
       "--cross-entropy-loss-fusion), megatron-unfused (the same steps one PyTorch op each: Megatron-LM's default) "
       "or eager (F.cross_entropy on an fp32 upcast: the log-softmax output and its gradient are tensors of their "
       "own); auto = the framework profile's",
       {"auto", "fused", "megatron", "megatron-unfused", "eager"}},
      {"sw_param.elementwise_kernels", H, ValueKind::choice, "", "fused",
       "[rapidllm] how the stack runs norms, gated activations and rotary embeddings: fused (Transformer Engine, "
       "torch.compile, Triton: one pass each) or eager (PyTorch ops one kernel at a time, fp32 upcasts: a Python "
       "RMSNorm, SiLU then multiply, rotary in fp32)",
       {"fused", "eager"}},
      {"sw_param.dp_microbatch", H, ValueKind::choice, "", "every_mb",
       "when data-parallel gradients are synchronised", {"every_mb", "last_mb"}},

      // ---- compute core ----
      {"tech_param.core.operating_frequency", H, ValueKind::frequency, "Hz", std::nullopt,
       "sustained SM clock under tensor-core load", {}, 1e6, 1e11},
      {"tech_param.core.num_bundles", H, ValueKind::integer, "", std::nullopt, "number of SMs", {}, 1, 1e6},
      {"tech_param.core.nominal_flop_rate_per_mcu", H, ValueKind::real, "FLOP/cycle", std::nullopt,
       "dense 16-bit FLOP per clock per tensor core", {}, 1e-3, 1e9},
      {"tech_param.core.nominal_energy_per_flop", H, ValueKind::real, "J", std::nullopt,
       "dynamic energy of one FLOP", {}, 0.0, 1e-6},
      {"tech_param.core.num_mcu_per_bundle", H, ValueKind::integer, "", std::nullopt,
       "tensor cores per SM", {}, 1, 1024},
      {"tech_param.core.FMA_d1", H, ValueKind::integer, "", std::nullopt,
       "tensor-core MMA shape d1 (d1 x d2 x d1 per clock)", {}, 1, 1024},
      {"tech_param.core.FMA_d2", H, ValueKind::integer, "", std::nullopt,
       "tensor-core MMA shape d2", {}, 1, 1024},
      {"tech_param.core.dtype_util.fp8", H, ValueKind::real, "", "null",
       "[rapidllm] achievable fraction of the fp8 peak (absent: core.util)", {}, 1e-3, 1.0, true},
      {"tech_param.core.dtype_util.fp32", H, ValueKind::real, "", "null",
       "[rapidllm] achievable fraction of the fp32 peak (absent: core.util)", {}, 1e-3, 1.0, true},
      {"tech_param.core.attention_util.flash2", H, ValueKind::real, "", "null",
       "[rapidllm] share of the 16-bit peak FlashAttention-2-class kernels' matmuls sustain (absent: core.util)", {},
       1e-3, 1.0, true},
      {"tech_param.core.attention_util.flash3", H, ValueKind::real, "", "null",
       "[rapidllm] share of the 16-bit peak FlashAttention-3-class kernels' matmuls sustain (absent: flash2's)", {},
       1e-3, 1.0, true},
      {"tech_param.core.attention_util.triton", H, ValueKind::real, "", "null",
       "[rapidllm] share of the 16-bit peak flash-attn's Triton FlashAttention (with a bias: MPT's ALiBi) sustains, "
       "its softmax included (absent: flash2's)", {}, 1e-3, 1.0, true},
      fused_attention_field("flash2", "forward_util", FusedField::matmul_share,
                            "share of the 16-bit peak the forward kernel's matmuls sustain"),
      fused_attention_field("flash2", "backward_util", FusedField::matmul_share,
                            "share of the 16-bit peak the backward kernel's matmuls sustain"),
      fused_attention_field("flash2", "softmax_overlap", FusedField::softmax_overlap,
                            "share of the softmax hidden under the matmuls"),
      fused_attention_field("flash2", "forward_cta_fill", FusedField::cta_fill,
                            "fixed time per forward CTA, in tile iterations"),
      fused_attention_field("flash2", "backward_cta_fill", FusedField::cta_fill,
                            "fixed time per backward CTA, in tile iterations"),
      fused_attention_field("flash3", "forward_util", FusedField::matmul_share,
                            "share of the 16-bit peak the forward kernel's matmuls sustain"),
      fused_attention_field("flash3", "backward_util", FusedField::matmul_share,
                            "share of the 16-bit peak the backward kernel's matmuls sustain"),
      fused_attention_field("flash3", "softmax_overlap", FusedField::softmax_overlap,
                            "share of the softmax hidden under the matmuls"),
      fused_attention_field("flash3", "forward_cta_fill", FusedField::cta_fill,
                            "fixed time per forward CTA, in tile iterations"),
      fused_attention_field("flash3", "backward_cta_fill", FusedField::cta_fill,
                            "fixed time per backward CTA, in tile iterations"),
      {"tech_param.core.mma_threads", H, ValueKind::integer, "", "32",
       "[rapidllm] threads issuing one MMA and sharing its operands: 32 (warp, mma.sync) or 128 "
       "(warpgroup, Hopper wgmma)", {}, 32, 128},
      {"tech_param.core.max_cluster_size", H, ValueKind::integer, "", "1",
       "[rapidllm] CTAs per thread-block cluster sharing operand tiles by multicast (1 = none; Hopper: 8 portable)",
       {}, 1, 16},
      {"tech_param.core.sfu_ops_per_cycle_per_sm", H, ValueKind::real, "op/cycle", "16",
       "[rapidllm] special-function (exp2) results per clock per SM (CUDA guide: 16 for compute capability 7.x-9.0)",
       {}, 1e-3, 1e6},
      {"tech_param.core.fp32_ops_per_cycle_per_sm", H, ValueKind::real, "op/cycle", "64",
       "[rapidllm] FP32 add/multiply/FMA results per clock per SM (CUDA guide: 64 on 8.0, 128 on 9.0)", {}, 1e-3, 1e6},
      {"tech_param.core.static_power", H, ValueKind::real, "W", "0",
       "[rapidllm] power drawn regardless of work (idle/leakage), per GPU; 0 = not described", {}, 0.0, 1e5},
      {"tech_param.core.max_power", H, ValueKind::real, "W", "0",
       "[rapidllm] board power limit (TDP), per GPU; predictions above it warn; 0 = not described", {}, 0.0, 1e5},
      {"tech_param.core.power_limit", H, ValueKind::real, "W", "null",
       "[rapidllm] an enforced power cap below max_power (nvidia-smi -pl): compute-bound kernels clock down as "
       "((limit - static_power) / (max_power - static_power))^(1/3); absent = max_power",
       {}, 0.0, 1e5, true},
      {"tech_param.core.dataflow", H, ValueKind::choice, "", "best",
       "GEMM dataflow: `best`, the tile search's fastest schedule (the only one modelled: RAPID-LLM's fixed "
       "weight/activation/output-stationary choices wst/ast/ost are refused, not silently replaced)",
       {"best"}},
      {"tech_param.core.util", H, ValueKind::real, "", "1.0",
       "achievable fraction of the tensor-core peak", {}, 1e-3, 1.0},
      {"tech_param.core.dtype_flop_scale.fp8", H, ValueKind::real, "", "null",
       "[rapidllm] fp8 tensor-core rate relative to 16-bit (absent = fp8 not supported)", {}, 1e-3, 64.0, true},
      {"tech_param.core.dtype_flop_scale.fp32", H, ValueKind::real, "", "null",
       "[rapidllm] fp32 (TF32 tensor-core or FMA) rate relative to 16-bit (absent = not described)",
       {}, 1e-3, 64.0, true},

      // ---- memory levels: tech_param.<memory>, named by memory_hierarchy.<level>.type ----
      // At least 1 KiB: a smaller memory is a unit slip (0.5 meant as MiB), not a device.
      memory_field("tech_param.<memory>.size", ValueKind::size, "B", std::nullopt,
                   "capacity (whole chip; per SM with per_sm)", 1024.0),
      memory_field("tech_param.<memory>.bandwidth", ValueKind::bandwidth, "B/s", std::nullopt,
                   "aggregate bandwidth (whole chip; per SM with per_sm)"),
      memory_field("tech_param.<memory>.dynamic_energy_per_bit", ValueKind::real, "J/bit", "0",
                   "energy per bit moved", 0.0, 1e-6),
      memory_field("tech_param.<memory>.latency", ValueKind::duration, "s", "0", "access latency", 0.0, 1e-2),
      memory_field("tech_param.<memory>.util", ValueKind::real, "", "1.0",
                   "achievable fraction of the bandwidth", 1e-3, 1.0),
      {"tech_param.<memory>.per_sm", H, ValueKind::boolean, "", "false",
       "[rapidllm] size and bandwidth are per SM (multiplied by core.num_bundles), so a design sweep over the SM "
       "count scales shared memory and registers with it; false = whole chip (RAPID-LLM)"},
      {"memory_hierarchy.<level>.type", H, ValueKind::string, "", std::nullopt,
       "which tech_param memory this level is (levels l0, l1, ... innermost first)"},
      {"memory_hierarchy.<level>.scope", H, ValueKind::choice, "", std::nullopt,
       "sharing scope of the level", {"mcu", "mcu-bundle", "global"}},

      // ---- parallelism ----
      {"parallelism.auto", H, ValueKind::boolean, "", "false", "let rapidllm choose the parallelism"},
      {"parallelism.tp", H, ValueKind::integer, "", "1", "tensor-parallel degree", {}, 1, 1e6},
      {"parallelism.tp_sp", H, ValueKind::boolean, "", "false", "sequence parallelism with TP"},
      {"parallelism.cp", H, ValueKind::integer, "", "1", "context-parallel degree", {}, 1, 1e6},
      {"parallelism.pp", H, ValueKind::integer, "", "1", "pipeline stages", {}, 1, 1e6},
      {"parallelism.mb", H, ValueKind::integer, "", "1", "micro-batches per step", {}, 1, 1e9},
      {"parallelism.train.dp", H, ValueKind::integer, "", "1", "data-parallel degree", {}, 1, 1e9},
      {"parallelism.train.ep", H, ValueKind::integer, "", "1", "expert-parallel degree", {}, 1, 1e6},
      {"parallelism.train.tp_ep", H, ValueKind::boolean, "", "true",
       "TP also shards experts (else TP and EP apply separately to attention and FFN)"},
      {"parallelism.inference.replica_count", H, ValueKind::integer, "", "1",
       "independent model replicas (throughput scaling)", {}, 1, 1e9},
      {"parallelism.inference.moe_dp", H, ValueKind::integer, "", "1",
       "inference expert pool expansion (EP = tp x moe_dp)", {}, 1, 1e6},
      {"parallelism.pp_schedule", H, ValueKind::choice, "", "1f1b", "[rapidllm] pipeline schedule",
       {"gpipe", "1f1b", "interleaved_1f1b", "zero_bubble", "dualpipe"}},
      {"parallelism.vpp", H, ValueKind::integer, "", "1", "[rapidllm] virtual pipeline stages per rank", {}, 1, 1024},
      {"parallelism.layer_split", H, ValueKind::choice, "", "even",
       "[rapidllm] layers per pipeline stage: even (Megatron) or compute_balanced (nanotron: stages balanced "
       "by compute, the LM head counted; training, one chunk per stage)",
       {"even", "compute_balanced"}},
      {"parallelism.micro_batch_size", H, ValueKind::integer, "", "null",
       "[rapidllm] sequences per micro-batch (default: derived from global batch / (dp x mb))",
       {}, 1, 1e9, true},

      // ---- network ----
      as_metadata({"network.dimensions[].id", H, ValueKind::string, "", std::nullopt,
                   "unique dimension name (reports name the dimension by it)"}),
      as_metadata({"network.dimensions[].label", H, ValueKind::string, "", "\"\"", "free-text description"}),
      {"network.dimensions[].size", H, ValueKind::dimension_size, "", "auto",
       "ranks in this dimension: auto (from the parallelisms mapped here), N, or [X, Y]"},
      {"network.dimensions[].topology.type", H, ValueKind::choice, "", std::nullopt, "topology",
       {"Ring", "FullyConnected", "FC", "Switch", "Torus2D", "Mesh2D", "SuperPOD"}},
      {"network.dimensions[].topology.bandwidth", H, ValueKind::bandwidth_list, "B/s", std::nullopt,
       "per-GPU bandwidth per direction (SuperPOD: one per level, leaf first)"},
      {"network.dimensions[].topology.latency", H, ValueKind::duration, "s", std::nullopt,
       "per-step latency", {}, 0.0, 1.0},
      {"network.dimensions[].topology.energy_per_bit", H, ValueKind::real, "J/bit", "0",
       "energy per bit sent", {}, 0.0, 1e-6},
      {"network.dimensions[].topology.util", H, ValueKind::real, "", "1.0",
       "achievable fraction of the bandwidth (<= 1: a link cannot beat its rate)", {}, 1e-3, 1.0},
      {"network.dimensions[].topology.gpus_per_nic", H, ValueKind::integer, "", "1",
       "[rapidllm] GPUs sharing one NIC port on this dimension (1 = rail-optimized; bandwidth is per port)", {}, 1,
       1024},
      {"network.dimensions[].topology.optimize_2dmap", H, ValueKind::boolean, "", "false",
       "map ranks onto the 2-D shape to minimise hops"},
      {"network.dimensions[].topology.in_network_reduction", H, ValueKind::boolean, "", "false",
       "[rapidllm] Switch: the switch reduces and multicasts (NVLink SHARP / NVLS); auto all-reduce uses it where faster"},
      {"network.dimensions[].topology.in_network_reduction_util", H, ValueKind::real, "", "null",
       "[rapidllm] achievable fraction of the bandwidth for the in-switch all-reduce (absent = util)", {}, 1e-3, 1.0, true},
      {"network.dimensions[].topology.in_network_reduction_latency", H, ValueKind::duration, "s", "null",
       "[rapidllm] per-step latency of the in-switch all-reduce (two steps; absent = latency)", {}, 0.0, 1.0, true},
      {"network.dimensions[].topology.protocols.LL.latency", H, ValueKind::duration, "s", "0",
       "[rapidllm] NCCL LL protocol: fixed latency per collective", {}, 0.0, 1.0},
      {"network.dimensions[].topology.protocols.LL.step_latency", H, ValueKind::duration, "s", std::nullopt,
       "[rapidllm] NCCL LL protocol: latency per algorithm step", {}, 0.0, 1.0},
      {"network.dimensions[].topology.protocols.LL.bandwidth_fraction", H, ValueKind::real, "", "1.0",
       "[rapidllm] NCCL LL protocol: fraction of the util-derated bandwidth it reaches", {}, 1e-3, 1.0},
      {"network.dimensions[].topology.protocols.LL.max_bandwidth", H, ValueKind::bandwidth, "B/s", "null",
       "[rapidllm] NCCL LL protocol: ceiling on its per-GPU rate (absent = none)", {}, 0.0, kInf, true},
      {"network.dimensions[].topology.protocols.LL128.latency", H, ValueKind::duration, "s", "0",
       "[rapidllm] NCCL LL128 protocol: fixed latency per collective", {}, 0.0, 1.0},
      {"network.dimensions[].topology.protocols.LL128.step_latency", H, ValueKind::duration, "s", std::nullopt,
       "[rapidllm] NCCL LL128 protocol: latency per algorithm step", {}, 0.0, 1.0},
      {"network.dimensions[].topology.protocols.LL128.bandwidth_fraction", H, ValueKind::real, "", "1.0",
       "[rapidllm] NCCL LL128 protocol: fraction of the util-derated bandwidth it reaches", {}, 1e-3, 1.0},
      {"network.dimensions[].topology.protocols.LL128.max_bandwidth", H, ValueKind::bandwidth, "B/s", "null",
       "[rapidllm] NCCL LL128 protocol: ceiling on its per-GPU rate (absent = none)", {}, 0.0, kInf, true},
      {"network.dimensions[].topology.protocols.Simple.latency", H, ValueKind::duration, "s", "0",
       "[rapidllm] NCCL Simple protocol: fixed latency per collective", {}, 0.0, 1.0},
      {"network.dimensions[].topology.protocols.Simple.step_latency", H, ValueKind::duration, "s", std::nullopt,
       "[rapidllm] NCCL Simple protocol: latency per algorithm step", {}, 0.0, 1.0},
      {"network.dimensions[].topology.protocols.Simple.bandwidth_fraction", H, ValueKind::real, "", "1.0",
       "[rapidllm] NCCL Simple protocol: fraction of the util-derated bandwidth it reaches", {}, 1e-3, 1.0},
      {"network.dimensions[].topology.protocols.Simple.max_bandwidth", H, ValueKind::bandwidth, "B/s", "null",
       "[rapidllm] NCCL Simple protocol: ceiling on its per-GPU rate (absent = none)", {}, 0.0, kInf, true},
      as_metadata({"network.dimensions[].topology.superpod_variant", H, ValueKind::string, "", "\"\"",
                   "SuperPOD reference architecture it follows (e.g. h100), for people: the shape comes from leaf_size, "
                   "leaf_switches_per_su, spine_switches_per_su and the bandwidths"}),
      {"network.dimensions[].topology.leaf_size", H, ValueKind::integer, "", "0",
       "SuperPOD: GPUs per leaf switch group", {}, 0, 1e6},
      {"network.dimensions[].topology.leaf_switches_per_su", H, ValueKind::integer, "", "0",
       "SuperPOD: leaf switches per scalable unit (SU); the dimension has ceil(leaves / this) SUs, each bringing "
       "spine_switches_per_su spines (0 = one SU)", {}, 0, 1e6},
      {"network.dimensions[].topology.spine_switches_per_su", H, ValueKind::integer, "", "0",
       "SuperPOD: spine switches per scalable unit (0 = one spine); every leaf links to every spine", {}, 0, 1e6},
      {"network.dimensions[].collective_override.all_reduce", H, ValueKind::choice, "", "auto",
       "all-reduce algorithm on this dimension", kAlgorithms},
      {"network.dimensions[].collective_override.all_gather", H, ValueKind::choice, "", "auto",
       "all-gather algorithm on this dimension", kAlgorithms},
      {"network.dimensions[].collective_override.reduce_scatter", H, ValueKind::choice, "", "auto",
       "reduce-scatter algorithm on this dimension", kAlgorithms},
      {"network.dimensions[].collective_override.all_to_all", H, ValueKind::choice, "", "auto",
       "all-to-all algorithm on this dimension", kAlgorithms},
      {"network.dimensions[].collective_override.broadcast", H, ValueKind::choice, "", "auto",
       "[rapidllm] broadcast algorithm on this dimension (ring or direct)", kAlgorithms},
      {"network.dimensions[].collective_override.send_recv", H, ValueKind::choice, "", "auto",
       "[rapidllm] send/recv algorithm on this dimension (ring or direct: one step either way)", kAlgorithms},
      {"network.dimensions[].parallelisms", H, ValueKind::choice_list, "", "[]",
       "parallelisms whose groups lie in this dimension", {"tp", "cp", "ep", "pp", "dp"}},
      {"network.faulty_links", H, ValueKind::link_list, "", "[]",
       "degraded links [src, dst, remaining bandwidth fraction (0 = failed)]"},
      {"network.overlap.tp_overlap", H, ValueKind::real, "", "0",
       "fraction of TP communication hidden under compute", {}, 0.0, 1.0},
      {"network.overlap.tp_sp_overlap", H, ValueKind::real, "", "0",
       "fraction of TP+SP communication hidden under compute", {}, 0.0, 1.0},
      {"network.overlap.cp_overlap", H, ValueKind::real, "", "0",
       "fraction of CP communication hidden under compute", {}, 0.0, 1.0},
      {"network.overlap.ep_overlap", H, ValueKind::real, "", "0",
       "fraction of the MoE token dispatch/combine hidden under compute (e.g. DualPipe overlapping one micro-batch's "
       "all-to-all with another's compute)", {}, 0.0, 1.0},

      // ---- execution backend ----
      {"execution_backend.model", H, ValueKind::choice, "", "analytical",
       "analytical, or astra (event-driven network simulation; see astra.mode)", {"analytical", "astra"}},
      {"execution_backend.astra.backend", H, ValueKind::choice, "", "astra",
       "network simulator behind execution_backend.model: astra (rapidllm's flow-level simulator stands in for "
       "ASTRA-sim's)", {"astra"}},
      {"execution_backend.astra.mode", H, ValueKind::choice, "", "hybrid", "how the network is simulated",
       {"hybrid", "full_astrasim_hierarchical", "full_astrasim_flattened"}},
      {"execution_backend.astra.collectives.all_gather", H, ValueKind::choice, "", "auto",
       "default all-gather algorithm", kAlgorithms},
      {"execution_backend.astra.collectives.all_reduce", H, ValueKind::choice, "", "auto",
       "default all-reduce algorithm", kAlgorithms},
      {"execution_backend.astra.collectives.reduce_scatter", H, ValueKind::choice, "", "auto",
       "default reduce-scatter algorithm", kAlgorithms},
      {"execution_backend.astra.collectives.all_to_all", H, ValueKind::choice, "", "auto",
       "default all-to-all algorithm", kAlgorithms},
      {"execution_backend.astra.collectives.broadcast", H, ValueKind::choice, "", "auto",
       "[rapidllm] default broadcast algorithm", kAlgorithms},
      {"execution_backend.astra.collectives.send_recv", H, ValueKind::choice, "", "auto",
       "[rapidllm] default send/recv algorithm", kAlgorithms},
      {"execution_backend.astra.sys_options.endpoint_delay", H, ValueKind::real, "cycles", "0",
       "per-message processing delay at the receiving endpoint, in ASTRA-sim cycles (1 ns); added to every step "
       "of a simulated (astra) collective", {}, 0.0, 1e9},
      {"execution_backend.astra.sys_options.active_chunks_per_dimension", H, ValueKind::integer, "", "1",
       "chunks in flight per dimension (pipelining of collectives)", {}, 1, 1e6},
      {"execution_backend.astra.sys_options.preferred_dataset_splits", H, ValueKind::integer, "", "1",
       "chunks a collective is split into", {}, 1, 1e6},
      {"execution_backend.astra.sys_options.collective_arbitration", H, ValueKind::string, "", "\"\"",
       "how concurrent collectives share a dimension"},
      {"execution_backend.astra.max_events", H, ValueKind::real, "events", "3e7",
       "[rapidllm] the most work one flow or ns-3 simulation may take, estimated before it starts (flow: engine "
       "events + member paths routed + 12 per topology link, about 5e6 per second on one core; ns3: packet-level "
       "events): a bigger one is refused (exit 2) instead of running for minutes or hours "
       "(docs/network-simulator.md, 'Work limits')",
       {}, 1.0, 1e18},

      {"inference.kvcache_type", H, ValueKind::choice, "", "hbm_only", "where the KV cache lives", {"hbm_only"}},
  };
}

}  // namespace rapidllm::config
