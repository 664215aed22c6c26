// Time of the attention core (scores, softmax, context) of one layer on one rank.
//
// Fused (FlashAttention): per (sequence, head, query block) a CTA streams key/value
// blocks through shared memory; the matmuls run on tensor cores, the softmax on CUDA
// cores (exp2 on the special-function units, max/sum/rescale in FP32), only Q, K, V and O
// touch HBM. Causal masking skips the key blocks above the diagonal, a sliding window
// also those below its band (work linear in the sequence beyond the window). Backward does 5
// matmuls for the forward's 2 and the softmax work twice.
// Unfused: the score matrix is materialised: two batched GEMMs through the tile model and
// a softmax that reads and writes every score in HBM; no causal (or window) saving: the
// mask is applied to the materialised s x s scores.
// Decode (one query per sequence): FlashDecoding splits the KV cache across CTAs, so the
// kernel streams the cache at HBM bandwidth (roofline).
#pragma once

#include "compute/gemm_cache.hpp"
#include "model/layer_ops.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::compute {

struct AttentionTime {
  double forward_s = 0.0;   // kernel bodies, without launch overhead
  double backward_s = 0.0;
  int forward_kernels = 1;
  int backward_kernels = 1;
  double forward_flops = 0.0;  // matmul FLOPs executed (causal-skipped blocks excluded)
  double backward_flops = 0.0;
  double forward_hbm_bytes = 0.0;
  double backward_hbm_bytes = 0.0;
};

// Fused kernel, causal: the share of the q_len/tile x kv_len/tile blocks that run on the
// busiest rank (queries of one CP rank against the whole sequence). A sliding window
// (shape.window > 0) skips the blocks entirely below the band as the causal mask skips
// those above the diagonal; a window at least as long as the sequence is full attention.
[[nodiscard]] double windowed_block_fraction(const model::AttentionShape& shape, std::int64_t tile);

class AttentionModel {
 public:
  AttentionModel(const HardwareSpec& hardware, DType dtype);

  [[nodiscard]] AttentionTime time(const model::AttentionShape& shape, CachedGemmModel& gemms) const;

  // Br = Bc of the fused kernel: the configured tile, else the largest power of two up to
  // 128 whose Q, K and V tiles fit in one SM's shared memory.
  [[nodiscard]] std::int64_t flash_tile(const model::AttentionShape& shape) const;

 private:
  [[nodiscard]] AttentionTime fused(const model::AttentionShape& s) const;
  [[nodiscard]] AttentionTime unfused(const model::AttentionShape& s, CachedGemmModel& gemms) const;
  [[nodiscard]] AttentionTime decode(const model::AttentionShape& s) const;

  double forward_flops_per_s_ = 0.0;   // tensor cores x the family's forward share x the stack's
  double backward_flops_per_s_ = 0.0;  // the same with the backward kernel's share
  double forward_cta_fill_ = 0.0;      // fixed tile iterations per CTA (FusedAttentionFacts)
  double backward_cta_fill_ = 0.0;
  double sfu_ops_per_s_ = 0.0;
  double fp32_ops_per_s_ = 0.0;
  double softmax_overlap_ = 0.0;
  double decode_kv_passes_ = 1.0;  // HBM passes over each KV head's cache per decode step
  double dram_bytes_per_s_ = 0.0;
  double dram_latency_s_ = 0.0;
  double smem_bytes_per_sm_ = 0.0;
  int num_sms_ = 1;
};

}  // namespace rapidllm::compute
