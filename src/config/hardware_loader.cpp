#include "config/hardware_loader.hpp"

#include <algorithm>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "config/cursor.hpp"
#include "config/suggest.hpp"
#include "rapidllm/software_stack.hpp"

namespace rapidllm::config {

namespace {

SoftwareSpec read_software(const Cursor& sw) {
  SoftwareSpec out;
  const bool full = sw.child("full_recomputation").boolean();
  const std::string recompute = sw.child("activation_recompute").choice();
  if (recompute != "auto" && (recompute == "full") != full && sw.child("full_recomputation").present()) {
    sw.child("activation_recompute")
        .fail(fmt::format("'{}' contradicts full_recomputation: {}", recompute, full ? "true" : "false"),
              "remove full_recomputation, or make the two agree");
  }
  out.recompute = recompute == "none"        ? ActivationRecompute::none
                  : recompute == "selective" ? ActivationRecompute::selective
                  : recompute == "op"        ? ActivationRecompute::op
                  : recompute == "full" || full ? ActivationRecompute::full
                                               : ActivationRecompute::selective;
  out.elementwise_kernels =
      sw.child("elementwise_kernels").choice() == "eager" ? ElementwiseKernels::eager : ElementwiseKernels::fused;
  out.framework = sw.child("framework").choice();
  if (const Cursor gap = sw.child("kernel_launch_overhead"); gap.present()) {
    out.kernel_launch_overhead_s = gap.duration_s();
    out.kernel_launch_overhead_given = true;
  }
  if (const Cursor stall = sw.child("pipeline_transfer_stall"); stall.present()) {
    out.pipeline_transfer_stall_s = stall.duration_s();
    out.pipeline_transfer_stall_given = true;
  }
  if (const auto efficiency = sw.child("compute_efficiency").optional_real()) {
    out.compute_efficiency = *efficiency;
    out.compute_efficiency_given = true;
  }
  if (const std::string kernel = sw.child("attention_kernel").choice(); kernel != "auto") {
    out.attention_kernel = kernel == "flash2"   ? AttentionKernel::flash2
                           : kernel == "triton" ? AttentionKernel::triton
                                                : AttentionKernel::flash3;
    out.attention_kernel_given = true;
  }
  if (const auto bucket = sw.child("dp_bucket_params").optional_real()) {
    out.dp_bucket_params = *bucket;
    out.dp_bucket_params_given = true;
  }
  if (const auto passes = sw.child("decode_kv_passes").optional_real()) {
    out.decode_kv_passes = *passes;
    out.decode_kv_passes_given = true;
  }
  if (const Cursor wait = sw.child("pipelined_tp_wait"); wait.present()) {
    out.pipelined_tp_wait_s = wait.duration_s();
    out.pipelined_tp_wait_given = true;
  }
  if (const std::string kernel = sw.child("cross_entropy").choice(); kernel != "auto") {
    out.cross_entropy = parse_cross_entropy_kernel(kernel).value_or(CrossEntropyKernel::fused);  // the schema checked the choice
    out.cross_entropy_given = true;
  }
  if (const Cursor overlap = sw.child("zero_gather_overlap"); overlap.present()) {
    out.zero_gather_overlap = overlap.boolean();
    out.zero_gather_overlap_given = true;
  }
  if (const Cursor host = sw.child("micro_batch_overhead"); host.present()) {
    out.micro_batch_overhead_s = host.duration_s();
    out.micro_batch_overhead_given = true;
  }
  if (const Cursor host = sw.child("expert_call_overhead"); host.present()) {
    out.expert_call_overhead_s = host.duration_s();
    out.expert_call_overhead_given = true;
  }
  if (const Cursor wait = sw.child("pipelined_tp_wait_per_rank"); wait.present()) {
    out.pipelined_tp_wait_per_rank_s = wait.duration_s();
    out.pipelined_tp_wait_per_rank_given = true;
  }
  // Training until the workload says otherwise (load_inputs re-applies it for inference).
  apply_software_stack(out, RunType::training);
  out.dp_zero_stage = sw.child("dp_zero_stage").small_integer();
  Cursor p = sw.child("precision");
  PrecisionSpec& ps = out.precision;
  ps.tensor_format = p.child("tensor_format").precision(Precision{});
  const Precision& base = ps.tensor_format;
  ps.matmul = p.child("matmul").precision(base);
  ps.kv_cache = p.child("kv_cache").precision(base);
  ps.parameters = p.child("parameters").precision(base);
  ps.gradients = p.child("gradients").precision(base);
  ps.grad_microbatch = p.child("grad_microbatch").precision(base, &ps.gradients);
  ps.grad_communication = p.child("grad_communication").precision(base);
  ps.optimizer_states = p.child("optimizer_states").precision(base);
  ps.stats = p.child("stats").precision(base);
  ps.master_parameters_bytes = p.child("master_parameters").precision(base).bytes;
  out.h2d_bandwidth_bytes_per_s = sw.child("h2d_bandwidth").bandwidth();
  if (out.h2d_bandwidth_bytes_per_s) {
    sw.child("h2d_bandwidth").warn("host-to-device copies are not part of rapidllm's step: this bandwidth is not used",
                                   "remove the key or set it to -1 (disabled)");
  }
  out.const_mem_offset_bytes = sw.child("const_mem_offset").size_bytes();
  out.attention_softmax_overlap = sw.child("attention_softmax_overlap").optional_real();
  out.dp_microbatch = sw.child("dp_microbatch").choice() == "last_mb" ? DpMicrobatchSync::last_mb
                                                                       : DpMicrobatchSync::every_mb;
  return out;
}

// A kernel family as one published share of the peak (attention_util.<family>: both passes,
// no CTA fill) or as measured per pass (fused_attention.<family>); not both.
std::optional<FusedAttentionFacts> read_fused_attention(const Cursor& core, const char* family) {
  const Cursor share = core.child("attention_util").child(family);
  const Cursor measured = core.child("fused_attention").child(family);
  const Cursor forward = measured.child("forward_util");
  const Cursor backward = measured.child("backward_util");
  const bool any_measured = forward.present() || backward.present() || measured.child("softmax_overlap").present() ||
                            measured.child("forward_cta_fill").present() ||
                            measured.child("backward_cta_fill").present();
  if (share.present() && any_measured) {
    share.fail("the kernel family is described twice (here and under tech_param.core.fused_attention)",
               "keep one: attention_util for one published share, fused_attention for measured per-pass facts");
  }
  if (share.present()) {
    const double v = share.real();
    return FusedAttentionFacts{v, v, std::nullopt, 0.0, 0.0};
  }
  if (!any_measured) return std::nullopt;
  if (!forward.present() || !backward.present()) {
    (forward.present() ? backward : forward)
        .fail("a measured kernel family needs both passes' matmul shares",
              "give forward_util and backward_util (or use attention_util for one share of both)");
  }
  return FusedAttentionFacts{forward.real(), backward.real(), measured.child("softmax_overlap").optional_real(),
                             measured.child("forward_cta_fill").real(), measured.child("backward_cta_fill").real()};
}

CoreSpec read_core(const Cursor& core) {
  CoreSpec out;
  out.frequency_hz = core.child("operating_frequency").frequency_hz();
  out.num_sms = core.child("num_bundles").small_integer();
  out.flop_per_cycle_per_tensor_core = core.child("nominal_flop_rate_per_mcu").real();
  out.energy_per_flop_j = core.child("nominal_energy_per_flop").real();
  out.tensor_cores_per_sm = core.child("num_mcu_per_bundle").small_integer();
  out.fma_d1 = core.child("FMA_d1").small_integer();
  out.fma_d2 = core.child("FMA_d2").small_integer();
  out.dataflow = core.child("dataflow").choice();
  out.mma_threads = core.child("mma_threads").small_integer();
  out.max_cluster_size = core.child("max_cluster_size").small_integer();
  out.static_power_w = core.child("static_power").real();
  out.max_power_w = core.child("max_power").real();
  if (const Cursor limit = core.child("power_limit"); limit.present()) {
    out.power_limit_w = limit.real();
    if (!(out.max_power_w > out.static_power_w) || !(out.power_limit_w > out.static_power_w) ||
        out.power_limit_w > out.max_power_w) {
      limit.fail(fmt::format("a power limit of {:g} W needs static_power < power_limit <= max_power (here {:g} W and "
                             "{:g} W)",
                             out.power_limit_w, out.static_power_w, out.max_power_w),
                 "set tech_param.core.max_power and static_power, and a limit between them, or drop power_limit");
    }
  }
  out.sfu_ops_per_cycle_per_sm = core.child("sfu_ops_per_cycle_per_sm").real();
  out.fp32_ops_per_cycle_per_sm = core.child("fp32_ops_per_cycle_per_sm").real();
  if (out.mma_threads % 32 != 0) {
    core.child("mma_threads").fail(fmt::format("{} is not a whole number of 32-thread warps", out.mma_threads),
                                   "use 32 (warp-level MMA) or 128 (warpgroup-level MMA)");
  }
  out.util = core.child("util").real();
  Cursor scale = core.child("dtype_flop_scale");
  if (auto fp8 = scale.child("fp8").optional_real()) out.dtype_flop_scale[DType::fp8] = *fp8;
  if (auto fp32 = scale.child("fp32").optional_real()) out.dtype_flop_scale[DType::fp32] = *fp32;
  Cursor dtype_util = core.child("dtype_util");
  if (auto fp8 = dtype_util.child("fp8").optional_real()) out.dtype_util[DType::fp8] = *fp8;
  if (auto fp32 = dtype_util.child("fp32").optional_real()) out.dtype_util[DType::fp32] = *fp32;
  for (const auto& [name, kernel] : {std::pair{"flash2", AttentionKernel::flash2}, {"flash3", AttentionKernel::flash3}}) {
    if (auto facts = read_fused_attention(core, name)) out.attention[kernel] = *facts;
  }
  // The Triton kernel is known by one share of the whole kernel, its softmax inside it (no
  // per-pass measurements: the Triton that compiled it is gone).
  if (const auto share = core.child("attention_util").child("triton").optional_real()) {
    out.attention[AttentionKernel::triton] = FusedAttentionFacts{*share, *share, 1.0, 0.0, 0.0};
  }
  return out;
}

MemoryLevel read_memory(const Cursor& tech, const Cursor& level, int num_sms) {
  MemoryLevel out;
  out.name = level.child("type").string();
  std::string scope = level.child("scope").choice();
  out.scope = scope == "mcu" ? MemoryScope::mcu : scope == "mcu-bundle" ? MemoryScope::mcu_bundle : MemoryScope::global;
  Cursor mem = tech.child(out.name);
  if (out.name == "core" || !mem.present()) {
    std::vector<std::string> names = tech.keys();
    std::vector<std::string_view> candidates;
    for (const auto& n : names) {
      if (n != "core") candidates.push_back(n);
    }
    level.child("type").fail(fmt::format("'{}' is not a memory described under tech_param", out.name),
                             suggestion_hint(out.name, candidates, "memories"));
  }
  // Whole-chip figures internally: a per-SM memory counts every SM's.
  const double sms = mem.child("per_sm").boolean() ? static_cast<double>(num_sms) : 1.0;
  out.size_bytes = mem.child("size").size_bytes() * sms;
  out.bandwidth_bytes_per_s = *mem.child("bandwidth").bandwidth() * sms;
  out.dynamic_energy_per_bit_j = mem.child("dynamic_energy_per_bit").real();
  out.latency_s = mem.child("latency").duration_s();
  out.util = mem.child("util").real();
  return out;
}

std::vector<MemoryLevel> read_memory_hierarchy(const Cursor& root, int num_sms) {
  Cursor tech = root.child("tech_param");
  Cursor hierarchy = root.child("memory_hierarchy");
  std::vector<std::string> level_keys = hierarchy.keys();
  if (level_keys.empty()) hierarchy.fail("no memory levels", "list levels l0 (registers) .. l3 (DRAM), each with type and scope");
  std::vector<MemoryLevel> levels;
  std::set<std::string> used;
  for (std::size_t i = 0; i < level_keys.size(); ++i) {
    std::string expected = fmt::format("l{}", i);
    if (std::find(level_keys.begin(), level_keys.end(), expected) == level_keys.end()) {
      hierarchy.fail(fmt::format("levels must be named l0, l1, ... without gaps; '{}' is missing", expected),
                     fmt::format("found: {}", fmt::join(level_keys, ", ")));
    }
    levels.push_back(read_memory(tech, hierarchy.child(expected), num_sms));
    if (!used.insert(levels.back().name).second) {
      hierarchy.child(expected).child("type").fail(fmt::format("memory '{}' is used by two levels", levels.back().name),
                                                        "give each level its own tech_param memory");
    }
  }
  // The kernel models read the levels by position: registers private to a tensor core's
  // warps, shared memory private to an SM, then the chip-wide L2 and DRAM.
  struct Role {
    MemoryScope scope;
    const char* scope_name;
    const char* what;
  };
  static constexpr Role kRoles[] = {{MemoryScope::mcu, "mcu", "registers"},
                                    {MemoryScope::mcu_bundle, "mcu-bundle", "shared memory"},
                                    {MemoryScope::global, "global", "L2"},
                                    {MemoryScope::global, "global", "DRAM"}};
  if (levels.size() != std::size(kRoles)) {
    hierarchy.fail(fmt::format("{} memory levels; the kernel models need exactly 4", levels.size()),
                   "l0 registers (scope mcu), l1 shared memory (mcu-bundle), l2 L2 (global), l3 DRAM (global)");
  }
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (levels[i].scope != kRoles[i].scope) {
      hierarchy.child(fmt::format("l{}", i))
          .child("scope")
          .fail(fmt::format("level l{} is read as the {}, whose scope is {}", i, kRoles[i].what, kRoles[i].scope_name),
                fmt::format("set scope: {}", kRoles[i].scope_name));
    }
  }
  for (const auto& name : tech.keys()) {
    if (name != "core" && used.count(name) == 0) {
      tech.child(name).fail("this memory is not used by any memory_hierarchy level",
                            "reference it from memory_hierarchy.lN.type or remove it");
    }
  }
  return levels;
}

ParallelismSpec read_parallelism(const Cursor& p) {
  ParallelismSpec out;
  out.auto_search = p.child("auto").boolean();
  if (out.auto_search) {
    p.child("auto").fail("a prediction times the parallelism it is given; it does not choose one",
                         "set auto: false and search plans with `rapidllm sweep` (it ranks every tp/pp/dp/... split)");
  }
  out.tp = p.child("tp").small_integer();
  out.tp_sp = p.child("tp_sp").boolean();
  out.cp = p.child("cp").small_integer();
  out.pp = p.child("pp").small_integer();
  out.mb = p.child("mb").small_integer();
  out.dp = p.child("train").child("dp").small_integer();
  out.ep = p.child("train").child("ep").small_integer();
  out.tp_ep = p.child("train").child("tp_ep").boolean();
  out.replica_count = p.child("inference").child("replica_count").small_integer();
  out.moe_dp = p.child("inference").child("moe_dp").small_integer();
  // The registry's choice list holds exactly the schedule names (a unit test checks it).
  out.pp_schedule = *parse_pipeline_schedule(p.child("pp_schedule").choice());
  out.vpp = p.child("vpp").small_integer();
  out.layer_split = p.child("layer_split").choice() == "compute_balanced" ? LayerSplit::compute_balanced
                                                                           : LayerSplit::even;
  if (out.layer_split == LayerSplit::compute_balanced &&
      (out.pp_schedule == PipelineSchedule::interleaved_1f1b || out.pp_schedule == PipelineSchedule::dualpipe)) {
    p.child("layer_split").fail(fmt::format("layer_split: compute_balanced cuts one chunk per stage; pp_schedule '{}' "
                                            "cuts more", to_string(out.pp_schedule)),
                                "use layer_split: even with interleaved 1F1B or DualPipe");
  }
  if (auto mbs = p.child("micro_batch_size").optional_integer()) out.micro_batch_size = static_cast<int>(*mbs);
  if (out.vpp > 1 && out.pp_schedule != PipelineSchedule::interleaved_1f1b) {
    p.child("vpp").fail(fmt::format("vpp = {} needs pp_schedule: interleaved_1f1b (it is '{}')", out.vpp,
                                    to_string(out.pp_schedule)),
                        "set parallelism.pp_schedule: interleaved_1f1b or vpp: 1");
  }
  return out;
}

TopologyType topology_from(const std::string& name) {
  if (name == "Ring") return TopologyType::ring;
  if (name == "FullyConnected" || name == "FC") return TopologyType::fully_connected;
  if (name == "Switch") return TopologyType::switch_;
  if (name == "Torus2D") return TopologyType::torus2d;
  if (name == "Mesh2D") return TopologyType::mesh2d;
  return TopologyType::superpod;
}

CollectiveAlgorithm algorithm_from(const std::string& name) {
  static const std::pair<const char*, CollectiveAlgorithm> table[] = {
      {"auto", CollectiveAlgorithm::auto_}, {"ring", CollectiveAlgorithm::ring},
      {"direct", CollectiveAlgorithm::direct}, {"halvingDoubling", CollectiveAlgorithm::halving_doubling},
      {"doubleBinaryTree", CollectiveAlgorithm::double_binary_tree}, {"mesh", CollectiveAlgorithm::mesh},
      {"mesh2d", CollectiveAlgorithm::mesh2d}, {"hypercube", CollectiveAlgorithm::hypercube},
      {"torus2d", CollectiveAlgorithm::torus2d}, {"nvls", CollectiveAlgorithm::nvls}};
  for (const auto& [n, a] : table) {
    if (name == n) return a;
  }
  return CollectiveAlgorithm::auto_;  // unreachable: the registry's choices are this table
}

constexpr CollectiveOp kOps[] = {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
                                 CollectiveOp::all_to_all,  CollectiveOp::broadcast,  CollectiveOp::send_recv};

// Explicitly written algorithms only: an absent entry means "inherit the default".
std::map<CollectiveOp, CollectiveAlgorithm> read_algorithms(const Cursor& section) {
  std::map<CollectiveOp, CollectiveAlgorithm> out;
  for (auto op : kOps) {
    Cursor c = section.child(to_string(op));
    if (c.present()) out[op] = algorithm_from(c.choice());
  }
  return out;
}

Parallelism parallelism_from(const std::string& name) {
  if (name == "tp") return Parallelism::tp;
  if (name == "cp") return Parallelism::cp;
  if (name == "ep") return Parallelism::ep;
  if (name == "pp") return Parallelism::pp;
  return Parallelism::dp;
}

NetworkDimension read_dimension(const Cursor& d) {
  NetworkDimension out;
  out.id = d.child("id").string();
  out.label = d.child("label").string();
  out.size = d.child("size").dimension_size();
  Cursor topo = d.child("topology");
  out.topology = topology_from(topo.child("type").choice());
  out.bandwidth_bytes_per_s = topo.child("bandwidth").bandwidth_list();
  out.latency_s = topo.child("latency").duration_s();
  out.energy_per_bit_j = topo.child("energy_per_bit").real();
  out.util = topo.child("util").real();
  out.gpus_per_nic = topo.child("gpus_per_nic").small_integer();
  out.optimize_2dmap = topo.child("optimize_2dmap").boolean();
  if (out.optimize_2dmap) {
    topo.child("optimize_2dmap").warn("not modelled: ranks fill the dimension in row-major order",
                                      "remove the key or set it to false");
  }
  out.in_network_reduction = topo.child("in_network_reduction").boolean();
  out.in_network_reduction_util = topo.child("in_network_reduction_util").optional_real();
  if (Cursor l = topo.child("in_network_reduction_latency"); l.present()) out.in_network_reduction_latency_s = l.duration_s();
  std::vector<std::string_view> missing;
  for (NcclProtocol p : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
    Cursor c = topo.child("protocols").child(std::string(to_string(p)));
    if (!c.present()) {
      missing.push_back(to_string(p));
      continue;
    }
    ProtocolSpec spec{p, c.child("latency").duration_s(), c.child("step_latency").duration_s(),
                      c.child("bandwidth_fraction").real()};
    if (Cursor cap = c.child("max_bandwidth"); cap.present()) {
      spec.max_bandwidth_bytes_per_s = cap.bandwidth().value_or(spec.max_bandwidth_bytes_per_s);
    }
    out.protocols.push_back(spec);
  }
  // Without a protocols block every collective runs one protocol at the dimension's own
  // latency and util; with one, a protocol left out is one NCCL can no longer pick.
  if (!out.protocols.empty() && !missing.empty()) {
    topo.child("protocols")
        .warn(fmt::format("{} not described: collectives here choose only among the protocols listed",
                          fmt::join(missing, ", ")),
              "describe all three NCCL protocols (LL, LL128, Simple), or remove the block for one protocol at the "
              "dimension's latency and util");
  }
  if (out.in_network_reduction && out.topology != TopologyType::switch_) {
    topo.child("in_network_reduction").fail("in-network reduction is modelled on Switch dimensions only",
                                            "set topology.type: Switch or remove in_network_reduction");
  }
  SuperPodSpec pod;
  pod.variant = topo.child("superpod_variant").string();
  pod.leaf_size = topo.child("leaf_size").small_integer();
  pod.leaf_switches_per_su = topo.child("leaf_switches_per_su").small_integer();
  pod.spine_switches_per_su = topo.child("spine_switches_per_su").small_integer();
  if (out.topology == TopologyType::superpod) {
    if (pod.leaf_size < 1) topo.child("leaf_size").fail("a SuperPOD needs leaf_size >= 1", "GPUs per leaf group, e.g. 32");
    if (out.bandwidth_bytes_per_s.size() > 2) {
      topo.child("bandwidth").fail("a SuperPOD takes one bandwidth per level: [leaf, spine]",
                                   "e.g. bandwidth: [50 GB/s, 50 GB/s] (spine below leaf = oversubscribed)");
    }
    out.superpod = pod;
  } else if (out.bandwidth_bytes_per_s.size() != 1) {
    topo.child("bandwidth").fail(fmt::format("{} takes a single bandwidth", to_string(out.topology)),
                                 "per-level bandwidth lists are for SuperPOD");
  }
  bool two_d = out.topology == TopologyType::torus2d || out.topology == TopologyType::mesh2d;
  if (out.size.size() > 2 || (out.size.size() == 2 && !two_d)) {
    d.child("size").fail(fmt::format("a {} dimension takes a single size", to_string(out.topology)),
                         "[X, Y] shapes are for Torus2D and Mesh2D");
  }
  out.collective_override = read_algorithms(d.child("collective_override"));
  for (const auto& name : d.child("parallelisms").choice_list()) {
    Parallelism p = parallelism_from(name);
    if (std::find(out.parallelisms.begin(), out.parallelisms.end(), p) != out.parallelisms.end()) {
      d.child("parallelisms").fail(fmt::format("'{}' is listed twice", name), "list each parallelism once");
    }
    out.parallelisms.push_back(p);
  }
  return out;
}

NetworkSpec read_network(const Cursor& n) {
  NetworkSpec out;
  Cursor dims = n.child("dimensions");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < dims.list_size(); ++i) {
    Cursor d = dims.element(i);
    out.dimensions.push_back(read_dimension(d));
    const NetworkDimension& dim = out.dimensions.back();
    if (!ids.insert(dim.id).second) d.child("id").fail(fmt::format("dimension id '{}' is used twice", dim.id), "give every dimension its own id");
    for (auto p : dim.parallelisms) {
      for (std::size_t j = 0; j + 1 < out.dimensions.size(); ++j) {
        const auto& other = out.dimensions[j].parallelisms;
        if (std::find(other.begin(), other.end(), p) != other.end()) {
          d.child("parallelisms").fail(
              fmt::format("'{}' is already mapped to dimension '{}'", to_string(p), out.dimensions[j].id),
              "map each parallelism to one dimension");
        }
      }
    }
  }
  out.faulty_links = n.child("faulty_links").links();
  out.faulty_links_source = n.child("faulty_links").where();
  Cursor overlap = n.child("overlap");
  out.overlap.tp_overlap = overlap.child("tp_overlap").real();
  out.overlap.tp_sp_overlap = overlap.child("tp_sp_overlap").real();
  out.overlap.cp_overlap = overlap.child("cp_overlap").real();
  out.overlap.ep_overlap = overlap.child("ep_overlap").real();
  return out;
}

