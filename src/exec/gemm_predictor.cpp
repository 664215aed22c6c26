#include "exec/gemm_predictor.hpp"

#include <algorithm>

#include "compute/gemm_tile_model.hpp"
#include "exec/executor.hpp"
#include "network/network_api.hpp"
#include "parallel/gemm_sharding.hpp"
#include "parallel/placement.hpp"

namespace rapidllm::exec {

namespace {

constexpr double kBitsPerByte = 8.0;

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
  parallel::Degrees degrees;
  degrees.tp = out.tp;
  const parallel::Placement placement(hw.network, degrees);
  const std::vector<GroupSpan>& group = placement.group(Parallelism::tp);
  if (!group.empty()) out.network_dimension = group.front().dimension->id;
  const auto network = network::make_network(NetworkBackend::analytical, hw.network, hw.execution);
  const double overlap = out.tp_sp ? hw.network.overlap.tp_sp_overlap : hw.network.overlap.tp_overlap;
  const double element_bytes = dtype_bytes(dtype);

  // One kernel on its own: the device's kernel-level rate, no framework around it.
  compute::GemmTileModel model(hw, dtype);
  out.peak_flops_per_s_per_gpu = hw.core.peak_flops_per_s(dtype).value_or(0.0);
  for (const auto& sharded : parallel::shard_gemm(gemm, out.tp, out.tp_sp, element_bytes)) {
    GemmPassResult pass;
    pass.name = sharded.name;
    pass.compute = model.estimate(sharded.local_shape);
    for (const auto& c : sharded.collectives) {
      GemmCollectiveResult r;
      r.tensor = c.tensor;
      r.before_gemm = c.before_gemm;
      r.estimate = network->collective(c.op, c.bytes, group);
      pass.communication_time_s += r.estimate.time_s;
      out.energy.network_j += network::collective_energy_j(r.estimate, group);
      pass.collectives.push_back(std::move(r));
    }
    pass.exposed_communication_time_s = exposed_comm_s(pass.communication_time_s, pass.compute.time_s, overlap);
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

    out.energy.compute_j += pass.compute.flops * hw.core.energy_per_flop(pass.compute.dtype) * out.tp;
    for (std::size_t i = 0; i < hw.memory.size() && i < pass.compute.traffic.size(); ++i) {
      if (out.energy.memory_j.size() <= i) out.energy.memory_j.emplace_back(hw.memory[i].name, 0.0);
      out.energy.memory_j[i].second +=
          pass.compute.traffic[i].bytes * kBitsPerByte * hw.memory[i].dynamic_energy_per_bit_j * out.tp;
    }
    out.passes.push_back(std::move(pass));
  }
  out.energy.total_j = out.energy.compute_j + out.energy.network_j;
  for (const auto& [name, j] : out.energy.memory_j) out.energy.total_j += j;

  const double global_flops = 2.0 * static_cast<double>(gemm.m) * static_cast<double>(gemm.n) * static_cast<double>(gemm.k);
  out.flops = global_flops * static_cast<double>(out.passes.size());
  out.achieved_flops_per_s = out.time_s > 0 ? out.flops / out.time_s : 0.0;
  out.fits_in_memory = out.peak_memory_bytes <= hw.dram().size_bytes;
  return out;
}

}  // namespace rapidllm::exec
