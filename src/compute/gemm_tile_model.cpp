// Tile-level GEMM latency model. The formulas are written out in docs/gemm-model.md;
// comments here say why each one has the form it has.
#include "compute/gemm_tile_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include <fmt/format.h>

#include "rapidllm/error.hpp"

namespace rapidllm::compute {
namespace {

// ---- Search space -----------------------------------------------------------------
constexpr std::array<int, 5> kBlockSizes{16, 32, 64, 128, 256};
// Tile of one MMA issue group (a warp, or a Hopper warpgroup: wgmma N goes up to 256).
constexpr std::array<int, 5> kWarpSizes{16, 32, 64, 128, 256};
constexpr std::array<int, 6> kSplitKs{1, 2, 4, 8, 16, 32};
// K-steps for 2-byte elements; scaled by 2/element_bytes so a k-slab row holds the same
// bytes (64, 128 or 256) for every dtype.
constexpr std::array<int, 3> kBlockK16Bit{32, 64, 128};
constexpr std::array<int, 2> kDeeperStages{4, 3};
constexpr int kMinStages = 2;
// Largest A+B k-slab the K-step is grown to: CUTLASS's Ampere default 128x128x32 bf16
// slab. Small CTA tiles take a deeper K-step so each pipeline stage still moves that much.
constexpr double kSlabTargetBytes = 16384.0;

// ---- Hardware limits common to NVIDIA GPUs since Volta ------------------------------
constexpr int kThreadsPerWarp = 32;
constexpr double kMaxRegistersPerThread = 255.0;
constexpr int kMaxWarpsPerCta = 16;
constexpr int kMaxWarpsPerSm = 64;
constexpr int kMaxCtasPerSm = 32;
constexpr double kRegisterBytes = 4.0;
constexpr double kAccumulatorBytes = 4.0;  // fp32 accumulators and split-K partials

constexpr const char* kComputeRoof = "tensor-core";

// Block sizes, K-steps, splits and clusters are powers of two: a shift instead of a 64-bit
// division there (the tile search divides a few hundred thousand times in a sweep). a >= 0.
std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  if (b > 0 && (b & (b - 1)) == 0) {
    return (a + b - 1) >> std::countr_zero(static_cast<std::uint64_t>(b));
  }
  return (a + b - 1) / b;
}
std::int64_t round_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }
double as_double(std::int64_t v) { return static_cast<double>(v); }

// An MMA issue group of `group_warps` warps owns each warp_m x warp_n tile.
int warps_per_cta(const GemmTiling& t, int group_warps) {
  return (t.block_m / t.warp_m) * (t.block_n / t.warp_n) * group_warps;
}

// Per-thread registers of one MMA group's tile: fp32 accumulators plus double-buffered A
// and B fragments for one MMA k-step, spread over the group's threads. Must stay within
// the 255-register thread limit.
double registers_per_thread(int warp_m, int warp_n, int mma_k, double element_bytes, int group_warps) {
  const double accumulators = static_cast<double>(warp_m) * warp_n * kAccumulatorBytes;
  const double fragments = static_cast<double>(warp_m + warp_n) * mma_k * element_bytes * 2.0;
  return (accumulators + fragments) / (kThreadsPerWarp * group_warps * kRegisterBytes);
}

void check_shape(const GemmShape& s) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.batch <= 0) {
    throw InfeasibleError(fmt::format(
        "GEMM shape m={} n={} k={} batch={} is empty or negative: every dimension must be "
        "positive",
        s.m, s.n, s.k, s.batch));
  }
}