ExecutionBackendSpec read_execution(const Cursor& e) {
  ExecutionBackendSpec out;
  Cursor astra = e.child("astra");
  if (e.child("model").choice() == "analytical") {
    out.mode = ExecutionMode::analytical;
  } else {
    std::string mode = astra.child("mode").choice();
    out.mode = mode == "hybrid"                       ? ExecutionMode::hybrid
               : mode == "full_astrasim_hierarchical" ? ExecutionMode::full_astrasim_hierarchical
                                                      : ExecutionMode::full_astrasim_flattened;
  }
  (void)astra.child("backend").choice();  // one choice: validated, nothing to record
  out.collectives = read_algorithms(astra.child("collectives"));
  Cursor sys = astra.child("sys_options");
  // ASTRA-sim counts time in cycles of a 1 ns clock.
  constexpr double kAstraCycleS = 1e-9;
  out.endpoint_delay_s = sys.child("endpoint_delay").real() * kAstraCycleS;
  out.active_chunks_per_dimension = sys.child("active_chunks_per_dimension").small_integer();
  out.preferred_dataset_splits = sys.child("preferred_dataset_splits").small_integer();
  out.collective_arbitration = sys.child("collective_arbitration").string();
  out.max_events = astra.child("max_events").real();
  return out;
}

}  // namespace

HardwareSpec read_hardware(const Document& doc) {
  Cursor root(doc);
  HardwareSpec hw;
  hw.source = doc.file;
  hw.sw = read_software(root.child("sw_param"));
  hw.core = read_core(root.child("tech_param").child("core"));
  hw.memory = read_memory_hierarchy(root, hw.core.num_sms);
  hw.parallelism = read_parallelism(root.child("parallelism"));
  hw.network = read_network(root.child("network"));
  hw.execution = read_execution(root.child("execution_backend"));
  hw.kvcache_type = root.child("inference").child("kvcache_type").choice();
  return hw;
}

}  // namespace rapidllm::config
