#include "exec/gemm_predictor.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "compute/gemm_tile_model.hpp"
#include "network/analytical_collectives.hpp"
#include "parallel/gemm_sharding.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::exec {

namespace {

constexpr double kBitsPerByte = 8.0;

const NetworkDimension* tp_dimension(const HardwareSpec& hw, int tp) {
  if (tp == 1) return nullptr;
  const NetworkDimension* dim = hw.network.dimension_for(Parallelism::tp);
  if (dim == nullptr) {
    throw InfeasibleError(fmt::format(
        "parallelism.tp = {} but no network dimension lists tp in its parallelisms; add tp to one of "
        "network.dimensions[].parallelisms",
        tp));
  }
  if (!dim->size.empty()) {
    const int capacity = std::accumulate(dim->size.begin(), dim->size.end(), 1, std::multiplies<>());
    if (tp > capacity) {
      throw InfeasibleError(fmt::format("parallelism.tp = {} exceeds the {} ranks of network dimension '{}'", tp,
                                        capacity, dim->id));
    }
  }
  return dim;
}

// Per-GPU bytes live during one pass: its two operands and its result.
double pass_footprint_bytes(const GemmShape& s, double element_bytes) {
  const double m = static_cast<double>(s.m), n = static_cast<double>(s.n), k = static_cast<double>(s.k);
  return (m * k + k * n + m * n) * element_bytes * static_cast<double>(s.batch);
}

}  // namespace

GemmPrediction predict_gemm(const HardwareSpec& hw, const GemmModelSpec& gemm, DType dtype) {
  GemmPrediction out;
  out.spec = gemm;
  out.dtype = dtype;
  out.tp = hw.parallelism.tp;
  out.tp_sp = hw.parallelism.tp_sp && out.tp > 1;
  const NetworkDimension* dim = tp_dimension(hw, out.tp);
  if (dim != nullptr) out.network_dimension = dim->id;
  const double overlap = out.tp_sp ? hw.network.overlap.tp_sp_overlap : hw.network.overlap.tp_overlap;
  const double element_bytes = dtype_bytes(dtype);

  compute::GemmTileModel model(hw, dtype);
  out.peak_flops_per_s_per_gpu = hw.core.peak_flops_per_s(dtype).value_or(0.0);
  double network_bytes = 0.0;
  for (const auto& sharded : parallel::shard_gemm(gemm, out.tp, out.tp_sp, element_bytes)) {
    GemmPassResult pass;
    pass.name = sharded.name;
    pass.compute = model.estimate(sharded.local_shape);
    for (const auto& c : sharded.collectives) {
      GemmCollectiveResult r;
      r.tensor = c.tensor;
      r.before_gemm = c.before_gemm;
      r.estimate = network::estimate_collective(c.op, c.bytes, {GroupSpan{dim, out.tp}}, hw.execution);
      pass.communication_time_s += r.estimate.time_s;
      // Bytes each rank injects: the nccl-tests bus factor times the buffer.
      network_bytes += bus_bandwidth_factor(c.op, out.tp) * c.bytes * out.tp;
      pass.collectives.push_back(std::move(r));
    }
    // The overlap fraction hides that share of whichever is shorter, compute or communication.
    const double hidden = overlap * std::min(pass.communication_time_s, pass.compute.time_s);
    pass.exposed_communication_time_s = pass.communication_time_s - hidden;
    for (auto& r : pass.collectives) {
      r.exposed_time_s = pass.communication_time_s > 0
                             ? r.estimate.time_s * pass.exposed_communication_time_s / pass.communication_time_s
                             : 0.0;
    }
    pass.time_s = pass.compute.time_s + pass.exposed_communication_time_s;
    out.time_s += pass.time_s;
    out.compute_time_s += pass.compute.time_s;
    out.exposed_communication_time_s += pass.exposed_communication_time_s;
    out.peak_memory_bytes = std::max(out.peak_memory_bytes, pass_footprint_bytes(sharded.local_shape, element_bytes));

    out.energy.compute_j += pass.compute.flops * hw.core.energy_per_flop_j * out.tp;
    for (std::size_t i = 0; i < hw.memory.size() && i < pass.compute.traffic.size(); ++i) {
      if (out.energy.memory_j.size() <= i) out.energy.memory_j.emplace_back(hw.memory[i].name, 0.0);
      out.energy.memory_j[i].second +=
          pass.compute.traffic[i].bytes * kBitsPerByte * hw.memory[i].dynamic_energy_per_bit_j * out.tp;
    }
    out.passes.push_back(std::move(pass));
  }
  if (dim != nullptr) out.energy.network_j = network_bytes * kBitsPerByte * dim->energy_per_bit_j;
  out.energy.total_j = out.energy.compute_j + out.energy.network_j;
  for (const auto& [name, j] : out.energy.memory_j) out.energy.total_j += j;

  const double global_flops = 2.0 * static_cast<double>(gemm.m) * static_cast<double>(gemm.n) * static_cast<double>(gemm.k);
  out.flops = global_flops * static_cast<double>(out.passes.size());
  out.achieved_flops_per_s = out.time_s > 0 ? out.flops / out.time_s : 0.0;
  out.fits_in_memory = out.peak_memory_bytes <= hw.dram().size_bytes;
  return out;
}

}  // namespace rapidllm::exec