void check_well_formed(const GemmTiling& t, int group_warps) {
  const bool positive = t.block_m > 0 && t.block_n > 0 && t.block_k > 0 && t.warp_m > 0 &&
                        t.warp_n > 0 && t.split_k > 0 && t.stages > 0;
  if (!positive || t.block_m % t.warp_m != 0 || t.block_n % t.warp_n != 0) {
    throw InfeasibleError(fmt::format(
        "GEMM tiling {}x{}x{} with warp tile {}x{}, split_k {}, {} stages is malformed: all "
        "sizes must be positive and the warp tile must divide the CTA tile",
        t.block_m, t.block_n, t.block_k, t.warp_m, t.warp_n, t.split_k, t.stages));
  }
  if (warps_per_cta(t, group_warps) > kMaxWarpsPerCta) {
    throw InfeasibleError(fmt::format("GEMM tiling {}x{} with warp tile {}x{} needs {} warps; a "
                                      "CTA holds at most {}",
                                      t.block_m, t.block_n, t.warp_m, t.warp_n, warps_per_cta(t, group_warps),
                                      kMaxWarpsPerCta));
  }
}

struct WarpTile {
  int wm = 0;
  int wn = 0;
};
struct WarpChoices {
  std::array<WarpTile, 2> tiles{};
  std::size_t count = 0;
};

// Warp tiles for one CTA tile. The model rewards large warp tiles (shared-memory reads
// scale with 1/warp_m + 1/warp_n) and enough warps per SM to feed every tensor core, so
// the search keeps the best tile overall and the best one whose CTA alone has a warp per
// tensor core; any other warp tile reads more and differs from these only by a few
// fragment registers of occupancy.
WarpChoices choose_warp_tiles(int bm, int bn, int mma_m, int mma_n, int mma_k,
                              double element_bytes, int tensor_cores_per_sm, int group_warps) {
  WarpTile best_any;
  WarpTile best_fed;
  const auto better = [](const WarpTile& w, const WarpTile& cur) {
    if (cur.wm == 0) return true;
    const double reads = 1.0 / w.wm + 1.0 / w.wn;
    const double cur_reads = 1.0 / cur.wm + 1.0 / cur.wn;
    if (reads != cur_reads) return reads < cur_reads;
    // Equal reads: the squarer tile, then the taller one.
    if (std::abs(w.wm - w.wn) != std::abs(cur.wm - cur.wn)) {
      return std::abs(w.wm - w.wn) < std::abs(cur.wm - cur.wn);
    }
    return w.wm > cur.wm;
  };
  for (int wm : kWarpSizes) {
    for (int wn : kWarpSizes) {
      if (bm % wm != 0 || bn % wn != 0 || wm < mma_m || wn < mma_n) continue;
      const int warps = (bm / wm) * (bn / wn) * group_warps;
      if (warps > kMaxWarpsPerCta ||
          registers_per_thread(wm, wn, mma_k, element_bytes, group_warps) > kMaxRegistersPerThread) {
        continue;
      }
      const WarpTile w{wm, wn};
      if (better(w, best_any)) best_any = w;
      if (warps >= tensor_cores_per_sm && better(w, best_fed)) best_fed = w;
    }
  }
  WarpChoices out;
  if (best_any.wm == 0) return out;
  out.tiles[out.count++] = best_any;
  if (best_fed.wm != 0 && (best_fed.wm != best_any.wm || best_fed.wn != best_any.wn)) {
    out.tiles[out.count++] = best_fed;
  }
  return out;
}

// K-step for a CTA tile: the deepest whose A+B k-slab stays within kSlabTargetBytes, so
// every tile size moves about the same bytes per pipeline stage.
int preferred_block_k(int bm, int bn, const std::array<int, 3>& block_ks, double element_bytes) {
  int chosen = block_ks.front();
  for (int bk : block_ks) {
    if (static_cast<double>(bm + bn) * bk * element_bytes <= kSlabTargetBytes) chosen = bk;
  }
  return chosen;
}

// Deterministic order for ties between equally fast tilings.
auto tiling_key(const GemmTiling& t) {
  return std::tie(t.block_m, t.block_n, t.block_k, t.warp_m, t.warp_n, t.split_k, t.stages, t.cluster_m,
                  t.cluster_n);
}

