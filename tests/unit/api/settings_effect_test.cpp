// No setting is parsed and then ignored: the test walks the whole settings registry and, for
// every declared key, either finds it marked metadata (ids, labels), finds it a one-value
// choice (nothing to vary: any other value is refused), or runs its probe below: the key
// changed from a baseline must change some number of a prediction or collective, or log a
// warning (a value the model cannot honour), or be refused with a ConfigError. A key added
// to the registry without a probe fails the test until someone says what it does.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "api_fixtures.hpp"
#include "config/settings_registry.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"
#include "rapidllm/report.hpp"

namespace rapidllm {
namespace {

using nlohmann::json;
using testing::source_path;

// What a probe runs: a prediction of hardware + model, or one collective on the hardware.
struct Base {
  std::string hardware;
  std::string model;
  std::vector<std::string> overrides;
  std::optional<CollectiveRequest> collective;  // set: run this collective instead of predict
};

enum class Expect { changes, warns, rejects };

struct Probe {
  std::string pattern;
  const Base* base;
  std::vector<std::string> change;  // overrides applied on top of the base's
  Expect expect = Expect::changes;
};

const std::string kH100 = "configs/hardware/H100_SXM5_80GB.yaml";
const std::string kLlama8b = "configs/models/llama3.1-8b.yaml";
const std::string kGemm = "configs/examples/gemm_8192_bf16.yaml";
const std::string kDeepSeek = "tests/data/rapid-llm-reference/model/DeepSeekV3.yaml";

// Llama-3.1-8B training on two DGX H100 nodes: tp 2, pp 2, dp 4, 4 micro-batches (the dp
// groups cross InfiniBand).
const Base kTrain{kH100, kLlama8b,
                  {"parallelism.tp=2", "parallelism.pp=2", "parallelism.train.dp=4", "parallelism.mb=4"}, {}};
// The same with the flow network simulation.
const Base kTrainFlow{kH100, kLlama8b,
                      {"parallelism.tp=2", "parallelism.pp=2", "parallelism.train.dp=4", "parallelism.mb=4",
                       "execution_backend.model=astra", "execution_backend.astra.mode=full_astrasim_hierarchical"},
                      {}};
const Base kTrainSp{kH100, kLlama8b, {"parallelism.tp=4", "parallelism.tp_sp=true", "parallelism.mb=4"}, {}};
const Base kTrainCp{kH100, kLlama8b, {"parallelism.tp=2", "parallelism.cp=2", "parallelism.mb=4"}, {}};
const Base kTrainInterleaved{kH100, kLlama8b,
                             {"parallelism.pp=4", "parallelism.mb=8", "parallelism.pp_schedule=interleaved_1f1b"},
                             {}};
// kTrain with the distributed optimizer (ZeRO-1).
const Base kTrainZero1{kH100, kLlama8b,
                       {"parallelism.tp=2", "parallelism.pp=2", "parallelism.train.dp=4", "parallelism.mb=4",
                        "sw_param.dp_zero_stage=1"},
                       {}};
// tp 4, pp 4 on 16 GPUs: the last two stages on the second node.
const Base kTrainPipelineAcrossNodes{kH100, kLlama8b, {"parallelism.tp=4", "parallelism.pp=4", "parallelism.mb=4"}, {}};
const Base kTrainFp8{kH100, kLlama8b, {"parallelism.tp=2", "sw_param.precision.matmul=fp8"}, {}};
// A stack that runs FlashAttention-2-class kernels (the default Megatron-Core profile runs
// FlashAttention-3-class ones).
const Base kTrainFlash2{kH100, kLlama8b, {"parallelism.tp=2", "sw_param.attention_kernel=flash2"}, {}};
// A device whose attention is one published share (attention_util), not measured per pass.
const Base kTrainA100{"configs/hardware/A100_SXM4_80GB.yaml", kLlama8b, {"parallelism.tp=2"}, {}};
// The same under flash-attn's Triton kernel (composer-fsdp's family).
const Base kTrainA100Triton{"configs/hardware/A100_SXM4_80GB.yaml", kLlama8b,
                            {"parallelism.tp=2", "sw_param.attention_kernel=triton"}, {}};
const Base kInfer{kH100, kLlama8b,
                  {"model_param.run_type=inference", "model_param.global_batch_size=8", "model_param.seq_len=2048",
                   "model_param.decode_len=512", "parallelism.tp=2"},
                  {}};
const Base kGemmTp{kH100, kGemm, {"parallelism.tp=2"}, {}};
const Base kGemmFp32{kH100, kGemm, {"sw_param.precision.tensor_format=fp32"}, {}};
const Base kMoe{kH100, kDeepSeek,
                {"model_param.seq_len=4096", "model_param.num_layers=8", "parallelism.train.dp=4",
                 "parallelism.train.ep=4", "parallelism.mb=4"},
                {}};
const Base kMoeInfer{kH100, kDeepSeek,
                     {"model_param.run_type=inference", "model_param.seq_len=1024", "model_param.decode_len=64",
                      "model_param.num_layers=8", "model_param.global_batch_size=8", "parallelism.tp=8"},
                     {}};

CollectiveRequest request(CollectiveOp op, double bytes, int ranks, std::optional<std::string> dimension,
                          NetworkBackend backend = NetworkBackend::analytical) {
  CollectiveRequest r;
  r.op = op;
  r.bytes = bytes;
  r.ranks = ranks;
  r.dimension = std::move(dimension);
  r.backend = backend;
  return r;
}

// Collectives on the H100 node's NVSwitch at sizes where each NCCL protocol is the fastest
// (LL: small, LL128: mid, Simple: large), and across nodes.
const Base kAgSmall{kH100, "", {}, request(CollectiveOp::all_gather, 4096, 8, "nvlink")};
const Base kAgMid{kH100, "", {}, request(CollectiveOp::all_gather, 4 << 20, 8, "nvlink")};
const Base kAgLarge{kH100, "", {}, request(CollectiveOp::all_gather, 1 << 30, 8, "nvlink")};
const Base kArNvlink{kH100, "", {}, request(CollectiveOp::all_reduce, 1 << 28, 8, "nvlink")};
const Base kBcast{kH100, "", {}, request(CollectiveOp::broadcast, 1 << 28, 8, "nvlink")};
// Send/recv across an InfiniBand wired as a ring, where a direct send is refused (no link to
// every peer) and ring is the one algorithm.
const Base kSendRecvRing{kH100, "", {"network.dimensions[1].topology.type=Ring"},
                         request(CollectiveOp::send_recv, 1 << 26, 8, "infiniband")};
const Base kCollIb{kH100, "", {}, request(CollectiveOp::all_reduce, 1 << 28, 64, std::nullopt)};
const Base kCollFlow{kH100, "", {}, request(CollectiveOp::all_to_all, 1 << 26, 32, std::nullopt, NetworkBackend::flow)};
// A 64-GPU SuperPOD dimension (8 leaves of 8 GPUs, spine level half the leaf bandwidth)
// whose first leaf switch (node 64) has lost its link to the first spine (node 72): the
// share of traffic that link carried depends on how many spines there are.
const std::vector<std::string> kSuperPod = {
    "network.dimensions[1].topology.type=SuperPOD", "network.dimensions[1].topology.bandwidth=[50 GB/s, 25 GB/s]",
    "network.dimensions[1].topology.leaf_size=8",   "network.dimensions[1].topology.leaf_switches_per_su=4",
    "network.dimensions[1].topology.spine_switches_per_su=2", "network.dimensions[0].size=1",
    "network.faulty_links=[[64, 72, 0.0]]"};
const Base kSuperPodFlow{kH100, "", kSuperPod,
                         request(CollectiveOp::all_to_all, 1 << 24, 64, "infiniband", NetworkBackend::flow)};

const std::string kIb = "network.dimensions[1].topology.";
const std::string kNv = "network.dimensions[0].topology.";

std::vector<Probe> probes() {
  const Expect W = Expect::warns;
  const Expect R = Expect::rejects;
  std::vector<Probe> p = {
      // ---- sw_param ----
      {"sw_param.full_recomputation", &kTrain, {"sw_param.full_recomputation=true"}},
      {"sw_param.activation_recompute", &kTrain, {"sw_param.activation_recompute=full"}},
      {"sw_param.kernel_launch_overhead", &kInfer, {"sw_param.kernel_launch_overhead=50 us"}},
      {"sw_param.pipeline_transfer_stall", &kTrain, {"sw_param.pipeline_transfer_stall=100 ms"}},
      {"sw_param.framework", &kTrain, {"sw_param.framework=composer-fsdp"}},
      {"sw_param.compute_efficiency", &kTrain, {"sw_param.compute_efficiency=0.5"}},
      {"sw_param.attention_kernel", &kTrain, {"sw_param.attention_kernel=flash2"}},
      {"sw_param.dp_zero_stage", &kTrain, {"sw_param.dp_zero_stage=1"}},
      {"sw_param.precision.tensor_format", &kTrain, {"sw_param.precision.tensor_format=fp32"}},
      {"sw_param.precision.matmul", &kTrain, {"sw_param.precision.matmul=fp8"}},
      {"sw_param.precision.kv_cache", &kInfer, {"sw_param.precision.kv_cache=fp8"}},
      {"sw_param.precision.parameters", &kTrain, {"sw_param.precision.parameters=fp32"}},
      {"sw_param.precision.gradients", &kTrain, {"sw_param.precision.gradients=bf16"}},
      {"sw_param.precision.grad_microbatch", &kTrain, {"sw_param.precision.grad_microbatch=bf16"}},
      {"sw_param.precision.grad_communication", &kTrain, {"sw_param.precision.grad_communication=bf16"}},
      {"sw_param.precision.optimizer_states", &kTrain, {"sw_param.precision.optimizer_states=bf16"}},
      {"sw_param.precision.stats", &kTrain, {"sw_param.precision.stats=bf16"}},
      {"sw_param.precision.master_parameters", &kTrain, {"sw_param.precision.master_parameters=0"}},
      {"sw_param.h2d_bandwidth", &kTrain, {"sw_param.h2d_bandwidth=25 GB/s"}, W},
      {"sw_param.const_mem_offset", &kTrain, {"sw_param.const_mem_offset=2 GiB"}},
      {"sw_param.attention_softmax_overlap", &kTrain, {"sw_param.attention_softmax_overlap=1"}},
      {"sw_param.dp_bucket_params", &kTrain, {"sw_param.dp_bucket_params=1e6"}},
      {"sw_param.decode_kv_passes", &kInfer, {"sw_param.decode_kv_passes=4"}},
      {"sw_param.pipelined_tp_wait", &kTrainPipelineAcrossNodes, {"sw_param.pipelined_tp_wait=100 ms"}},
      {"sw_param.pipelined_tp_wait_per_rank", &kTrainPipelineAcrossNodes, {"sw_param.pipelined_tp_wait_per_rank=50 ms"}},
      {"sw_param.dp_microbatch", &kTrain, {"sw_param.dp_microbatch=every_mb"}},
      {"sw_param.zero_gather_overlap", &kTrainZero1, {"sw_param.zero_gather_overlap=false"}},
      {"sw_param.elementwise_kernels", &kTrain, {"sw_param.elementwise_kernels=eager"}},
      {"sw_param.cross_entropy", &kTrain, {"sw_param.cross_entropy=eager"}},
      {"sw_param.micro_batch_overhead", &kTrain, {"sw_param.micro_batch_overhead=50 ms"}},
      {"sw_param.expert_call_overhead", &kMoe, {"sw_param.expert_call_overhead=1 ms"}},
      // ---- tech_param.core ----
      {"tech_param.core.operating_frequency", &kTrain, {"tech_param.core.operating_frequency=1.5 GHz"}},
      {"tech_param.core.num_bundles", &kTrain, {"tech_param.core.num_bundles=100"}},
      {"tech_param.core.nominal_flop_rate_per_mcu", &kTrain, {"tech_param.core.nominal_flop_rate_per_mcu=512"}},
      {"tech_param.core.nominal_energy_per_flop", &kTrain, {"tech_param.core.nominal_energy_per_flop=4e-13"}},
      {"tech_param.core.num_mcu_per_bundle", &kTrain, {"tech_param.core.num_mcu_per_bundle=2"}},
      {"tech_param.core.FMA_d1", &kTrain, {"tech_param.core.FMA_d1=64"}},
      {"tech_param.core.FMA_d2", &kTrain, {"tech_param.core.FMA_d2=64"}},
      {"tech_param.core.dtype_util.fp8", &kTrainFp8, {"tech_param.core.dtype_util.fp8=0.3"}},
      {"tech_param.core.attention_util.flash2", &kTrainA100, {"tech_param.core.attention_util.flash2=0.2"}},
      {"tech_param.core.attention_util.flash3", &kTrainA100, {"tech_param.core.attention_util.flash3=0.2"}},
      {"tech_param.core.attention_util.triton", &kTrainA100Triton, {"tech_param.core.attention_util.triton=0.2"}},
      {"tech_param.core.fused_attention.flash2.forward_util", &kTrainFlash2,
       {"tech_param.core.fused_attention.flash2.forward_util=0.2"}},
      {"tech_param.core.fused_attention.flash2.backward_util", &kTrainFlash2,
       {"tech_param.core.fused_attention.flash2.backward_util=0.2"}},
      {"tech_param.core.fused_attention.flash2.softmax_overlap", &kTrainFlash2,
       {"tech_param.core.fused_attention.flash2.softmax_overlap=0"}},
      {"tech_param.core.fused_attention.flash2.forward_cta_fill", &kTrainFlash2,
       {"tech_param.core.fused_attention.flash2.forward_cta_fill=8"}},
      {"tech_param.core.fused_attention.flash2.backward_cta_fill", &kTrainFlash2,
       {"tech_param.core.fused_attention.flash2.backward_cta_fill=8"}},
      {"tech_param.core.fused_attention.flash3.forward_util", &kTrain,
       {"tech_param.core.fused_attention.flash3.forward_util=0.2"}},
      {"tech_param.core.fused_attention.flash3.backward_util", &kTrain,
       {"tech_param.core.fused_attention.flash3.backward_util=0.2"}},
      {"tech_param.core.fused_attention.flash3.softmax_overlap", &kTrain,
       {"tech_param.core.fused_attention.flash3.softmax_overlap=0"}},
      {"tech_param.core.fused_attention.flash3.forward_cta_fill", &kTrain,
       {"tech_param.core.fused_attention.flash3.forward_cta_fill=8"}},
      {"tech_param.core.fused_attention.flash3.backward_cta_fill", &kTrain,
       {"tech_param.core.fused_attention.flash3.backward_cta_fill=8"}},
      {"tech_param.core.dtype_util.fp32", &kGemmFp32, {"tech_param.core.dtype_util.fp32=0.2"}},
      {"tech_param.core.mma_threads", &kTrain, {"tech_param.core.mma_threads=32"}},
      {"tech_param.core.max_cluster_size", &kTrain, {"tech_param.core.max_cluster_size=1"}},
      {"tech_param.core.sfu_ops_per_cycle_per_sm", &kTrain, {"tech_param.core.sfu_ops_per_cycle_per_sm=1"}},
      {"tech_param.core.fp32_ops_per_cycle_per_sm", &kTrain, {"tech_param.core.fp32_ops_per_cycle_per_sm=8"}},
      {"tech_param.core.static_power", &kTrain, {"tech_param.core.static_power=120"}},
      {"tech_param.core.max_power", &kTrain, {"tech_param.core.max_power=100"}},
      {"tech_param.core.power_limit", &kTrain, {"tech_param.core.power_limit=500"}},
      {"tech_param.core.util", &kTrain, {"tech_param.core.util=0.4"}},
      {"tech_param.core.dtype_flop_scale.fp8", &kTrainFp8, {"tech_param.core.dtype_flop_scale.fp8=4"}},
      {"tech_param.core.dtype_flop_scale.fp32", &kGemmFp32, {"tech_param.core.dtype_flop_scale.fp32=1"}},
      // ---- memories (the pattern's <memory> is any tech_param memory; DRAM here) ----
      {"tech_param.<memory>.size", &kTrain, {"tech_param.DRAM.size=40 GiB"}},
      {"tech_param.<memory>.bandwidth", &kTrain, {"tech_param.DRAM.bandwidth=1 TB/s"}},
      {"tech_param.<memory>.dynamic_energy_per_bit", &kTrain, {"tech_param.DRAM.dynamic_energy_per_bit=9e-12"}},
      {"tech_param.<memory>.latency", &kInfer, {"tech_param.DRAM.latency=10 us"}},
      {"tech_param.<memory>.util", &kTrain, {"tech_param.DRAM.util=0.5"}},
      {"memory_hierarchy.<level>.type", &kTrain,
       {"memory_hierarchy.l1.type=SRAM-L2", "memory_hierarchy.l2.type=SRAM-L1"}},
      {"tech_param.<memory>.per_sm", &kTrain, {"tech_param.SRAM-L1.per_sm=false", "tech_param.SRAM-L1.size=8 MiB"}},
      {"memory_hierarchy.<level>.scope", &kTrain, {"memory_hierarchy.l2.scope=mcu-bundle"}, R},
      // ---- parallelism ----
      {"parallelism.auto", &kTrain, {"parallelism.auto=true"}, R},
      {"parallelism.tp", &kTrain, {"parallelism.tp=4"}},
      {"parallelism.tp_sp", &kTrain, {"parallelism.tp_sp=true"}},
      {"parallelism.cp", &kTrain, {"parallelism.cp=2"}},
      {"parallelism.pp", &kTrain, {"parallelism.pp=4"}},
      {"parallelism.mb", &kTrain, {"parallelism.mb=8"}},
      {"parallelism.train.dp", &kTrain, {"parallelism.train.dp=8"}},
      {"parallelism.train.ep", &kMoe, {"parallelism.train.ep=2"}},
      {"parallelism.train.tp_ep", &kMoe, {"parallelism.tp=2", "parallelism.train.tp_ep=false"}},
      {"parallelism.inference.replica_count", &kInfer, {"parallelism.inference.replica_count=2"}},
      {"parallelism.inference.moe_dp", &kMoeInfer, {"parallelism.inference.moe_dp=2"}},
      {"parallelism.pp_schedule", &kTrain, {"parallelism.pp_schedule=gpipe"}},
      {"parallelism.vpp", &kTrainInterleaved, {"parallelism.vpp=2"}},
      {"parallelism.layer_split", &kTrain, {"parallelism.layer_split=compute_balanced"}},
      {"parallelism.micro_batch_size", &kTrain, {"parallelism.micro_batch_size=2"}},
      // ---- network ----
      {"network.dimensions[].size", &kCollIb, {"network.dimensions[0].size=4"}},
      {"network.dimensions[].topology.type", &kCollFlow, {kIb + "type=Ring"}},
      {"network.dimensions[].topology.bandwidth", &kCollIb, {kIb + "bandwidth=200 Gb/s"}},
      {"network.dimensions[].topology.latency", &kCollFlow, {kIb + "latency=50 us"}},
      {"network.dimensions[].topology.energy_per_bit", &kTrain, {kIb + "energy_per_bit=20e-12"}},
      {"network.dimensions[].topology.util", &kCollIb, {kIb + "util=0.5"}},
      {"network.dimensions[].topology.gpus_per_nic", &kCollIb, {kIb + "gpus_per_nic=2"}},
      {"network.dimensions[].topology.optimize_2dmap", &kCollIb, {kIb + "optimize_2dmap=true"}, W},
      {"network.dimensions[].topology.in_network_reduction", &kArNvlink, {kNv + "in_network_reduction=false"}},
      {"network.dimensions[].topology.in_network_reduction_util", &kArNvlink, {kNv + "in_network_reduction_util=0.9"}},
      {"network.dimensions[].topology.in_network_reduction_latency", &kArNvlink,
       {kNv + "in_network_reduction_latency=100 us"}},
      {"network.dimensions[].topology.protocols.LL.latency", &kAgSmall, {kNv + "protocols.LL.latency=1 us"}},
      {"network.dimensions[].topology.protocols.LL.step_latency", &kAgSmall, {kNv + "protocols.LL.step_latency=2 us"}},
      {"network.dimensions[].topology.protocols.LL.bandwidth_fraction", &kAgSmall,
       {kNv + "protocols.LL.bandwidth_fraction=0.1"}},
      {"network.dimensions[].topology.protocols.LL.max_bandwidth", &kAgSmall, {kNv + "protocols.LL.max_bandwidth=1 GB/s"}},
      {"network.dimensions[].topology.protocols.LL128.latency", &kAgMid, {kNv + "protocols.LL128.latency=1 us"}},
      {"network.dimensions[].topology.protocols.LL128.step_latency", &kAgMid,
       {kNv + "protocols.LL128.step_latency=1 us"}},
      {"network.dimensions[].topology.protocols.LL128.bandwidth_fraction", &kAgMid,
       {kNv + "protocols.LL128.bandwidth_fraction=0.5"}},
      {"network.dimensions[].topology.protocols.LL128.max_bandwidth", &kAgMid,
       {kNv + "protocols.LL128.max_bandwidth=10 GB/s"}},
      {"network.dimensions[].topology.protocols.Simple.latency", &kAgLarge, {kNv + "protocols.Simple.latency=1 ms"}},
      {"network.dimensions[].topology.protocols.Simple.step_latency", &kAgLarge,
       {kNv + "protocols.Simple.step_latency=1 ms"}},
      {"network.dimensions[].topology.protocols.Simple.bandwidth_fraction", &kAgLarge,
       {kNv + "protocols.Simple.bandwidth_fraction=0.5"}},
      {"network.dimensions[].topology.protocols.Simple.max_bandwidth", &kAgLarge,
       {kNv + "protocols.Simple.max_bandwidth=10 GB/s"}},
      {"network.dimensions[].topology.leaf_size", &kSuperPodFlow, {kIb + "leaf_size=16"}},
      {"network.dimensions[].topology.leaf_switches_per_su", &kSuperPodFlow, {kIb + "leaf_switches_per_su=8"}},
      {"network.dimensions[].topology.spine_switches_per_su", &kSuperPodFlow, {kIb + "spine_switches_per_su=1"}},
      {"network.dimensions[].collective_override.all_reduce", &kArNvlink,
       {"network.dimensions[0].collective_override.all_reduce=ring"}},
      {"network.dimensions[].collective_override.all_gather", &kAgLarge,
       {"network.dimensions[0].collective_override.all_gather=direct"}},
      {"network.dimensions[].collective_override.reduce_scatter", &kTrainSp,
       {"network.dimensions[0].collective_override.reduce_scatter=direct"}},
      {"network.dimensions[].collective_override.all_to_all", &kMoe,
       {"network.dimensions[0].collective_override.all_to_all=ring"}},
      {"network.dimensions[].collective_override.broadcast", &kBcast,
       {"network.dimensions[0].collective_override.broadcast=direct"}},
      {"network.dimensions[].collective_override.send_recv", &kSendRecvRing,
       {"network.dimensions[1].collective_override.send_recv=direct"}},
      // Ranks are numbered in the order the dimensions list the parallelisms: dp before pp
      // keeps the data-parallel groups inside the nodes and sends the pipeline across them.
      {"network.dimensions[].parallelisms", &kTrain,
       {"network.dimensions[0].parallelisms=[tp, cp, ep, dp]", "network.dimensions[1].parallelisms=[pp]"}},
      {"network.faulty_links", &kCollFlow, {"network.faulty_links=[[0, 8, 0.1]]"}},
      {"network.overlap.tp_overlap", &kTrain, {"network.overlap.tp_overlap=0.5"}},
      {"network.overlap.tp_sp_overlap", &kTrainSp, {"network.overlap.tp_sp_overlap=0.5"}},
      {"network.overlap.cp_overlap", &kTrainCp, {"network.overlap.cp_overlap=0.5"}},
      {"network.overlap.ep_overlap", &kMoe, {"network.overlap.ep_overlap=0.5"}},
      // ---- execution backend ----
      {"execution_backend.model", &kTrain, {"execution_backend.model=astra"}},
      {"execution_backend.astra.mode", &kTrainFlow, {"execution_backend.astra.mode=full_astrasim_flattened"}},
      {"execution_backend.astra.collectives.all_gather", &kAgLarge, {"execution_backend.astra.collectives.all_gather=direct"}},
      {"execution_backend.astra.collectives.all_reduce", &kArNvlink, {"execution_backend.astra.collectives.all_reduce=ring"}},
      {"execution_backend.astra.collectives.reduce_scatter", &kTrainSp,
       {"execution_backend.astra.collectives.reduce_scatter=direct"}},
      {"execution_backend.astra.collectives.all_to_all", &kMoe, {"execution_backend.astra.collectives.all_to_all=ring"}},
      {"execution_backend.astra.collectives.broadcast", &kBcast, {"execution_backend.astra.collectives.broadcast=direct"}},
      {"execution_backend.astra.collectives.send_recv", &kSendRecvRing,
       {"execution_backend.astra.collectives.send_recv=direct"}},
      // Past the limit the simulation is refused before it is built.
      {"execution_backend.astra.max_events", &kTrainFlow, {"execution_backend.astra.max_events=100"}, R},
      {"execution_backend.astra.sys_options.endpoint_delay", &kCollFlow,
       {"execution_backend.model=astra", "execution_backend.astra.sys_options.endpoint_delay=1000"}},
      {"execution_backend.astra.sys_options.active_chunks_per_dimension", &kTrainFlow,
       {"execution_backend.astra.sys_options.preferred_dataset_splits=4",
        "execution_backend.astra.sys_options.active_chunks_per_dimension=2"}},
      {"execution_backend.astra.sys_options.preferred_dataset_splits", &kTrainFlow,
       {"execution_backend.astra.sys_options.preferred_dataset_splits=4"}},
      {"execution_backend.astra.sys_options.collective_arbitration", &kTrainFlow,
       {"execution_backend.astra.sys_options.collective_arbitration=last_resort"}, W},
      // ---- model: GEMM mode ----
      {"model_param.mode", &kGemmTp, {"model_param.mode=LLM"}, R},
      {"model_param.M", &kGemmTp, {"model_param.M=1024"}},
      {"model_param.K", &kGemmTp, {"model_param.K=1024"}},
      {"model_param.N", &kGemmTp, {"model_param.N=1024"}},
      {"model_param.backward", &kGemmTp, {"model_param.backward=true"}},
      {"model_param.gemm_shard_axis", &kGemmTp, {"model_param.gemm_shard_axis=column"}},
      // ---- model: LLM mode ----
      {"model_param.run_type", &kTrain, {"model_param.run_type=inference", "model_param.decode_len=16"}},
      {"model_param.tied_embeddings", &kTrain, {"model_param.tied_embeddings=true"}},
      {"model_param.model_type", &kTrain, {"model_param.model_type=gpt"}},
      {"model_param.global_batch_size", &kTrain, {"model_param.global_batch_size=256"}},
      {"model_param.gradient_accumulation_steps", &kTrain, {"model_param.gradient_accumulation_steps=2"}},
      {"model_param.seq_len", &kTrain, {"model_param.seq_len=4096"}},
      {"model_param.decode_len", &kInfer, {"model_param.decode_len=256"}},
      {"model_param.hidden_dim", &kTrain, {"model_param.hidden_dim=2048"}},
      {"model_param.intermediate_size", &kTrain, {"model_param.intermediate_size=8192"}},
      {"model_param.vocab_size", &kTrain, {"model_param.vocab_size=32000"}},
      {"model_param.num_layers", &kTrain, {"model_param.num_layers=16"}},
      {"model_param.attention.attention_type", &kTrain, {"model_param.attention.attention_type=mha"}},
      {"model_param.attention.num_heads", &kTrain, {"model_param.attention.num_heads=16"}},
      {"model_param.attention.kv_heads", &kInfer, {"model_param.attention.kv_heads=4"}},
      {"model_param.attention.head_dim", &kTrain, {"model_param.attention.head_dim=256"}},
      {"model_param.attention.use_flashattention", &kTrain, {"model_param.attention.use_flashattention=false"}},
      {"model_param.attention.attention_tile_size", &kTrain, {"model_param.attention.attention_tile_size=32"}},
      {"model_param.attention.sliding_window", &kTrain, {"model_param.attention.sliding_window=1024"}},
      {"model_param.attention.global_every", &kTrain,
       {"model_param.attention.sliding_window=1024", "model_param.attention.global_every=2"}},
      {"model_param.attention.kv_lora_rank", &kMoeInfer, {"model_param.attention.kv_lora_rank=256"}},
      {"model_param.attention.q_lora_rank", &kMoe, {"model_param.attention.q_lora_rank=768"}},
      {"model_param.attention.qk_nope_head_dim", &kMoe, {"model_param.attention.qk_nope_head_dim=64"}},
      {"model_param.attention.qk_rope_head_dim", &kMoe, {"model_param.attention.qk_rope_head_dim=32"}},
      {"model_param.attention.v_head_dim", &kMoe, {"model_param.attention.v_head_dim=64"}},
      {"model_param.moe.num_experts", &kMoe, {"model_param.moe.num_experts=128"}},
      {"model_param.moe.top_k", &kMoe, {"model_param.moe.top_k=4"}},
      {"model_param.moe.moe_intermediate_size", &kMoe, {"model_param.moe.moe_intermediate_size=1024"}},
      {"model_param.moe.n_shared_experts", &kMoe, {"model_param.moe.n_shared_experts=2"}},
      {"model_param.moe.expert_imbalance_factor", &kMoe, {"model_param.moe.expert_imbalance_factor=1.5"}},
      {"model_param.moe.moe_layer_freq", &kMoe, {"model_param.moe.moe_layer_freq=2"}},
      {"model_param.moe.first_k_dense_replace", &kMoe, {"model_param.moe.first_k_dense_replace=1"}},
  };
  return p;
}

// Captures what spdlog logs while it lives.
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(text_);
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  [[nodiscard]] std::string text() const { return text_.str(); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream text_;
};

json without_echo(json j) {
  for (const char* echo : {"config_hash", "version", "hardware_file", "model_file", "overrides", "software_stack"}) {
    j.erase(echo);
  }
  return j;
}

// Every number a run reports, without what only names its inputs (file names, the config
// hash, the version, the echoed overrides): the JSON report as the CLI prints it.
json outcome(const Base& base, const std::vector<std::string>& change) {
  std::vector<std::string> overrides = base.overrides;
  overrides.insert(overrides.end(), change.begin(), change.end());
  if (base.collective) {
    const HardwareSpec hw = load_hardware(source_path(base.hardware), overrides);
    try {
      const CollectiveEstimate e = run_collective(hw, *base.collective);
      return without_echo(json::parse(render_collective(e, *base.collective, hw, OutputFormat::json)));
    } catch (const InfeasibleError& e) {
      return json{{"infeasible", e.what()}};
    }
  }
  const Scenario s = load_scenario(source_path(base.hardware), source_path(base.model), overrides);
  const Result r = predict(s);
  if (!r.ok()) return json{{"infeasible", r.message}};
  return without_echo(json::parse(render_prediction(r, s, OutputFormat::json)));
}

TEST(SettingsEffect, EverySettingChangesAPredictionWarnsOrIsRefused) {
  std::map<std::string, Probe> by_pattern;
  for (Probe& p : probes()) {
    ASSERT_TRUE(config::find_setting(p.pattern) != nullptr) << "probe for an undeclared setting: " << p.pattern;
    ASSERT_TRUE(by_pattern.emplace(p.pattern, p).second) << "two probes for " << p.pattern;
  }
  std::map<const Base*, json> baselines;
  for (const config::Setting& s : config::all_settings()) {
    const std::string pattern(s.path);
    if (s.metadata) {
      EXPECT_EQ(by_pattern.count(pattern), 0u) << pattern << " is metadata: it needs no probe";
      continue;
    }
    if ((s.kind == config::ValueKind::choice) && s.choices.size() == 1) continue;  // any other value is refused
    auto it = by_pattern.find(pattern);
    if (it == by_pattern.end()) {
      ADD_FAILURE() << pattern << ": no probe shows what this setting changes (add one, or mark it metadata)";
      continue;
    }
    const Probe& probe = it->second;
    SCOPED_TRACE(pattern);
    if (probe.expect == Expect::rejects) {
      EXPECT_THROW((void)outcome(*probe.base, probe.change), ConfigError);
      continue;
    }
    auto base = baselines.find(probe.base);
    if (base == baselines.end()) {
      LogCapture quiet;
      base = baselines.emplace(probe.base, outcome(*probe.base, {})).first;
    }
    LogCapture log;
    const json changed = outcome(*probe.base, probe.change);
    if (probe.expect == Expect::warns) {
      EXPECT_NE(log.text().find(pattern.substr(pattern.rfind('.') + 1)), std::string::npos)
          << "expected a warning naming the key, got: " << log.text();
      EXPECT_TRUE(changed == base->second) << "a warned-about key should leave the numbers alone";
    } else {
      EXPECT_TRUE(changed != base->second) << "changing it changed nothing";
    }
  }
}

// The stack keys a workload cannot honour say so: a GEMM is one kernel (no framework
// around it), and unfused attention runs no fused kernel family.
TEST(SettingsEffect, StackKeysAWorkloadCannotHonourWarn) {
  {
    LogCapture log;
    (void)outcome(kGemmTp, {"sw_param.compute_efficiency=0.5"});
    EXPECT_NE(log.text().find("not applied to a GEMM workload"), std::string::npos) << log.text();
  }
  {
    LogCapture log;
    (void)outcome(kTrain, {"model_param.attention.use_flashattention=false", "sw_param.attention_kernel=flash2"});
    EXPECT_NE(log.text().find("sw_param.attention_kernel is not used"), std::string::npos) << log.text();
  }
}

}  // namespace
}  // namespace rapidllm
