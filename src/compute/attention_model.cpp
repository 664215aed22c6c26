#include "compute/attention_model.hpp"

#include <algorithm>
#include <cmath>

#include "rapidllm/error.hpp"

namespace rapidllm::compute {

namespace {

// FP32 operations per score element besides the exponential: running max, scale-and-
// subtract (one FMA), row sum, and the amortised rescale of the output accumulator.
constexpr double kFp32OpsPerScore = 4.0;
// Backward: recompute S, dV = P^T dO, dP = dO V^T, dQ = dS K, dK = dS^T Q (5 matmuls).
constexpr double kBackwardMatmulFactor = 2.5;
// Backward softmax work: recompute P = exp(S - lse) and dS = P * (dP - rowsum(dO * O)).
constexpr double kBackwardSoftmaxFactor = 2.0;
// Backward HBM traffic: Q, K, V, O, dO read, dQ (fp32 accumulation, read and written),
// dK, dV written: about 2.5x the forward's Q, K, V, O.
constexpr double kBackwardBytesFactor = 2.5;

double as_double(std::int64_t v) { return static_cast<double>(v); }

// Wave quantization of `ctas` equal CTAs on `sms` SMs (as in the GEMM model).
double wave_factor(double ctas, int sms) {
  if (ctas <= 0) return 1.0;
  return std::ceil(ctas / sms) * sms / ctas;
}

// Share of a query range's (keys attended) among all queries' under a causal window w:
// query p (0-based) attends to min(p + 1, w) keys; sum over p < x of that.
double band_work(double x, double w) {
  if (x <= w) return x * (x + 1.0) / 2.0;
  return w * (w + 1.0) / 2.0 + (x - w) * w;
}

}  // namespace

double windowed_block_fraction(const model::AttentionShape& s, std::int64_t tile) {
  const double n = std::ceil(as_double(s.kv_len) / as_double(tile));
  const double causal = (n + 1.0) / (2.0 * n);
  if (s.window <= 0) return causal;
  // Block (i, j) runs when some query of block i sees some key of block j: 0 <= i - j <= D
  // with D = floor((w + B - 2) / B) (the band's lowest key w - 1 behind the block's first
  // query). Row i runs min(i, D) + 1 blocks: (D + 1)(2n - D)/2 in all once D < n - 1,
  // else the causal triangle (a window >= the sequence is full attention, exactly).
  const double band = std::floor(as_double(s.window + tile - 2) / as_double(tile));
  if (band >= n - 1.0) return causal;
  double fraction = (band + 1.0) * (2.0 * n - band) / (2.0 * n * n);
  if (s.q_len < s.kv_len) {
    // Context parallelism: the sequence in 2 cp chunks, rank r holding chunks r and
    // 2cp-1-r (the load-balanced causal split). Under a window the first chunk has fewer
    // keys per query, so the ranks are not even: the busiest one sets the pace. Its share
    // of the band (token-exact) scales the block count, which the cp = kv/q ranks split.
    const double cp = std::round(as_double(s.kv_len) / as_double(s.q_len));
    const double seq = as_double(s.kv_len);
    const double w = as_double(s.window);
    const auto chunk_end = [&](double k) { return std::floor(k * seq / (2.0 * cp)); };
    const auto chunk_work = [&](double k) { return band_work(chunk_end(k + 1.0), w) - band_work(chunk_end(k), w); };
    double busiest = 0.0;
    for (double r = 0.0; r < cp; r += 1.0) busiest = std::max(busiest, chunk_work(r) + chunk_work(2.0 * cp - 1.0 - r));
    fraction *= busiest * cp / band_work(seq, w);
  }
  return fraction;
}

AttentionModel::AttentionModel(const HardwareSpec& hw, DType dtype) {
  const auto peak = hw.core.peak_flops_per_s(dtype);
  if (!peak) throw InfeasibleError("attention: the hardware config does not describe this dtype's throughput");
  // The fused kernel family the stack runs sets the kernel-level rate (FlashAttention-2 on
  // Hopper cannot use warpgroup MMAs); inside a step the stack sustains its share of it.
  const FusedAttentionFacts facts = hw.core.attention_facts(hw.sw.attention_kernel, dtype);
  // A power cap below max_power slows the SM clock: tensor cores and softmax alike.
  const double clock = hw.core.power_capped_clock_factor();
  forward_flops_per_s_ = *peak * facts.forward_util * hw.sw.compute_efficiency * clock;
  backward_flops_per_s_ = *peak * facts.backward_util * hw.sw.compute_efficiency * clock;
  forward_cta_fill_ = facts.forward_cta_fill;
  backward_cta_fill_ = facts.backward_cta_fill;
  const double sm_clocks = hw.core.frequency_hz * clock * hw.core.num_sms;
  sfu_ops_per_s_ = hw.core.sfu_ops_per_cycle_per_sm * sm_clocks;
  fp32_ops_per_s_ = hw.core.fp32_ops_per_cycle_per_sm * sm_clocks;
  softmax_overlap_ = hw.sw.attention_softmax_overlap.value_or(facts.softmax_overlap.value_or(0.0));
  decode_kv_passes_ = hw.sw.decode_kv_passes;
  dram_bytes_per_s_ = hw.dram().bandwidth_bytes_per_s * hw.dram().util;
  dram_latency_s_ = hw.dram().latency_s;
  smem_bytes_per_sm_ = hw.memory.size() > 1 ? hw.memory[1].size_bytes / hw.core.num_sms : 0.0;
  num_sms_ = hw.core.num_sms;
}

std::int64_t AttentionModel::flash_tile(const model::AttentionShape& s) const {
  if (s.tile > 0) return s.tile;
  std::int64_t tile = 128;
  while (tile > 16 && 3.0 * as_double(tile) * as_double(s.head_dim) * s.element_bytes > smem_bytes_per_sm_) tile /= 2;
  return tile;
}

AttentionTime AttentionModel::time(const model::AttentionShape& s, CachedGemmModel& gemms) const {
  if (s.q_len == 1 && !s.causal) return decode(s);
  return s.flash ? fused(s) : unfused(s, gemms);
}

AttentionTime AttentionModel::fused(const model::AttentionShape& s) const {
  const std::int64_t tile = flash_tile(s);
  const double q_blocks = std::ceil(as_double(s.q_len) / as_double(tile));
  const double kv_blocks = std::ceil(as_double(s.kv_len) / as_double(tile));
  // Causal: of n x n blocks the n(n+1)/2 on and below the diagonal run. (With context
  // parallelism the load-balanced split gives every rank the same share of them.)
  // A sliding window also skips the blocks below the band (windowed_block_fraction).
  const double block_fraction = s.causal ? windowed_block_fraction(s, tile) : 1.0;
  const double heads = as_double(s.batch) * as_double(s.heads);
  const double pairs = heads * q_blocks * kv_blocks * block_fraction;
  const double tile_scores = as_double(tile) * as_double(tile);
  const double flops_per_pair = 4.0 * tile_scores * as_double(s.head_dim);
  const double softmax_per_pair = tile_scores * (1.0 / sfu_ops_per_s_ + kFp32OpsPerScore / fp32_ops_per_s_);
  const double io_bytes = as_double(s.batch) * as_double(s.head_dim) * s.element_bytes *
                          (2.0 * as_double(s.q_len) * as_double(s.heads) + 2.0 * as_double(s.kv_len) * as_double(s.kv_heads));

  // A pass's CTAs (one per query tile forward, per key tile backward) each run their block
  // pairs plus the fill the family's measurements show, in waves over the SMs; the softmax
  // under the matmuls as far as the kernel overlaps them.
  const auto body = [&](double ctas, double cta_fill, double matmul_factor, double flops_per_s, double softmax_factor,
                        double bytes) {
    const double iterations = pairs + ctas * cta_fill;
    const double matmul_s = matmul_factor * iterations * flops_per_pair / flops_per_s;
    const double softmax_s = softmax_factor * iterations * softmax_per_pair;
    const double compute = std::max(matmul_s, softmax_s) + (1.0 - softmax_overlap_) * std::min(matmul_s, softmax_s);
    return std::max(wave_factor(ctas, num_sms_) * compute, bytes / dram_bytes_per_s_) + dram_latency_s_;
  };

  AttentionTime t;
  t.forward_flops = pairs * flops_per_pair;
  t.backward_flops = kBackwardMatmulFactor * t.forward_flops;
  t.forward_hbm_bytes = io_bytes;
  t.backward_hbm_bytes = kBackwardBytesFactor * io_bytes;
  t.forward_s = body(heads * q_blocks, forward_cta_fill_, 1.0, forward_flops_per_s_, 1.0, io_bytes);
  t.backward_s = body(heads * kv_blocks, backward_cta_fill_, kBackwardMatmulFactor, backward_flops_per_s_,
                      kBackwardSoftmaxFactor, t.backward_hbm_bytes);
  return t;
}

AttentionTime AttentionModel::unfused(const model::AttentionShape& s, CachedGemmModel& gemms) const {
  // Scores S = Q K^T and context O = P V as batched GEMMs over (sequence, head); KV heads
  // are broadcast to their query-head group, so every query head does full work.
  const std::int64_t batch = s.batch * s.heads;
  const GemmShape scores_gemm{s.q_len, s.kv_len, s.head_dim, batch};
  const GemmShape context_gemm{s.q_len, s.head_dim, s.kv_len, batch};
  // Backward of each: dgrad and wgrad GEMMs with the dimensions permuted.
  const GemmShape scores_dq{s.q_len, s.head_dim, s.kv_len, batch};
  const GemmShape scores_dk{s.kv_len, s.head_dim, s.q_len, batch};
  const GemmShape context_dp{s.q_len, s.kv_len, s.head_dim, batch};
  const GemmShape context_dv{s.kv_len, s.head_dim, s.q_len, batch};
  const auto body = [&](const GemmShape& g) {
    const GemmEstimate& e = gemms.estimate(g);
    return e.time_s - e.launch_overhead_s;
  };
  // Softmax (with scale and mask fused): read and write every score; backward reads P
  // and dP and writes dS.
  const double score_count = as_double(batch) * as_double(s.q_len) * as_double(s.kv_len);
  const double softmax_fwd = 2.0 * score_count * s.element_bytes / dram_bytes_per_s_ + dram_latency_s_;
  const double softmax_bwd = 3.0 * score_count * s.element_bytes / dram_bytes_per_s_ + dram_latency_s_;

  AttentionTime t;
  t.forward_flops = 4.0 * score_count * as_double(s.head_dim);
  t.backward_flops = 2.0 * t.forward_flops;
  // The materialised scores dominate the HBM traffic (GEMM operands add little).
  t.forward_hbm_bytes = 4.0 * score_count * s.element_bytes;
  t.backward_hbm_bytes = 7.0 * score_count * s.element_bytes;
  t.forward_s = body(scores_gemm) + softmax_fwd + body(context_gemm);
  t.backward_s = body(context_dp) + body(context_dv) + softmax_bwd + body(scores_dq) + body(scores_dk);
  t.forward_kernels = 3;
  t.backward_kernels = 5;
  return t;
}

AttentionTime AttentionModel::decode(const model::AttentionShape& s) const {
  const double per_token = s.cache_width > 0 ? as_double(s.cache_width) : 2.0 * as_double(s.head_dim);
  // A kernel that reads a KV head's cache once per query head of its group repeats the
  // read; at most group-size times.
  const double group = as_double(s.heads) / as_double(std::max<std::int64_t>(1, s.kv_heads));
  const double passes = std::clamp(decode_kv_passes_, 1.0, std::max(1.0, group));
  const double cache_bytes = passes * as_double(s.batch) * as_double(s.kv_len) * as_double(s.kv_heads) * per_token *
                             s.kv_element_bytes;
  const double qo_bytes = 2.0 * as_double(s.batch) * as_double(s.heads) * as_double(s.head_dim) * s.element_bytes;
  AttentionTime t;
  t.forward_flops = 4.0 * as_double(s.batch) * as_double(s.heads) * as_double(s.kv_len) * as_double(s.head_dim);
  t.forward_hbm_bytes = cache_bytes + qo_bytes;
  t.forward_s = std::max((cache_bytes + qo_bytes) / dram_bytes_per_s_, t.forward_flops / forward_flops_per_s_) +
                dram_latency_s_;
  t.backward_s = 0.0;
  return t;
}

}  // namespace rapidllm::compute
