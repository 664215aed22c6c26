#include "energy/op_energy.hpp"

namespace rapidllm::energy {

OpEnergyModel::OpEnergyModel(const HardwareSpec& hw) {
  for (const DType d : {DType::fp8, DType::fp16, DType::bf16, DType::fp32}) {
    j_per_flop_[static_cast<std::size_t>(d)] = hw.core.energy_per_flop(d);
  }
  for (const auto& level : hw.memory) j_per_byte_.push_back(8.0 * level.dynamic_energy_per_bit_j);
}

Energy OpEnergyModel::gemm(const GemmEstimate& e) const {
  Energy out;
  out.compute_j = e.flops * j_per_flop_[static_cast<std::size_t>(e.dtype)];
  const std::size_t levels = j_per_byte_.size();
  for (std::size_t i = 0; i < levels && i < e.traffic.size(); ++i) {
    const double j = e.traffic[i].bytes * j_per_byte_[i];
    (i + 1 == levels ? out.hbm_j : out.on_chip_j) += j;
  }
  return out;
}

Energy OpEnergyModel::streaming(double flops, double hbm_bytes) const {
  Energy out;
  out.compute_j = flops * j_per_flop_[static_cast<std::size_t>(DType::bf16)];  // 16-bit attention matmuls
  if (!j_per_byte_.empty()) {
    out.hbm_j = hbm_bytes * j_per_byte_.back();
    if (j_per_byte_.size() > 1) out.on_chip_j = hbm_bytes * j_per_byte_[j_per_byte_.size() - 2];  // through L2
  }
  return out;
}

}  // namespace rapidllm::energy
