// Single-GPU GEMM latency from the tile-level model (compute/), and its explanation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rapidllm/dtype.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm {

// The largest m, n or k the tile model takes: products of two tile counts (and split-K)
// stay inside int64 below it.
inline constexpr std::int64_t kMaxGemmDimension = 2147483647;

// C[m x n] = A[m x k] * B[k x n], repeated `batch` times (independent problems).
struct GemmShape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t batch = 1;

  friend bool operator==(const GemmShape&, const GemmShape&) = default;
};

// The decomposition the model chose: a CTA (thread-block) tile held in shared memory, a
// warp tile held in registers, the K-step staged per pipeline stage, and split-K.
struct GemmTiling {
  int block_m = 0;
  int block_n = 0;
  int block_k = 0;
  int warp_m = 0;
  int warp_n = 0;
  int split_k = 1;
  int ctas_per_sm = 1;  // resident CTAs per SM allowed by registers and shared memory
  int stages = 2;       // software-pipeline depth of the shared-memory buffers
  // Thread-block cluster: cluster_n CTAs along N share each A tile and cluster_m CTAs
  // along M share each B tile, which then crosses L2 once per cluster (multicast).
  int cluster_m = 1;
  int cluster_n = 1;
};

// Bytes moved into one memory level and the time that level alone would need.
struct LevelTraffic {
  std::string level;  // MemoryLevel::name, or "tensor-core" for the compute roof
  double bytes = 0.0;
  double time_s = 0.0;
};

struct GemmEstimate {
  GemmShape shape;
  DType dtype = DType::bf16;
  double flops = 0.0;          // 2*m*n*k*batch: useful work, no padding
  double time_s = 0.0;         // kernel time including launch overhead
  double launch_overhead_s = 0.0;
  GemmTiling tiling;
  std::int64_t tiles = 0;      // CTA tiles including split-K slices
  double waves = 0.0;          // tiles / (SMs): fractional number of waves
  double wave_efficiency = 1.0;  // useful tile slots / occupied tile slots, in (0, 1]
  std::string bound_by;        // the level (or "tensor-core") that set the time
  std::vector<LevelTraffic> traffic;  // one entry per memory level, then the compute roof

  [[nodiscard]] double achieved_flops_per_s() const { return time_s > 0 ? flops / time_s : 0.0; }
};

}  // namespace rapidllm