// Cluster shapes CUTLASS's Hopper kernels use; larger ones add little beyond 2x2 because
// a tile crossing L2 once per cluster already divides the stream by the cluster extent.
struct ClusterShape {
  int m;
  int n;
};
constexpr std::array<ClusterShape, 4> kClusterShapes{{{1, 1}, {2, 1}, {1, 2}, {2, 2}}};

}  // namespace

GemmTileModel::GemmTileModel(const HardwareSpec& hardware, DType dtype, double stack_efficiency) : dtype_(dtype) {
  const CoreSpec& core = hardware.core;
  const std::optional<double> peak = core.peak_flops_per_s(dtype);
  if (!peak) {
    throw InfeasibleError(fmt::format(
        "hardware config does not describe {0} throughput; add "
        "tech_param.core.dtype_flop_scale.{0}",
        dtype_name(dtype)));
  }
  if (core.num_sms <= 0 || core.tensor_cores_per_sm <= 0 || core.fma_d1 <= 0 ||
      core.fma_d2 <= 0 || !(*peak > 0.0) || !(core.util > 0.0) || !(stack_efficiency > 0.0)) {
    throw InfeasibleError(
        "the GEMM model needs positive tech_param.core values: operating_frequency, "
        "num_bundles, num_mcu_per_bundle, nominal_flop_rate_per_mcu, FMA_d1, FMA_d2 and util");
  }
  if (hardware.memory.size() != 4) {
    throw InfeasibleError(fmt::format(
        "the GEMM model needs exactly 4 memory levels, innermost first: registers (SRAM-R), "
        "shared memory (SRAM-L1), L2 (SRAM-L2) and DRAM; the hardware config has {}",
        hardware.memory.size()));
  }
  for (const MemoryLevel& level : hardware.memory) {
    if (!(level.size_bytes > 0.0) || !(level.bandwidth_bytes_per_s > 0.0) ||
        !(level.util > 0.0)) {
      throw InfeasibleError(fmt::format(
          "memory level '{}' needs a positive size, bandwidth and util for the GEMM model",
          level.name));
    }
  }

  tensor_cores_per_sm_ = core.tensor_cores_per_sm;
  if (core.mma_threads < 32 || core.mma_threads % 32 != 0) {
    throw InfeasibleError(fmt::format("tech_param.core.mma_threads = {} must be a multiple of 32", core.mma_threads));
  }
  group_warps_ = core.mma_threads / 32;
  max_cluster_size_ = std::max(1, core.max_cluster_size);
  peak_flops_per_s_ = *core.achievable_flops_per_s(dtype) * stack_efficiency;
  launch_overhead_s_ = hardware.sw.kernel_launch_overhead_s;
  num_sms_ = core.num_sms;
  // The MMA computes d1 x d2 x d1 per clock: M and N move in steps of d1, K in steps of d2.
  mma_m_ = core.fma_d1;
  mma_n_ = core.fma_d1;
  mma_k_ = core.fma_d2;
  element_bytes_ = dtype_bytes(dtype);

  const MemoryLevel& regs = hardware.memory[0];
  const MemoryLevel& smem = hardware.memory[1];
  const MemoryLevel& l2 = hardware.memory[2];
  const MemoryLevel& dram = hardware.memory[3];
  // Config sizes are whole-chip totals; registers and shared memory are private per SM.
  register_bytes_per_sm_ = regs.size_bytes / num_sms_;
  smem_bytes_per_sm_ = smem.size_bytes / num_sms_;
  l2_bytes_ = l2.size_bytes;
  dram_latency_s_ = dram.latency_s;
  register_bandwidth_ = regs.bandwidth_bytes_per_s * regs.util;
  smem_bandwidth_ = smem.bandwidth_bytes_per_s * smem.util;
  l2_bandwidth_ = l2.bandwidth_bytes_per_s * l2.util;
  dram_bandwidth_ = dram.bandwidth_bytes_per_s * dram.util;
  register_name_ = regs.name;
  smem_name_ = smem.name;
  l2_name_ = l2.name;
  dram_name_ = dram.name;
  derive_block_choices();
}

