// sw_param.decode_kv_passes: how many times a decode step's attention reads each KV head's
// cache from HBM. Cache bytes per step = passes x batch x kv_len x kv_heads x 2 x head_dim x
// element bytes, with passes capped at the group size (heads / kv_heads): a kernel cannot
// read it more than once per query head.
#include <gtest/gtest.h>

#include "compute/attention_model.hpp"
#include "compute/gemm_cache.hpp"
#include "llm_fixtures.hpp"
#include "model/layer_ops.hpp"

namespace rapidllm::exec {
namespace {

using testing::shipped_hardware;

// Llama-2-70B's attention on one GPU (64 query heads over 8 KV heads), 32 sequences
// decoding after 4096 tokens.
model::AttentionShape decode_shape(std::int64_t heads, std::int64_t kv_heads) {
  model::AttentionShape s{32, heads, kv_heads, 1, 4096, 128, false, true, 0, 2.0, 2.0};
  return s;
}

compute::AttentionTime decode(double passes, const model::AttentionShape& s) {
  HardwareSpec hw = shipped_hardware("A100_SXM4_80GB");
  hw.sw.decode_kv_passes = passes;
  compute::AttentionModel attention(hw, DType::fp16);
  compute::CachedGemmModel gemms(compute::GemmTileModel(hw, DType::fp16, 1.0));
  return attention.time(s, gemms);
}

TEST(DecodeKvPasses, EachPassReadsTheWholeCacheAgain) {
  const model::AttentionShape gqa = decode_shape(64, 8);
  const double cache = 32.0 * 4096 * 8 * 2 * 128 * 2.0;  // 2 GiB
  const double query_output = 2.0 * 32 * 64 * 128 * 2.0;
  EXPECT_DOUBLE_EQ(decode(1.0, gqa).forward_hbm_bytes, cache + query_output);
  EXPECT_DOUBLE_EQ(decode(2.5, gqa).forward_hbm_bytes, 2.5 * cache + query_output);
  // Memory-bound: the time follows the bytes.
  EXPECT_GT(decode(2.5, gqa).forward_s, 2.4 * decode(1.0, gqa).forward_s);
}

TEST(DecodeKvPasses, AtMostOncePerQueryHead) {
  const model::AttentionShape gqa = decode_shape(64, 8);
  EXPECT_DOUBLE_EQ(decode(100.0, gqa).forward_hbm_bytes, decode(8.0, gqa).forward_hbm_bytes);
  // Multi-head attention has nothing to repeat.
  const model::AttentionShape mha = decode_shape(64, 64);
  EXPECT_DOUBLE_EQ(decode(4.0, mha).forward_hbm_bytes, decode(1.0, mha).forward_hbm_bytes);
}

}  // namespace
}  // namespace rapidllm::exec
