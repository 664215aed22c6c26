// Typed, validated hardware description in SI units. Loaded from RAPID-LLM-schema YAML
// (config/) and consumed by every model downstream.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rapidllm/dtype.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm {

// A precision field: RAPID-LLM allows a byte count or a dtype string.
struct Precision {
  double bytes = 2.0;
  DType dtype = DType::bf16;
};

struct PrecisionSpec {
  Precision tensor_format;       // activations
  Precision matmul;              // GEMM operands (fp8 with Transformer Engine FP8 recipes)
  Precision kv_cache;
  Precision parameters;
  Precision gradients;           // accumulated gradients
  Precision grad_microbatch;     // ephemeral per-micro-batch gradients
  Precision grad_communication;  // gradient collectives
  Precision optimizer_states;
  Precision stats;               // normalisation statistics
  double master_parameters_bytes = 0.0;  // 0 = no master copy
};

enum class DpMicrobatchSync { every_mb, last_mb };
// The fused-attention kernel family a software stack runs: FlashAttention-2-class kernels
// (Ampere-style MMAs), FlashAttention-3-class ones (Hopper warpgroup MMAs, cuDNN's fused
// attention), or the FlashAttention of flash-attn's Triton implementation with an additive
// bias (MosaicML's MPT, attn_impl: triton, for ALiBi; compiled by the Triton of 2022-2023).
enum class AttentionKernel { flash2, flash3, triton };
// What backward recomputes: nothing; the attention core (Megatron's selective); the whole
// layer forward; or op by op as torchtitan's selective op checkpointing does (every matmul's
// and attention's output saved but every second matmul's; backward recomputes those matmuls
// and every other forward op: model/op_recompute.hpp).
enum class ActivationRecompute { none, selective, full, op };
// How a stack runs a layer's norms, gated activation and rotary embedding: fused kernels
// (Transformer Engine, torch.compile, Triton: one pass over the activations each), or
// PyTorch eager ops (Python RMSNorm, SiLU-then-multiply, rotary in fp32: one kernel per op,
// fp32 intermediates; model/elementwise_ops.hpp counts them).
enum class ElementwiseKernels { fused, eager };
// How a stack computes the cross-entropy over the vocabulary (model/layer_ops.cpp counts the
// passes): one kernel over the 16-bit logits that writes their gradient in place (fused:
// Transformer Engine's or flash-attn's); Megatron-Core's vocabulary-parallel cross-entropy on
// an fp32 copy of the logits, its steps compiled together (megatron: --cross-entropy-loss-fusion)
// or one PyTorch op each (megatron_unfused: Megatron-LM's default); PyTorch's F.cross_entropy
// on an fp32 upcast (eager: a log-softmax output, its gradient and the upcast's each a tensor).
enum class CrossEntropyKernel { fused, megatron, megatron_unfused, eager };

