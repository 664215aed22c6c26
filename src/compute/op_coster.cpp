#include "compute/op_coster.hpp"

#include <algorithm>

namespace rapidllm::compute {

OpCoster::OpCoster(const HardwareSpec& hw, DType dtype, DType matmul_dtype)
    : gemms_(GemmTileModel(hw, matmul_dtype, hw.sw.compute_efficiency)),
      attention_(hw, dtype),
      energy_(hw),
      launch_s_(hw.sw.kernel_launch_overhead_s),
      expert_call_s_(hw.sw.expert_call_overhead_s),
      dram_bytes_per_s_(hw.dram().bandwidth_bytes_per_s * hw.dram().util),
      dram_latency_s_(hw.dram().latency_s) {
  if (dtype != matmul_dtype) format_gemms_.emplace(GemmTileModel(hw, dtype, hw.sw.compute_efficiency));
}

double OpCoster::launched(double body_s, int kernels) const { return std::max(body_s, launch_s_ * kernels); }

double OpCoster::memory_kernel_s(double bytes, int kernels) const {
  return launched(bytes / dram_bytes_per_s_ + kernels * dram_latency_s_, kernels);
}

double OpCoster::gemm_s(CachedGemmModel& model, const GemmShape& shape) {
  const GemmEstimate& e = model.estimate(shape);
  return launched(e.time_s - e.launch_overhead_s);
}

OpTime OpCoster::time(const model::Op& op) {
  OpTime t;
  // A host loop over the experts: each pass lasts at least its calls (the dispatch before it
  // synchronised the host with the GPU, so nothing was queued ahead).
  const double calls_s = static_cast<double>(op.expert_calls) * expert_call_s_;
  const auto looped = [calls_s](double body_s) { return std::max(body_s, calls_s); };
  switch (op.kind) {
    case model::OpKind::gemm: {
      // C[M x N] = A[M x K] W[K x N]; dA = dC W^T is M x K over N, dW = A^T dC is K x N over M.
      const GemmShape& g = op.gemm;
      const GemmShape dgrad{g.m, g.k, g.n, g.batch};
      const GemmShape wgrad{g.k, g.n, g.m, g.batch};
      CachedGemmModel& model = op.in_tensor_format && format_gemms_ ? *format_gemms_ : gemms_;
      t.forward_s = looped(gemm_s(model, g));
      t.weight_grad_s = looped(gemm_s(model, wgrad));
      t.backward_s = looped(gemm_s(model, dgrad)) + t.weight_grad_s;
      t.forward_energy = energy_.gemm(model.estimate(g));
      t.backward_energy = energy_.gemm(model.estimate(dgrad));
      t.backward_energy += energy_.gemm(model.estimate(wgrad));
      t.forward_flops = 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k) *
                        static_cast<double>(g.batch);
      break;
    }
    case model::OpKind::attention: {
      const AttentionTime a = attention_.time(op.attention, gemms_);
      t.forward_s = launched(a.forward_s, a.forward_kernels);
      t.backward_s = a.backward_s > 0 ? launched(a.backward_s, a.backward_kernels) : 0.0;
      t.forward_flops = a.forward_flops;
      t.forward_energy = energy_.streaming(a.forward_flops, a.forward_hbm_bytes);
      t.backward_energy = energy_.streaming(a.backward_flops, a.backward_hbm_bytes);
      break;
    }
    case model::OpKind::memory:
      t.forward_s = looped(memory_kernel_s(op.forward_bytes, op.forward_kernels));
      t.backward_s = op.backward_bytes > 0 ? looped(memory_kernel_s(op.backward_bytes, op.backward_kernels)) : 0.0;
      t.forward_energy = energy_.streaming(0.0, op.forward_bytes);
      t.backward_energy = energy_.streaming(0.0, op.backward_bytes);
      break;
  }
  return t;
}

}  // namespace rapidllm::compute
