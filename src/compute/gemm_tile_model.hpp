// Tile-level GEMM latency model: picks the fastest CTA/warp tiling (and split-K) the
// device's memory hierarchy admits, counts the bytes each level moves, and times the
// kernel as the slowest level (tensor cores or a memory level) scaled by wave
// quantization across SMs, plus launch overhead. See docs/gemm-model.md.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "rapidllm/gemm.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::compute {

class GemmTileModel {
 public:
  // Throws InfeasibleError when the hardware config does not describe `dtype`'s
  // throughput or lacks a register/shared-memory/L2/DRAM level. The tensor-core rate is the
  // device's kernel-level one (peak x core.util) times `stack_efficiency`: 1 for a kernel
  // on its own, the software stack's compute_efficiency inside a framework's step.
  GemmTileModel(const HardwareSpec& hardware, DType dtype, double stack_efficiency = 1.0);

  // Best tiling over the whole candidate space.
  [[nodiscard]] GemmEstimate estimate(const GemmShape& shape) const;

  // One given tiling (the search evaluates these; tests use it to pin a tiling). Its
  // ctas_per_sm is recomputed from the device. Throws InfeasibleError if the tiling is
  // malformed or does not fit in registers/shared memory.
  [[nodiscard]] GemmEstimate evaluate(const GemmShape& shape, const GemmTiling& tiling) const;

  // The tilings the search considers for a shape (exposed for tests and docs).
  [[nodiscard]] std::vector<GemmTiling> candidate_tilings(const GemmShape& shape) const;

  [[nodiscard]] DType dtype() const { return dtype_; }

 private:
  // The numbers evaluate() derives for one tiling; the search compares these without
  // building the (allocating) GemmEstimate for every candidate.
  struct TilingCost {
    double padded_flops = 0.0;
    // Unscaled time of each roof: [0] tensor cores, [1..4] registers, shared memory, L2, DRAM.
    std::array<double, 5> roof_time_s{};
    std::array<double, 4> level_bytes{};  // registers, shared memory, L2, DRAM
    double q = 1.0;              // wave-quantization factor, >= 1
    std::int64_t tiles = 0;
    double body_s = 0.0;         // q * slowest roof + pipeline fill
    double time_s = 0.0;         // body + launch overhead
  };

  // Resident CTAs per SM for a well-formed tiling, or 0 when one CTA does not fit in the
  // SM's registers or shared memory (the reason goes to *why_not when it is given).
  [[nodiscard]] int fit_ctas_per_sm(const GemmTiling& tiling, std::string* why_not) const;
  void check_cluster(const GemmShape& shape, const GemmTiling& tiling) const;
  // What cost() reads of a shape, derived once per search instead of once per tiling.
  struct ShapeTerms {
    std::int64_t batch = 1;
    std::int64_t m_pad = 0, n_pad = 0, k_pad = 0;  // padded to the MMA granularity
    double m = 0.0, n = 0.0;
    double a_bytes = 0.0, b_bytes = 0.0, c_bytes = 0.0;  // operands and result, in-bounds elements
  };
  [[nodiscard]] ShapeTerms shape_terms(const GemmShape& shape) const;
  // `give_up_above_s`: a search's best time so far; a tiling whose compute, register,
  // shared-memory and L2 roofs already exceed it returns that lower bound as time_s, the
  // rest of the TilingCost unfilled.
  [[nodiscard]] TilingCost cost(const ShapeTerms& shape, const GemmTiling& tiling,
                                double give_up_above_s = std::numeric_limits<double>::infinity()) const;

  // The shape-independent part of the candidate space, derived once per device and dtype
  // (a sweep searches hundreds of shapes): each CTA tile's preferred K-step and warp tiles,
  // and for every warp tile and K-step the resident CTAs (0: does not fit) and stages.
  struct BlockChoice {
    int block_m = 0;
    int block_n = 0;
    int block_k_pref = 0;
    int warp_count = 0;
    std::array<int, 2> warp_m{};
    std::array<int, 2> warp_n{};
    std::array<std::array<int, 3>, 2> ctas{};    // [warp tile][K-step index]
    std::array<std::array<int, 3>, 2> stages{};  // [warp tile][K-step index]
  };
  void derive_block_choices();
  std::array<int, 3> block_ks_{};  // K-steps in elements for this dtype
  std::vector<BlockChoice> block_choices_;

  DType dtype_;
  int tensor_cores_per_sm_ = 1;
  int group_warps_ = 1;  // warps per MMA issue group (tech_param.core.mma_threads / 32)
  int max_cluster_size_ = 1;
  // Per-SM and whole-chip constants derived once from the HardwareSpec (see .cpp).
  double peak_flops_per_s_ = 0.0;
  double launch_overhead_s_ = 0.0;
  int num_sms_ = 0;
  int mma_m_ = 1;  // tensor-core instruction granularity the dimensions are padded to
  int mma_n_ = 1;
  int mma_k_ = 1;
  double element_bytes_ = 2.0;
  double register_bytes_per_sm_ = 0.0;
  double smem_bytes_per_sm_ = 0.0;
  double l2_bytes_ = 0.0;
  double dram_latency_s_ = 0.0;
  double register_bandwidth_ = 0.0;  // aggregate bytes/s x util
  double smem_bandwidth_ = 0.0;
  double l2_bandwidth_ = 0.0;
  double dram_bandwidth_ = 0.0;
  std::string register_name_, smem_name_, l2_name_, dram_name_;
};

}  // namespace rapidllm::compute