struct SoftwareSpec {
  // The software-stack profile (software_stack.hpp): "auto" until the run type resolves
  // it. compute_efficiency, kernel_launch_overhead_s and attention_kernel are its values
  // unless the config set them (*_given).
  std::string framework = "auto";
  std::string stack;  // the profile applied ("auto" resolved); empty until one is
  double compute_efficiency = 1.0;
  bool compute_efficiency_given = false;
  bool kernel_launch_overhead_given = false;
  AttentionKernel attention_kernel = AttentionKernel::flash3;  // the profile's, unless given
  bool attention_kernel_given = false;
  // What backward recomputes: RAPID-LLM's full_recomputation gives full or selective;
  // rapidllm's sw_param.activation_recompute can also say none.
  ActivationRecompute recompute = ActivationRecompute::selective;
  ElementwiseKernels elementwise_kernels = ElementwiseKernels::fused;
  double kernel_launch_overhead_s = 0.0;
  // Host time a pipeline engine blocks on each activation or gradient send and receive
  // (a blocking, polled handshake): the stage launches nothing meanwhile. The profile's
  // unless given.
  double pipeline_transfer_stall_s = 0.0;
  bool pipeline_transfer_stall_given = false;
  int dp_zero_stage = 0;
  PrecisionSpec precision;
  std::optional<double> h2d_bandwidth_bytes_per_s;  // absent = H2D timing disabled
  double const_mem_offset_bytes = 0.0;
  DpMicrobatchSync dp_microbatch = DpMicrobatchSync::every_mb;
  // Fraction of a fused attention kernel's softmax that runs under its matmuls
  // (FlashAttention-2: 0, FlashAttention-3's ping-pong scheduling on Hopper: ~1). Absent: the
  // device's measured value for the kernel family (fused_attention), else 0.
  std::optional<double> attention_softmax_overlap;
  // Parameters per data-parallel gradient bucket: buckets are reduced while backward
  // still runs, the last one after it (Megatron-LM's default is 40M). The profile's unless
  // given.
  double dp_bucket_params = 40e6;
  bool dp_bucket_params_given = false;
  // HBM passes a decode step's attention makes over each KV head's cache: 1 when a kernel
  // shares it across the query heads of its group, up to the group size when each query
  // head reads it on its own (at most that many apply). The profile's unless given.
  double decode_kv_passes = 1.0;
  bool decode_kv_passes_given = false;
  // Host wait on each tensor-parallel collective while the pipeline's stages span nodes:
  // pipelined_tp_wait_s + pipelined_tp_wait_per_rank_s x (tp - 1). A layer's pass lasts at
  // least its TP collectives' waits (its kernels run under them). 0 for every stack but
  // nanotron's engine after its pipeline fix. The profile's unless given.
  double pipelined_tp_wait_s = 0.0;
  bool pipelined_tp_wait_given = false;
  double pipelined_tp_wait_per_rank_s = 0.0;
  bool pipelined_tp_wait_per_rank_given = false;
  // ZeRO >= 1: whether the updated parameters' all-gather after the optimizer overlaps the
  // next step's forward (Megatron's distributed optimizer overlaps it bucket by bucket;
  // nanotron's all-gathers them inside optimizer.step(), before the next step can start).
  // The profile's unless given.
  bool zero_gather_overlap = true;
  bool zero_gather_overlap_given = false;
  // The profile's unless given.
  CrossEntropyKernel cross_entropy = CrossEntropyKernel::fused;
  bool cross_entropy_given = false;
  // Host time the trainer spends on each micro-batch with no kernel queued behind it (the
  // GPUs idle): slicing and moving the micro-batch, the per-micro-batch synchronisation of
  // the trainer and its sharding wrapper. Training only. The profile's unless given.
  double micro_batch_overhead_s = 0.0;
  bool micro_batch_overhead_given = false;
  // Host time of each call a mixture-of-experts layer makes per local expert: Transformer
  // Engine's GroupedLinear quantizes each expert's rows and runs each expert's GEMM as its
  // own cuBLAS call, in a host loop. A pass over the experts takes at least calls x this
  // (the GPU waits on the loop: the token dispatch has just synchronised the host with it).
  // 0 = one grouped kernel per pass. The profile's unless given.
  double expert_call_overhead_s = 0.0;
  bool expert_call_overhead_given = false;
};

// One fused-attention kernel family on one GPU. A CTA owns a tile of queries (forward) or of
// keys (backward) and streams the other side's tiles past it; its matmuls run at `*_util` of
// the 16-bit peak, the softmax on the CUDA cores, hidden under them as far as
// `softmax_overlap` says, and each CTA also spends `*_cta_fill` tile iterations' time on
// what does not stream (loading its own tile, writing its outputs).
struct FusedAttentionFacts {
  double forward_util = 1.0;
  double backward_util = 1.0;
  std::optional<double> softmax_overlap;  // absent: sw_param.attention_softmax_overlap, else 0
  double forward_cta_fill = 0.0;
  double backward_cta_fill = 0.0;
};