void GemmTileModel::derive_block_choices() {
  // K-steps in elements for this dtype (fp8: 64..256, bf16: 32..128, fp32: 16..64).
  for (std::size_t i = 0; i < block_ks_.size(); ++i) {
    block_ks_[i] = static_cast<int>(kBlockK16Bit[i] * 2.0 / element_bytes_);
  }
  for (int bm : kBlockSizes) {
    for (int bn : kBlockSizes) {
      BlockChoice b;
      b.block_m = bm;
      b.block_n = bn;
      b.block_k_pref = preferred_block_k(bm, bn, block_ks_, element_bytes_);
      const WarpChoices warps = choose_warp_tiles(bm, bn, mma_m_, mma_n_, mma_k_, element_bytes_,
                                                  tensor_cores_per_sm_, group_warps_);
      b.warp_count = static_cast<int>(warps.count);
      for (std::size_t w = 0; w < warps.count; ++w) {
        b.warp_m[w] = warps.tiles[w].wm;
        b.warp_n[w] = warps.tiles[w].wn;
        for (std::size_t k = 0; k < block_ks_.size(); ++k) {
          GemmTiling t;
          t.block_m = bm;
          t.block_n = bn;
          t.block_k = block_ks_[k];
          t.warp_m = b.warp_m[w];
          t.warp_n = b.warp_n[w];
          // Pipeline depth: the model gives deeper pipelines no speed, so take the deepest
          // (up to 4) that costs no occupancy against the 2-stage minimum.
          t.stages = kMinStages;
          const int ctas = fit_ctas_per_sm(t, nullptr);
          b.ctas[w][k] = ctas;
          b.stages[w][k] = kMinStages;
          if (ctas == 0) continue;
          for (int stages : kDeeperStages) {
            GemmTiling deeper = t;
            deeper.stages = stages;
            if (fit_ctas_per_sm(deeper, nullptr) >= ctas) {
              b.stages[w][k] = stages;
              break;
            }
          }
        }
      }
      block_choices_.push_back(b);
    }
  }
}

void GemmTileModel::check_cluster(const GemmShape& shape, const GemmTiling& t) const {
  if (t.cluster_m < 1 || t.cluster_n < 1 || t.cluster_m * t.cluster_n > max_cluster_size_) {
    throw InfeasibleError(fmt::format("cluster {}x{} is not allowed: this device groups at most {} CTA(s) per "
                                      "cluster (tech_param.core.max_cluster_size)",
                                      t.cluster_m, t.cluster_n, max_cluster_size_));
  }
  const std::int64_t tiles_m = ceil_div(round_up(shape.m, mma_m_), t.block_m);
  const std::int64_t tiles_n = ceil_div(round_up(shape.n, mma_n_), t.block_n);
  if (tiles_m % t.cluster_m != 0 || tiles_n % t.cluster_n != 0) {
    throw InfeasibleError(fmt::format("the {}x{} CTA grid is not a multiple of the {}x{} cluster", tiles_m, tiles_n,
                                      t.cluster_m, t.cluster_n));
  }
}

