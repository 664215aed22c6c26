// Times the kernels of an op list: GEMMs by the tile model (cached by shape), attention by
// the attention model, memory-bound kernels by HBM bandwidth. Kernels are launched
// asynchronously, so a kernel costs its launch overhead only when it is shorter than it:
// time = max(body, launch overhead).
#pragma once

#include <optional>

#include "compute/attention_model.hpp"
#include "compute/gemm_cache.hpp"
#include "energy/op_energy.hpp"
#include "model/layer_ops.hpp"

namespace rapidllm::compute {

struct OpTime {
  double forward_s = 0.0;
  double backward_s = 0.0;     // all of backward, weight gradients included
  double weight_grad_s = 0.0;  // the weight-gradient GEMMs (zero-bubble schedules defer them)
  double forward_flops = 0.0;  // executed on tensor cores
  energy::Energy forward_energy;   // dynamic
  energy::Energy backward_energy;
};

class OpCoster {
 public:
  // GEMMs run in `matmul_dtype` (those marked in_tensor_format in `dtype`); attention in
  // the activation format `dtype`.
  OpCoster(const HardwareSpec& hardware, DType dtype, DType matmul_dtype);

  [[nodiscard]] OpTime time(const model::Op& op);
  // `kernels` memory-bound launches moving `bytes` through HBM in all: each pays the DRAM
  // latency, and together they last at least their launch gaps.
  [[nodiscard]] double memory_kernel_s(double bytes, int kernels = 1) const;
  // A kernel body with the launch rule applied.
  [[nodiscard]] double launched(double body_s, int kernels = 1) const;
  [[nodiscard]] double gemm_s(const GemmShape& shape) { return gemm_s(gemms_, shape); }

  [[nodiscard]] CachedGemmModel& gemms() { return gemms_; }
  [[nodiscard]] const AttentionModel& attention() const { return attention_; }
  [[nodiscard]] const energy::OpEnergyModel& energy() const { return energy_; }

 private:
  [[nodiscard]] double gemm_s(CachedGemmModel& model, const GemmShape& shape);

  CachedGemmModel gemms_;
  // The activation format's GEMMs (in_tensor_format ops), when GEMMs run in another dtype.
  std::optional<CachedGemmModel> format_gemms_;
  AttentionModel attention_;
  energy::OpEnergyModel energy_;
  double launch_s_ = 0.0;
  double expert_call_s_ = 0.0;  // host time per per-expert call (SoftwareSpec::expert_call_overhead_s)
  double dram_bytes_per_s_ = 0.0;
  double dram_latency_s_ = 0.0;
};

}  // namespace rapidllm::compute
