// Dynamic energy of kernels: FLOPs at the core's energy per FLOP, and the bytes each memory
// level moves at its energy per bit (tech_param.*.dynamic_energy_per_bit).
#pragma once

#include <array>

#include "rapidllm/gemm.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::energy {

struct Energy {
  double compute_j = 0.0;
  double on_chip_j = 0.0;  // registers, shared memory, L2
  double hbm_j = 0.0;
  double network_j = 0.0;
  double static_j = 0.0;

  [[nodiscard]] double total() const { return compute_j + on_chip_j + hbm_j + network_j + static_j; }
  // Inline: a prediction sums these per rank and per op, across translation units.
  Energy& operator+=(const Energy& o) {
    compute_j += o.compute_j;
    on_chip_j += o.on_chip_j;
    hbm_j += o.hbm_j;
    network_j += o.network_j;
    static_j += o.static_j;
    return *this;
  }
  [[nodiscard]] Energy scaled(double f) const {
    return Energy{compute_j * f, on_chip_j * f, hbm_j * f, network_j * f, static_j * f};
  }
};

class OpEnergyModel {
 public:
  explicit OpEnergyModel(const HardwareSpec& hardware);

  // A GEMM from its tile-model traffic (one entry per memory level, innermost first).
  [[nodiscard]] Energy gemm(const GemmEstimate& e) const;
  // A kernel doing `flops` on tensor cores and moving `hbm_bytes` through L2 and HBM.
  [[nodiscard]] Energy streaming(double flops, double hbm_bytes) const;

 private:
  std::array<double, 4> j_per_flop_{};  // CoreSpec::energy_per_flop, indexed by DType
  std::vector<double> j_per_byte_;  // per memory level
};

}  // namespace rapidllm::energy