int GemmTileModel::fit_ctas_per_sm(const GemmTiling& t, std::string* why_not) const {
  const double eb = element_bytes_;
  const int warps = warps_per_cta(t, group_warps_);
  const double per_thread = registers_per_thread(t.warp_m, t.warp_n, mma_k_, eb, group_warps_);
  // The pipeline keeps `stages` k-slabs of A and B in shared memory.
  const double smem = static_cast<double>(t.stages) * (t.block_m + t.block_n) * t.block_k * eb;
  // Accumulators stay resident in registers for the whole K loop.
  const double regs = static_cast<double>(t.block_m) * t.block_n * kAccumulatorBytes +
                      static_cast<double>(warps) * (t.warp_m + t.warp_n) * mma_k_ * eb * 2.0;
  // The reason is formatted only when asked for: the search tries many tilings that fail.
  const auto fail = [&](const auto& reason) {
    if (why_not != nullptr) {
      *why_not = fmt::format("GEMM tiling {}x{}x{} (warp {}x{}, {} stages) does not fit: {}",
                             t.block_m, t.block_n, t.block_k, t.warp_m, t.warp_n, t.stages,
                             reason());
    }
    return 0;
  };
  if (per_thread > kMaxRegistersPerThread) {
    return fail([&] {
      return fmt::format("the warp tile needs {:.0f} registers per thread, the limit is {:.0f}", per_thread,
                         kMaxRegistersPerThread);
    });
  }
  if (smem > smem_bytes_per_sm_) {
    return fail([&] {
      return fmt::format("it needs {:.0f} bytes of shared memory per CTA, an SM has {:.0f}", smem, smem_bytes_per_sm_);
    });
  }
  if (regs > register_bytes_per_sm_) {
    return fail([&] {
      return fmt::format("it needs {:.0f} bytes of registers per CTA, an SM has {:.0f}", regs, register_bytes_per_sm_);
    });
  }
  const int by_smem = static_cast<int>(std::min(smem_bytes_per_sm_ / smem, 1024.0));
  const int by_regs = static_cast<int>(std::min(register_bytes_per_sm_ / regs, 1024.0));
  return std::min({by_smem, by_regs, kMaxWarpsPerSm / warps, kMaxCtasPerSm});
}

GemmTileModel::ShapeTerms GemmTileModel::shape_terms(const GemmShape& shape) const {
  ShapeTerms s;
  const double eb = element_bytes_;
  s.batch = shape.batch;
  // On-chip work is padded: to the MMA granularity, then to whole CTA tiles and K-steps
  // (edge tiles still run full-size MMAs on zero-filled operands).
  s.m_pad = round_up(shape.m, mma_m_);
  s.n_pad = round_up(shape.n, mma_n_);
  s.k_pad = round_up(shape.k, mma_k_);
  // Global traffic counts only in-bounds elements (out-of-bounds loads are predicated off).
  s.m = as_double(shape.m);
  s.n = as_double(shape.n);
  const double k = as_double(shape.k);
  const double batch = as_double(shape.batch);
  s.a_bytes = s.m * k * eb * batch;
  s.b_bytes = k * s.n * eb * batch;
  // FP8 GEMMs write C in 16 bits (cuBLASLt's scaled matmuls as Transformer Engine and
  // torch._scaled_mm run them, as in validation/kernels/measured/*/gemm_k_sweep.csv).
  s.c_bytes = s.m * s.n * std::max(eb, 2.0) * batch;
  return s;
}