struct CoreSpec {
  double frequency_hz = 0.0;
  int num_sms = 0;                        // "num_bundles"
  int tensor_cores_per_sm = 0;            // "num_mcu_per_bundle"
  double flop_per_cycle_per_tensor_core = 0.0;  // 16-bit dense, "nominal_flop_rate_per_mcu"
  double energy_per_flop_j = 0.0;
  int fma_d1 = 0;  // tensor-core MMA shape: d1 x d2 x d1 per clock
  int fma_d2 = 0;
  std::string dataflow = "best";
  // Threads that issue one tensor-core MMA together and share its operands: a warp (32,
  // mma.sync up to Ampere) or a warpgroup (128, Hopper's wgmma).
  int mma_threads = 32;
  // Most CTAs of a thread-block cluster that receive one operand tile by multicast from L2
  // (Hopper TMA multicast); 1 = no clusters (Ampere and earlier).
  int max_cluster_size = 1;
  // CUDA-core throughput per SM per clock: special functions (exp2 for softmax) and FP32
  // arithmetic. They bound the softmax inside fused attention kernels.
  double static_power_w = 0.0;  // drawn whatever the GPU does (leakage, idle); 0 = not described
  double max_power_w = 0.0;     // board power limit (TDP); 0 = not described
  // An enforced limit below max_power (nvidia-smi -pl, a site's cap); 0 = none. The device
  // file's rates and energies are those at max_power.
  double power_limit_w = 0.0;
  double sfu_ops_per_cycle_per_sm = 16.0;
  double fp32_ops_per_cycle_per_sm = 64.0;
  double util = 1.0;  // achievable fraction of the tensor-core peak
  // Throughput of each dtype relative to the 16-bit rate above (fp16/bf16 are 1 by
  // definition). A dtype missing here is not described by the hardware config.
  std::map<DType, double> dtype_flop_scale;
  // Achievable fraction of a dtype's peak where it differs from `util` (FP8 GEMMs reach a
  // smaller share of their doubled peak than 16-bit ones).
  std::map<DType, double> dtype_util;
  // How a fused-attention kernel family runs on this GPU (kernel facts, like util): given as
  // one published share (attention_util) or measured per pass (fused_attention); absent:
  // flash3 takes flash2's, flash2 the dtype's GEMM util.
  std::map<AttentionKernel, FusedAttentionFacts> attention;
  [[nodiscard]] FusedAttentionFacts attention_facts(AttentionKernel kernel, DType dtype) const;

  // Dynamic energy of one FLOP in a dtype: the 16-bit energy_per_flop_j over the dtype's rate
  // scale. The tensor cores draw about the same power per clock whatever they multiply: at
  // the 700 W cap one H100 ran fp8 8192^3 products at 1.8x bf16's FLOP rate
  // (validation/kernels/measured/h100/power_phases.csv). An undescribed dtype: the 16-bit one.
  [[nodiscard]] double energy_per_flop(DType dtype) const;
  // The SM clock under power_limit_w relative to the one at max_power (1 when uncapped).
  // Compute-bound kernels run at the cap already at max_power (an H100's bf16 and fp8 GEMMs
  // drew 697 W of 700 at 1.37 / 1.24 GHz, validation/kernels/measured/h100/power_phases.csv),
  // so a lower cap lowers their clock. Dynamic power goes as f V^2 with the voltage scaled
  // in step with the clock, i.e. as f^3, above the static draw:
  //   factor = ((limit - static) / (max - static))^(1/3).
  // Memory-bound kernels draw less than a cap they would have to meet (an HBM copy: 483 W)
  // and keep their bandwidth.
  [[nodiscard]] double power_capped_clock_factor() const;
  // Dense tensor-core peak for a dtype (FLOP/s), before util; nullopt if not described.
  [[nodiscard]] std::optional<double> peak_flops_per_s(DType dtype) const;
  // The rate kernels sustain: peak x the dtype's util; nullopt if not described.
  [[nodiscard]] std::optional<double> achievable_flops_per_s(DType dtype) const;
};

enum class MemoryScope { mcu, mcu_bundle, global };

// One level of the memory hierarchy, innermost (registers) first.
struct MemoryLevel {
  std::string name;  // the tech_param key: SRAM-R, SRAM-L1, SRAM-L2, DRAM
  MemoryScope scope = MemoryScope::global;
  double size_bytes = 0.0;               // whole-chip total
  double bandwidth_bytes_per_s = 0.0;    // whole-chip aggregate
  double dynamic_energy_per_bit_j = 0.0;
  double latency_s = 0.0;
  double util = 1.0;
};

enum class Parallelism { tp, cp, ep, pp, dp };

// The order micro-batches run through the pipeline stages (parallel/pipeline_schedule.hpp).
enum class PipelineSchedule { gpipe, one_f_one_b, interleaved_1f1b, zero_bubble, dualpipe };

// How a framework cuts the layers into pipeline stages. even: as evenly as possible, the
// first stages one layer more (Megatron-LM). compute_balanced: each stage takes blocks until
// their cumulative compute cost reaches its share of the model's, a decoder layer costing
// 4 h^2 + 3 h ffn and the LM head V h, the embedding nothing (nanotron's build_model), so
// the stage with the head holds fewer layers.
enum class LayerSplit { even, compute_balanced };

