#include "compute/op_coster.hpp"

#include <algorithm>

namespace rapidllm::compute {

OpCoster::OpCoster(const HardwareSpec& hw, DType dtype, DType matmul_dtype)
    : gemms_(GemmTileModel(hw, matmul_dtype)),
      attention_(hw, dtype),
      launch_s_(hw.sw.kernel_launch_overhead_s),
      dram_bytes_per_s_(hw.dram().bandwidth_bytes_per_s * hw.dram().util),
      dram_latency_s_(hw.dram().latency_s) {}

double OpCoster::launched(double body_s, int kernels) const { return std::max(body_s, launch_s_ * kernels); }

double OpCoster::memory_kernel_s(double bytes) const {
  return launched(bytes / dram_bytes_per_s_ + dram_latency_s_);
}

double OpCoster::gemm_s(const GemmShape& shape) {
  const GemmEstimate& e = gemms_.estimate(shape);
  return launched(e.time_s - e.launch_overhead_s);
}

OpTime OpCoster::time(const model::Op& op) {
  OpTime t;
  switch (op.kind) {
    case model::OpKind::gemm: {
      // C[M x N] = A[M x K] W[K x N]; dA = dC W^T is M x K over N, dW = A^T dC is K x N over M.
      const GemmShape& g = op.gemm;
      t.forward_s = gemm_s(g);
      t.weight_grad_s = gemm_s(GemmShape{g.k, g.n, g.m, g.batch});
      t.backward_s = gemm_s(GemmShape{g.m, g.k, g.n, g.batch}) + t.weight_grad_s;
      t.forward_flops = 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k) *
                        static_cast<double>(g.batch);
      break;
    }
    case model::OpKind::attention: {
      const AttentionTime a = attention_.time(op.attention, gemms_);
      t.forward_s = launched(a.forward_s, a.forward_kernels);
      t.backward_s = a.backward_s > 0 ? launched(a.backward_s, a.backward_kernels) : 0.0;
      t.forward_flops = a.forward_flops;
      break;
    }
    case model::OpKind::memory:
      t.forward_s = memory_kernel_s(op.forward_bytes);
      t.backward_s = op.backward_bytes > 0 ? memory_kernel_s(op.backward_bytes) : 0.0;
      break;
  }
  return t;
}

}  // namespace rapidllm::compute