GemmTileModel::TilingCost GemmTileModel::cost(const ShapeTerms& shape, const GemmTiling& t,
                                              double give_up_above_s) const {
  TilingCost c;
  const double eb = element_bytes_;
  const double batch = as_double(shape.batch);
  const std::int64_t m_pad = shape.m_pad;
  const std::int64_t n_pad = shape.n_pad;
  const std::int64_t k_pad = shape.k_pad;
  const std::int64_t tiles_m = ceil_div(m_pad, t.block_m);
  const std::int64_t tiles_n = ceil_div(n_pad, t.block_n);
  const std::int64_t k_steps = ceil_div(ceil_div(k_pad, t.split_k), t.block_k);
  const double m_tiled = as_double(tiles_m * t.block_m);
  const double n_tiled = as_double(tiles_n * t.block_n);
  const double k_tiled = as_double(t.split_k * k_steps * t.block_k);

  // Wave quantization: the busiest SM runs ceil(T/S) tiles while the average SM runs T/S.
  c.tiles = shape.batch * tiles_m * tiles_n * t.split_k;
  const std::int64_t rounds = ceil_div(c.tiles, num_sms_);
  c.q = as_double(rounds * num_sms_) / as_double(c.tiles);

  // Tensor cores: one warp issues to one tensor core, so an SM with fewer resident warps
  // than tensor cores leaves some idle.
  c.padded_flops = 2.0 * m_tiled * n_tiled * k_tiled * batch;
  const std::int64_t resident = std::min<std::int64_t>(t.ctas_per_sm, rounds);
  const double fed = std::min(
      1.0, as_double(warps_per_cta(t, group_warps_) * resident) / static_cast<double>(tensor_cores_per_sm_));
  c.roof_time_s[0] = c.padded_flops / (peak_flops_per_s_ * fed);

  // Registers: every MMA reads its A (mma_m x mma_k) and B (mma_k x mma_n) fragments;
  // accumulators never leave the register file.
  c.level_bytes[0] = c.padded_flops * eb * (1.0 / mma_m_ + 1.0 / mma_n_) / 2.0;

  // L2 -> shared memory: each column of CTA tiles streams all of A, each row all of B.
  const double m = shape.m;
  const double n = shape.n;
  const double a_bytes = shape.a_bytes;
  const double b_bytes = shape.b_bytes;
  const double c_bytes = shape.c_bytes;
  // Every CTA receives its A and B tiles into shared memory, but inside a cluster a tile
  // crosses L2 once and is multicast to the cluster_n (A) or cluster_m (B) CTAs sharing it.
  const double a_l2 = as_double(tiles_n) * a_bytes;
  const double b_l2 = as_double(tiles_m) * b_bytes;
  const double a_from_l2 = as_double(ceil_div(tiles_n, t.cluster_n)) * a_bytes;
  const double b_from_l2 = as_double(ceil_div(tiles_m, t.cluster_m)) * b_bytes;
  // Split-K: each slice writes an fp32 partial tile, the reduction reads them all back.
  const double workspace = t.split_k > 1 ? t.split_k * m * n * kAccumulatorBytes * batch : 0.0;
  c.level_bytes[2] = a_from_l2 + b_from_l2 + c_bytes + 2.0 * workspace;

  // Shared memory: warps read warp_m x block_k of A and block_k x warp_n of B per k-slab
  // (padded tiles, the zero fill is read too), plus the L2 operand stream written in.
  c.level_bytes[1] =
      m_tiled * n_tiled * k_tiled * batch * (1.0 / t.warp_n + 1.0 / t.warp_m) * eb + a_l2 + b_l2;

  // The roofs so far bound the time from below: a search that already has a faster tiling
  // skips the DRAM reuse model.
  const double floor_s =
      std::max({c.roof_time_s[0], c.level_bytes[0] / register_bandwidth_, c.level_bytes[1] / smem_bandwidth_,
                c.level_bytes[2] / l2_bandwidth_}) * c.q + dram_latency_s_ + launch_overhead_s_;
  if (floor_s > give_up_above_s) {
    c.time_s = floor_s;
    return c;
  }

  // DRAM: compulsory traffic when the operands and result sit comfortably in L2 (half of
  // it, leaving room for the streaming working set). Otherwise reuse comes only from the
  // CTAs resident at once: they cover a near-square gm x gn block of tiles (rasterization
  // swizzle), so A is re-read once per gn-wide column group and B once per gm-high row group.
  const double compulsory = a_bytes + b_bytes + c_bytes;
  double operands = a_bytes + b_bytes;
  if (compulsory > l2_bytes_ / 2.0) {
    const std::int64_t concurrent =
        std::min<std::int64_t>(c.tiles, static_cast<std::int64_t>(num_sms_) * t.ctas_per_sm);
    // Square in elements (gm*bm ~ gn*bn) minimises the bytes a wave reads.
    const double aspect = static_cast<double>(t.block_n) / t.block_m;
    std::int64_t gm = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(std::llround(std::sqrt(as_double(concurrent) * aspect))), 1,
        tiles_m);
    const std::int64_t gn = std::clamp<std::int64_t>(concurrent / gm, 1, tiles_n);
    if (gn == tiles_n) gm = std::clamp<std::int64_t>(concurrent / gn, 1, tiles_m);
    const double reread =
        as_double(ceil_div(tiles_n, gn)) * a_bytes + as_double(ceil_div(tiles_m, gm)) * b_bytes;
    operands = std::clamp(reread, a_bytes + b_bytes, a_from_l2 + b_from_l2);
  }
  // Split-K partials stay in L2 when they fit beside the GEMM's data, else spill both ways.
  const double workspace_dram =
      compulsory + workspace > l2_bytes_ / 2.0 ? 2.0 * workspace : 0.0;
  c.level_bytes[3] = operands + c_bytes + workspace_dram;

  c.roof_time_s[1] = c.level_bytes[0] / register_bandwidth_;
  c.roof_time_s[2] = c.level_bytes[1] / smem_bandwidth_;
  c.roof_time_s[3] = c.level_bytes[2] / l2_bandwidth_;
  c.roof_time_s[4] = c.level_bytes[3] / dram_bandwidth_;

  const double slowest = *std::max_element(c.roof_time_s.begin(), c.roof_time_s.end());
  // The first operands come from DRAM before the pipeline streams: one latency to fill it.
  c.body_s = c.q * slowest + dram_latency_s_;
  c.time_s = c.body_s + launch_overhead_s_;
  return c;
}