struct ParallelismSpec {
  bool auto_search = false;  // "auto"
  int tp = 1;
  bool tp_sp = false;
  int cp = 1;
  int pp = 1;
  int mb = 1;
  int dp = 1;
  int ep = 1;
  bool tp_ep = true;
  int replica_count = 1;
  int moe_dp = 1;
  // rapidllm extensions (`rapidllm config list`): pipeline schedule, virtual stages, micro-batch size.
  PipelineSchedule pp_schedule = PipelineSchedule::gpipe;
  int vpp = 1;
  LayerSplit layer_split = LayerSplit::even;
  std::optional<int> micro_batch_size;
};

enum class TopologyType { ring, fully_connected, switch_, torus2d, mesh2d, superpod };

// broadcast: rank 0 of the group sends its buffer to all; send_recv: every rank sends its
// buffer to the next and receives the previous one's (nccl-tests sendrecv_perf).
enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, send_recv };
enum class CollectiveAlgorithm {
  auto_,
  ring,
  direct,
  halving_doubling,
  double_binary_tree,
  mesh,
  mesh2d,
  hypercube,
  torus2d,
  nvls  // in-switch reduction (NVLink SHARP): all_reduce on a Switch with in_network_reduction
};

// NCCL's wire protocols. LL stores 4 data bytes with a 4-byte flag per 8-byte word (low
// latency, half the bandwidth or less); LL128 keeps a flag per 128-byte line; Simple moves
// bulk chunks behind a memory fence (full bandwidth, the highest fixed cost).
enum class NcclProtocol { ll, ll128, simple };

// One protocol's cost on a dimension: time = latency + steps x step_latency +
// bytes on the wire / rate, rate = min(bandwidth x util x bandwidth_fraction, max_bandwidth).
struct ProtocolSpec {
  NcclProtocol protocol = NcclProtocol::simple;
  double latency_s = 0.0;       // once per collective (launch, setup, the pipeline's fill)
  double step_latency_s = 0.0;  // per algorithm step (one ring hop, one tree level)
  double bandwidth_fraction = 1.0;
  // A ceiling on the protocol's per-GPU rate whatever the link offers: how fast the GPU's
  // threads can issue its stores (NCCL caps LL this way).
  double max_bandwidth_bytes_per_s = std::numeric_limits<double>::infinity();

  friend bool operator==(const ProtocolSpec&, const ProtocolSpec&) = default;
};

struct SuperPodSpec {
  std::string variant;
  int leaf_size = 0;
  int leaf_switches_per_su = 0;
  int spine_switches_per_su = 0;

  friend bool operator==(const SuperPodSpec&, const SuperPodSpec&) = default;
};

struct NetworkDimension {
  std::string id;
  std::string label;
  std::vector<int> size;  // empty = "auto" (resolved from the parallelisms mapped here)
  TopologyType topology = TopologyType::ring;
  // Per-GPU bandwidth per direction; one entry per switching level (SuperPOD lists
  // leaf then spine), one entry otherwise.
  std::vector<double> bandwidth_bytes_per_s;
  double latency_s = 0.0;
  double energy_per_bit_j = 0.0;
  double util = 1.0;
  // GPUs sharing one port (NIC) on this dimension: 1 = rail-optimized, a port per GPU.
  // `bandwidth` is per port; the GPUs behind it communicate at once (every TP/PP peer runs
  // the same collectives in step), so each gets bandwidth / gpus_per_nic.
  int gpus_per_nic = 1;
  bool optimize_2dmap = false;
  // The switch reduces and multicasts (NVLS / SHARP): `auto` all-reduce uses it (Switch only).
  bool in_network_reduction = false;
  // Efficiency and per-step latency of the in-switch all-reduce when they differ from the
  // dimension's util and latency (absent = the same). With in_network_reduction, `auto`
  // all-reduce takes whichever of ring and nvls is faster at the size (as NCCL's tuner does).
  std::optional<double> in_network_reduction_util;
  std::optional<double> in_network_reduction_latency_s;
  // The protocols a collective may use here; each collective takes the fastest (NCCL's
  // tuner does the same). Empty = one Simple-like protocol: `latency` per step, no fixed
  // latency, the full util-derated bandwidth (RAPID-LLM's alpha-beta).
  std::vector<ProtocolSpec> protocols;
  std::optional<SuperPodSpec> superpod;
  std::vector<Parallelism> parallelisms;
  std::map<CollectiveOp, CollectiveAlgorithm> collective_override;

