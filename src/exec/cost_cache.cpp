#include "exec/cost_cache.hpp"

#include "exec/word_hash.hpp"

namespace rapidllm::exec {

std::uint64_t kernel_fingerprint(const HardwareSpec& hw, DType dtype, DType matmul_dtype) {
  WordHash f;
  f.add(static_cast<int>(dtype));
  f.add(static_cast<int>(matmul_dtype));
  const CoreSpec& c = hw.core;
  for (double v : {c.frequency_hz, c.flop_per_cycle_per_tensor_core, c.util, c.sfu_ops_per_cycle_per_sm,
                   c.fp32_ops_per_cycle_per_sm, c.energy_per_flop_j, c.power_capped_clock_factor()}) {
    f.add(v);
  }
  for (int v : {c.num_sms, c.tensor_cores_per_sm, c.fma_d1, c.fma_d2, c.mma_threads, c.max_cluster_size}) f.add(v);
  for (const auto* m : {&c.dtype_flop_scale, &c.dtype_util}) {
    for (const auto& [d, s] : *m) {
      f.add(static_cast<int>(d));
      f.add(s);
    }
  }
  for (const MemoryLevel& m : hw.memory) {
    f.add(m.name);
    f.add(static_cast<int>(m.scope));
    for (double v : {m.size_bytes, m.bandwidth_bytes_per_s, m.latency_s, m.util, m.dynamic_energy_per_bit_j}) f.add(v);
  }
  f.add(hw.sw.kernel_launch_overhead_s);
  f.add(hw.sw.expert_call_overhead_s);
  f.add(hw.sw.compute_efficiency);
  f.add(static_cast<int>(hw.sw.attention_kernel));
  for (const auto& [kernel, facts] : c.attention) {
    f.add(static_cast<int>(kernel));
    for (double v : {facts.forward_util, facts.backward_util, facts.softmax_overlap.value_or(-1.0), facts.forward_cta_fill,
                     facts.backward_cta_fill}) {
      f.add(v);
    }
  }
  f.add(hw.sw.attention_softmax_overlap.value_or(-1.0));
  f.add(hw.sw.decode_kv_passes);
  return f.value();
}

std::shared_ptr<const parallel::Placement> CostCache::placement(const NetworkSpec& network,
                                                                const parallel::Degrees& degrees) {
  const auto& dims = network.dimensions;
  const auto same_layout = [&](const PlacementEntry& e) {
    if (e.storage != dims.data() || e.layout.size() != dims.size() || !(e.degrees == degrees)) return false;
    for (std::size_t j = 0; j < dims.size(); ++j) {
      if (e.layout[j].first != dims[j].size || e.layout[j].second != dims[j].parallelisms) return false;
    }
    return true;
  };
  WordHash h;
  h.add(reinterpret_cast<std::uintptr_t>(dims.data()));
  for (int v : {degrees.tp, degrees.cp, degrees.ep, degrees.dp, degrees.pp}) h.add(v);
  const auto [first, last] = placements_.equal_range(h.value());
  for (auto it = first; it != last; ++it) {
    if (same_layout(it->second)) return it->second.placement;
  }
  // Bounds what a long sweep over many networks holds.
  constexpr std::size_t kMaxPlacements = 4096;
  if (placements_.size() >= kMaxPlacements) placements_.clear();
  PlacementEntry e{dims.data(), degrees, {}, std::make_shared<const parallel::Placement>(network, degrees)};
  e.layout.reserve(dims.size());
  for (const NetworkDimension& d : dims) e.layout.emplace_back(d.size, d.parallelisms);
  return placements_.emplace(h.value(), std::move(e))->second.placement;
}

compute::OpCoster& CostCache::coster(const HardwareSpec& hw, DType dtype, DType matmul_dtype) {
  auto& slot = costers_[kernel_fingerprint(hw, dtype, matmul_dtype)];
  if (!slot) slot = std::make_unique<compute::OpCoster>(hw, dtype, matmul_dtype);
  return *slot;
}

}  // namespace rapidllm::exec