GemmEstimate GemmTileModel::evaluate(const GemmShape& shape, const GemmTiling& tiling) const {
  check_shape(shape);
  check_well_formed(tiling, group_warps_);
  check_cluster(shape, tiling);
  std::string why_not;
  GemmTiling t = tiling;
  t.ctas_per_sm = fit_ctas_per_sm(t, &why_not);
  if (t.ctas_per_sm == 0) throw InfeasibleError(why_not);

  const TilingCost c = cost(shape_terms(shape), t);
  GemmEstimate e;
  e.shape = shape;
  e.dtype = dtype_;
  e.flops = 2.0 * as_double(shape.m) * as_double(shape.n) * as_double(shape.k) *
            as_double(shape.batch);
  e.time_s = c.time_s;
  e.launch_overhead_s = launch_overhead_s_;
  e.tiling = t;
  e.tiles = c.tiles;
  e.waves = as_double(c.tiles) / num_sms_;
  e.wave_efficiency = 1.0 / c.q;

  const std::array<const std::string*, 4> names{&register_name_, &smem_name_, &l2_name_,
                                                &dram_name_};
  e.traffic.reserve(5);
  for (std::size_t i = 0; i < names.size(); ++i) {
    e.traffic.push_back({*names[i], c.level_bytes[i], c.q * c.roof_time_s[i + 1]});
  }
  e.traffic.push_back({kComputeRoof, c.padded_flops, c.q * c.roof_time_s[0]});

  // The first roof wins ties, so a balanced kernel reports "tensor-core".
  std::size_t bound = 0;
  for (std::size_t i = 1; i < c.roof_time_s.size(); ++i) {
    if (c.roof_time_s[i] > c.roof_time_s[bound]) bound = i;
  }
  e.bound_by = bound == 0 ? std::string(kComputeRoof) : *names[bound - 1];
  return e;
}