  friend bool operator==(const NetworkDimension&, const NetworkDimension&) = default;
};

struct FaultyLink {
  int src = 0;
  int dst = 0;
  double weight = 1.0;  // remaining bandwidth fraction

  friend bool operator==(const FaultyLink&, const FaultyLink&) = default;
};

struct OverlapSpec {
  double tp_overlap = 0.0;
  double tp_sp_overlap = 0.0;
  double cp_overlap = 0.0;
  double ep_overlap = 0.0;  // rapidllm: share of the MoE all-to-alls hidden under compute

  friend bool operator==(const OverlapSpec&, const OverlapSpec&) = default;
};

struct NetworkSpec {
  std::vector<NetworkDimension> dimensions;
  OverlapSpec overlap;
  std::vector<FaultyLink> faulty_links;
  SourceLocation faulty_links_source;  // where they were given (errors about a link name it)

  // The dimension that carries a parallelism, or nullptr when none lists it.
  [[nodiscard]] const NetworkDimension* dimension_for(Parallelism p) const;

  friend bool operator==(const NetworkSpec&, const NetworkSpec&) = default;
};

enum class ExecutionMode { analytical, hybrid, full_astrasim_hierarchical, full_astrasim_flattened };

struct ExecutionBackendSpec {
  ExecutionMode mode = ExecutionMode::analytical;
  std::map<CollectiveOp, CollectiveAlgorithm> collectives;  // defaults, per op
  // Each message's processing at its receiving endpoint, per algorithm step (ASTRA-sim's
  // endpoint_delay: cycles of its 1 ns clock); the flow and ns-3 simulations add it.
  double endpoint_delay_s = 0.0;
  int active_chunks_per_dimension = 1;
  int preferred_dataset_splits = 1;
  std::string collective_arbitration;
  // [rapidllm] The most work one flow or ns-3 simulation may take (events and member paths
  // routed, as network/work_estimate.hpp counts them): past it the simulation is refused
  // before it starts (ConfigError), not run for hours. The CLI's --max-events sets it.
  double max_events = 3e7;

  friend bool operator==(const ExecutionBackendSpec&, const ExecutionBackendSpec&) = default;
};

struct HardwareSpec {
  std::string source;  // file it was loaded from
  SoftwareSpec sw;
  CoreSpec core;
  std::vector<MemoryLevel> memory;  // memory_hierarchy l0, l1, ... (innermost first)
  ParallelismSpec parallelism;
  NetworkSpec network;
  ExecutionBackendSpec execution;
  std::string kvcache_type = "hbm_only";

  [[nodiscard]] const MemoryLevel& dram() const { return memory.back(); }
};

[[nodiscard]] std::string_view to_string(Parallelism p);
[[nodiscard]] std::string_view to_string(TopologyType t);
[[nodiscard]] std::string_view to_string(CollectiveOp op);
[[nodiscard]] std::string_view to_string(CollectiveAlgorithm a);
[[nodiscard]] std::string_view to_string(NcclProtocol p);
[[nodiscard]] std::string_view to_string(ExecutionMode m);
[[nodiscard]] std::string_view to_string(PipelineSchedule s);

// The names configs and the command line use ("1f1b", "all_reduce"); nullopt for any other.
[[nodiscard]] std::optional<PipelineSchedule> parse_pipeline_schedule(std::string_view name);
[[nodiscard]] std::string_view to_string(ActivationRecompute r);
[[nodiscard]] std::string_view to_string(AttentionKernel k);  // "flash2" | "flash3" | "triton"
[[nodiscard]] std::string_view to_string(ElementwiseKernels k);  // "fused" | "eager"
[[nodiscard]] std::string_view to_string(CrossEntropyKernel k);  // "fused" | "megatron" | "megatron-unfused" | "eager"
[[nodiscard]] std::optional<ActivationRecompute> parse_activation_recompute(std::string_view name);
[[nodiscard]] std::optional<CrossEntropyKernel> parse_cross_entropy_kernel(std::string_view name);
[[nodiscard]] std::optional<CollectiveOp> parse_collective_op(std::string_view name);

}  // namespace rapidllm