std::vector<GemmTiling> GemmTileModel::candidate_tilings(const GemmShape& shape) const {
  check_shape(shape);
  const std::int64_t m_pad = round_up(shape.m, mma_m_);
  const std::int64_t n_pad = round_up(shape.n, mma_n_);
  const std::int64_t k_pad = round_up(shape.k, mma_k_);

  // A K-step longer than K only pads: cap it at the smallest one that covers K.
  std::size_t k_cover = block_ks_.size() - 1;
  for (std::size_t i = 0; i < block_ks_.size(); ++i) {
    if (block_ks_[i] >= k_pad) {
      k_cover = i;
      break;
    }
  }
  const auto k_index = [&](int bk) {
    return static_cast<std::size_t>(std::find(block_ks_.begin(), block_ks_.end(), bk) - block_ks_.begin());
  };

  // A block twice the padded dimension only adds padding: the next smaller one covers it.
  const auto useful = [](int block, std::int64_t dim_pad) {
    return block == kBlockSizes.front() || block / 2 < dim_pad;
  };

  std::vector<GemmTiling> out;
  out.reserve(128);
  for (const BlockChoice& b : block_choices_) {
    if (!useful(b.block_m, m_pad) || !useful(b.block_n, n_pad)) continue;
    const std::size_t pref = k_index(b.block_k_pref);
    const std::int64_t tiles_m = ceil_div(m_pad, b.block_m);
    const std::int64_t tiles_n = ceil_div(n_pad, b.block_n);
    const std::int64_t base_tiles = shape.batch * tiles_m * tiles_n;
    for (std::size_t w = 0; w < static_cast<std::size_t>(b.warp_count); ++w) {
      for (int split : kSplitKs) {
        if (split > 1) {
          if (k_pad / split < b.block_k_pref) break;
          // Split-K only buys parallelism: stop once the previous split had eight waves,
          // where wave quantization costs at most 1/8 (a GEMV with 2.4 waves loses 27%).
          if (base_tiles * (split / 2) >= 8 * static_cast<std::int64_t>(num_sms_)) break;
        }
        const std::size_t k = split == 1 ? std::min(pref, k_cover) : pref;
        if (b.ctas[w][k] == 0) continue;
        GemmTiling t;
        t.block_m = b.block_m;
        t.block_n = b.block_n;
        t.block_k = block_ks_[k];
        t.warp_m = b.warp_m[w];
        t.warp_n = b.warp_n[w];
        t.split_k = split;
        t.stages = b.stages[w][k];
        t.ctas_per_sm = b.ctas[w][k];
        // Clusters tile the CTA grid exactly (CUDA requires the grid to be a multiple).
        for (const ClusterShape& cl : kClusterShapes) {
          if (cl.m * cl.n > max_cluster_size_ || tiles_m % cl.m != 0 || tiles_n % cl.n != 0) continue;
          GemmTiling clustered = t;
          clustered.cluster_m = cl.m;
          clustered.cluster_n = cl.n;
          out.push_back(clustered);
        }
      }
    }
  }
  return out;
}

GemmEstimate GemmTileModel::estimate(const GemmShape& shape) const {
  if (std::max({shape.m, shape.n, shape.k}) > kMaxGemmDimension || shape.batch > kMaxGemmDimension) {
    throw InfeasibleError(fmt::format(
        "a {} x {} x {} GEMM (batch {}) is past the tile model's 2^31 - 1 per dimension: lower the tokens per "
        "micro-batch (micro-batch size x sequence length) or the model widths",
        shape.m, shape.n, shape.k, shape.batch));
  }
  const std::vector<GemmTiling> candidates = candidate_tilings(shape);
  if (candidates.empty()) {
    throw InfeasibleError(fmt::format(
        "no CTA tiling fits this device's registers ({:.0f} B/SM) and shared memory "
        "({:.0f} B/SM) for {} GEMMs: raise tech_param.{}.size or tech_param.{}.size (whole-chip values unless "
        "per_sm: true)",
        register_bytes_per_sm_, smem_bytes_per_sm_, dtype_name(dtype_), register_name_, smem_name_));
  }
  std::size_t best = 0;
  const ShapeTerms terms = shape_terms(shape);
  TilingCost best_cost = cost(terms, candidates[0]);
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    const TilingCost c = cost(terms, candidates[i], best_cost.time_s);
    // Fastest; ties go to less DRAM traffic, then to the lexicographically first tiling.
    const bool better =
        c.time_s < best_cost.time_s ||
        (c.time_s == best_cost.time_s &&
         (c.level_bytes[3] < best_cost.level_bytes[3] ||
          (c.level_bytes[3] == best_cost.level_bytes[3] &&
           tiling_key(candidates[i]) < tiling_key(candidates[best]))));
    if (better) {
      best = i;
      best_cost = c;
    }
  }
  return evaluate(shape, candidates[best]);
}

}  // namespace rapidllm::compute
