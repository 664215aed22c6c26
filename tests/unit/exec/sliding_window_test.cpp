// Sliding-window and hybrid local/global attention, checked against hand-derived counts.
//
// Fused tile count: with tile B and window w, block (i, j) runs when 0 <= i - j <= D,
// D = floor((w + B - 2) / B); with n = s / B blocks that is (D + 1)(2n - D)/2 blocks, i.e.
// (w + B)(2s - w)/2 scores per (sequence, head) when B divides w (the causal triangle's
// s(s + B)/2 likewise over-counts the exact s(s + 1)/2 by the diagonal tiles). Exact
// token count: sum over p of min(p + 1, w) = w s - w(w - 1)/2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compute/attention_model.hpp"
#include "compute/op_coster.hpp"
#include "exec/inference_predictor.hpp"
#include "exec/training_predictor.hpp"
#include "llm_fixtures.hpp"
#include "memory/inference_memory.hpp"
#include "model/layer_ops.hpp"
#include "model/llm_dims.hpp"
#include "model/model_flops.hpp"
#include "rapidllm/error.hpp"
#include "../config/temp_yaml.hpp"

namespace rapidllm::exec {
namespace {

using ::testing::HasSubstr;
using testing::shipped_hardware;
using testing::shipped_model;

constexpr std::int64_t kTile = 128;

model::Op attention_op(std::int64_t seq, std::int64_t window, std::int64_t q_len = 0) {
  model::Op op;
  op.kind = model::OpKind::attention;
  op.cls = model::OpClass::attention;
  op.attention = model::AttentionShape{1, 32, 8, q_len > 0 ? q_len : seq, seq, 128, true, true, kTile, 2.0, 2.0};
  op.attention.window = window;
  return op;
}

struct Costs {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  compute::OpCoster coster{hw, DType::bf16, DType::bf16};
  double flops(const model::Op& op) { return coster.time(op).forward_flops; }
  double seconds(const model::Op& op) { return coster.time(op).forward_s; }
};

// Scores per (sequence, head) of the banded tiles, B dividing w: (w + B)(2s - w)/2.
double band_scores(double s, double w) { return (w + kTile) * (2.0 * s - w) / 2.0; }

TEST(SlidingWindow, FusedAttentionAtFourWindowsIsTheBandOfTiles) {
  Costs c;
  const double w = 4096, s = 4 * w, heads = 32, head_dim = 128;
  const double flops = c.flops(attention_op(16384, 4096));
  // D = 32 band blocks behind the diagonal of n = 128: 33 (256 - 32)/2 = 3696 blocks.
  EXPECT_DOUBLE_EQ(flops, 4.0 * heads * head_dim * 3696.0 * kTile * kTile);
  EXPECT_DOUBLE_EQ(flops, 4.0 * heads * head_dim * band_scores(s, w));  // = (w + B) 7w / 2
  // Against the exact (7 w^2 + w)/2 scores: the band's edge tiles add about B / w.
  const double exact = 4.0 * heads * head_dim * (7.0 * w * w + w) / 2.0;
  EXPECT_GT(flops, exact);
  EXPECT_LT(flops, exact * (1.0 + kTile / w));
  // Backward runs over the same band.
  EXPECT_DOUBLE_EQ(c.coster.attention().time(attention_op(16384, 4096).attention, c.coster.gemms())
                       .backward_flops,
                   2.5 * flops);
}

TEST(SlidingWindow, AWindowAtLeastTheSequenceIsFullAttentionExactly) {
  Costs c;
  for (std::int64_t s : {2048, 4096, 8192}) {
    const model::Op full = attention_op(s, 0);
    for (std::int64_t w : {s, s + 1, 2 * s, std::int64_t{1000000}}) {
      EXPECT_EQ(c.flops(attention_op(s, w)), c.flops(full)) << s << " " << w;
      EXPECT_EQ(c.seconds(attention_op(s, w)), c.seconds(full)) << s << " " << w;
    }
  }
}

TEST(SlidingWindow, BeyondTheWindowWorkGrowsLinearlyNotQuadratically) {
  Costs c;
  const std::int64_t w = 2048;
  const double f2 = c.flops(attention_op(2 * w, w));
  const double f4 = c.flops(attention_op(4 * w, w));
  const double f8 = c.flops(attention_op(8 * w, w));
  // Affine in s beyond w: equal steps per added window.
  EXPECT_DOUBLE_EQ(f8 - f4, 2.0 * (f4 - f2));
  EXPECT_DOUBLE_EQ(f4, 4.0 * 32 * 128 * band_scores(4.0 * w, w));
  // Doubling s doubles windowed work up to the constant (w + B) w / 2 of the first
  // window's triangle: (w + B)(4s - w) / ((w + B)(2s - w)) = 15/7 at s = 4w, -> 2.
  EXPECT_DOUBLE_EQ(f8 / f4, 15.0 / 7.0);
  const double triangle = 4.0 * 32 * 128 * (w + kTile) * w / 2.0;
  EXPECT_DOUBLE_EQ(f8 + triangle, 2.0 * (f4 + triangle));
  // Full causal attention quadruples: (n + 1) n / 2 blocks, 128 x 129 / (64 x 65).
  const double g4 = c.flops(attention_op(4 * w, 0));
  const double g8 = c.flops(attention_op(8 * w, 0));
  EXPECT_DOUBLE_EQ(g8 / g4, 128.0 * 129.0 / (64.0 * 65.0));
  EXPECT_GT(g8 / g4, 3.9);
}

TEST(SlidingWindow, ContextParallelRanksRunTheBusiestZigzagShare) {
  // s = 16384 on cp = 2, chunks of 4096 = w: rank 0 holds chunks 0 and 3 (w(w+1)/2 + w^2
  // scores), rank 1 chunks 1 and 2 (2 w^2): rank 1 sets the pace.
  Costs c;
  const double w = 4096;
  const double total = w * (w + 1) / 2 + 3 * w * w;
  const double busiest = 2 * w * w;
  const double whole = c.flops(attention_op(16384, 4096));
  EXPECT_NEAR(c.flops(attention_op(16384, 4096, 8192)), whole * busiest / total, whole * 1e-14);
  // Causal without a window: the split is even.
  EXPECT_DOUBLE_EQ(c.flops(attention_op(16384, 0, 8192)), c.flops(attention_op(16384, 0)) / 2.0);
}

TEST(SlidingWindow, DecodeAttentionIsFlatBeyondTheWindow) {
  Costs c;
  model::LlmDims d = model::llm_dims(shipped_model("mistral-7b"), "test");
  model::LocalShape s;
  s.micro_batch = 8;
  s.decode = true;
  s.window = d.sliding_window;
  const auto attention_s = [&](std::int64_t kv) {
    s.kv_len = kv;
    for (const auto& op : model::transformer_layer_ops(d, s)) {
      if (op.kind == model::OpKind::attention) return c.seconds(op);
    }
    return -1.0;
  };
  EXPECT_LT(attention_s(2048), attention_s(4096));
  EXPECT_EQ(attention_s(4096), attention_s(8192));
  EXPECT_EQ(attention_s(4096), attention_s(32768));

  // The whole decode: every step of an all-windowed model past w costs the same.
  LlmModelSpec m = shipped_model("mistral-7b");
  m.run_type = RunType::inference;
  m.global_batch_size = 8;
  m.seq_len = 8192 + 256;
  m.decode_len = 256;
  const InferencePrediction p = predict_inference(shipped_hardware("H100_SXM5_80GB"), m, "test");
  EXPECT_DOUBLE_EQ(p.tpot.min_s, p.tpot.max_s);
  EXPECT_NEAR(p.tpot.mean_s, p.tpot.min_s, 1e-12 * p.tpot.min_s);
  // Global attention keeps growing.
  m.attention.sliding_window = 0;
  const InferencePrediction full = predict_inference(shipped_hardware("H100_SXM5_80GB"), m, "test");
  EXPECT_GT(full.tpot.max_s, full.tpot.min_s);
  EXPECT_GT(full.tpot.min_s, p.tpot.min_s);
}

TEST(SlidingWindow, DecodeStraddlingTheWindowSumsBothPieces) {
  // Prompt below w, decode past it: the sum is the step-by-step sum.
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  LlmModelSpec m = shipped_model("mistral-7b");
  m.run_type = RunType::inference;
  m.global_batch_size = 16;
  m.attention.sliding_window = 1000;
  m.attention.global_every = 4;
  m.seq_len = 900 + 300;
  m.decode_len = 300;
  const InferencePrediction p = predict_inference(hw, m, "test");
  const model::LlmDims d = model::llm_dims(m, "test");
  compute::OpCoster coster(hw, DType::bf16, DType::bf16);
  model::LocalShape s;
  s.micro_batch = 16;
  s.decode = true;
  double attention = 0.0;
  for (std::int64_t kv = 900; kv < 1200; ++kv) {
    for (int l = 0; l < d.layers; ++l) {
      s.kv_len = kv;
      s.window = d.layer_window(l);
      for (const auto& op : model::transformer_layer_ops(d, s)) {
        if (op.kind == model::OpKind::attention) attention += coster.time(op).forward_s;
      }
    }
  }
  double first = 0.0;
  for (int l = 0; l < d.layers; ++l) {
    s.kv_len = 900;
    s.window = d.layer_window(l);
    for (const auto& op : model::transformer_layer_ops(d, s)) {
      if (op.kind == model::OpKind::attention) first += coster.time(op).forward_s;
    }
  }
  const double fixed_s = p.tpot.min_s - first;  // tpot.min = fixed + attention at kv = 900
  EXPECT_NEAR(p.decode_time_s, 300 * fixed_s + attention, 1e-9 * p.decode_time_s);
}

TEST(SlidingWindow, MistralKvCacheHoldsTheWindowPerLayer) {
  const model::LlmDims d = model::llm_dims(shipped_model("mistral-7b"), "test");
  // 32 layers x 4096 tokens x (K, V) x 8 KV heads x 128 x 2 bytes, at a 32k context.
  EXPECT_DOUBLE_EQ(memory::kv_cache_bytes(d, 0, 32, 1, 1, 32768, 2.0), 32.0 * 4096 * 2 * 8 * 128 * 2);
  // A full-attention layer keeps all 32k; below the window the cache is the context.
  EXPECT_DOUBLE_EQ(memory::kv_cache_bytes(d, 32, 1, 1, 32768, 2.0), 32.0 * 32768 * 2 * 8 * 128 * 2);
  EXPECT_DOUBLE_EQ(memory::kv_cache_bytes(d, 0, 32, 1, 1, 3000, 2.0), memory::kv_cache_bytes(d, 32, 1, 1, 3000, 2.0));
}

TEST(SlidingWindow, HybridLayersAlternateLikeGemma) {
  model::LlmDims d = model::llm_dims(shipped_model("mistral-7b"), "test");
  d.global_every = 2;  // Gemma 2: local, global, local, ...
  EXPECT_EQ(d.layer_window(0), 4096);
  EXPECT_EQ(d.layer_window(1), 0);
  EXPECT_EQ(d.windowed_layers(0, 32), 16);
  // Half the layers hold the window, half the whole context.
  EXPECT_DOUBLE_EQ(memory::kv_cache_bytes(d, 0, 32, 1, 1, 32768, 2.0),
                   16.0 * (4096 + 32768) * 2 * 8 * 128 * 2);
  d.global_every = 6;  // Gemma 3: 5 local : 1 global, layers 5, 11, ... global
  EXPECT_EQ(d.layer_window(5), 0);
  EXPECT_EQ(d.layer_window(6), 4096);
  EXPECT_EQ(d.windowed_layers(0, 12), 10);
  EXPECT_EQ(d.windowed_layers(0, 32), 27);
}

TEST(SlidingWindow, ModelFlopsCountTheKeysEachQueryAttends) {
  model::LlmDims d = model::llm_dims(shipped_model("mistral-7b"), "test");
  const double six_n = 6.0 * model::matmul_parameters(d);
  const double q = 32.0 * 128, layers = 32, w = 4096;
  // At s = 4w a windowed query sees w - w^2/(2s) = 7w/8 keys on average.
  EXPECT_DOUBLE_EQ(model::training_flops_per_token(d, 4 * 4096) - six_n, 12.0 * layers * (7.0 * w / 8.0) * q);
  // A window >= s is the dense count, bit for bit.
  model::LlmDims dense = d;
  dense.sliding_window = 0;
  for (std::int64_t s : {2048, 4096}) {
    EXPECT_EQ(model::training_flops_per_token(d, s), model::training_flops_per_token(dense, s));
    EXPECT_EQ(model::mfu_formula(d, s), model::mfu_formula(dense, s));
  }
  EXPECT_THAT(model::mfu_formula(d, 8192), HasSubstr("sliding window"));
  // Beyond w the windowed term is nearly flat per token while the dense one doubles.
  const double win8 = model::training_flops_per_token(d, 8 * 4096) - six_n;
  EXPECT_NEAR(win8, 12.0 * layers * (15.0 * w / 16.0) * q, 1e-6 * win8);
  // Gemma-2-like hybrid: half the layers windowed, the attention term the mean of both.
  model::LlmDims hybrid = d;
  hybrid.global_every = 2;
  const double s = 4 * 4096;
  EXPECT_NEAR(model::training_flops_per_token(hybrid, 16384) - six_n,
              0.5 * ((model::training_flops_per_token(d, 16384) - six_n) +
                     (model::training_flops_per_token(dense, 16384) - six_n)),
              1e-9 * s * q * layers);
}

TEST(SlidingWindow, TrainingStepIsBetweenWindowedAndFullAndEqualAtALongWindow) {
  const HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  LlmModelSpec m = shipped_model("mistral-7b");
  m.global_batch_size = 8;
  m.seq_len = 16384;
  const TrainingPrediction windowed = predict_training(hw, m, "test");
  LlmModelSpec hybrid = m;
  hybrid.attention.global_every = 2;
  const TrainingPrediction mixed = predict_training(hw, hybrid, "test");
  LlmModelSpec full = m;
  full.attention.sliding_window = 0;
  const TrainingPrediction dense = predict_training(hw, full, "test");
  EXPECT_LT(windowed.step_time_s, mixed.step_time_s);
  EXPECT_LT(mixed.step_time_s, dense.step_time_s);
  // Only attention differs: the hybrid's attention time is the mean of the two.
  const auto attention = [](const TrainingPrediction& p) {
    for (const auto& [name, s] : p.breakdown) {
      if (name == "compute.attention") return s;
    }
    return 0.0;
  };
  EXPECT_NEAR(attention(mixed), 0.5 * (attention(windowed) + attention(dense)), 1e-9 * attention(dense));
  LlmModelSpec long_window = m;
  long_window.attention.sliding_window = m.seq_len;
  const TrainingPrediction same = predict_training(hw, long_window, "test");
  EXPECT_EQ(same.step_time_s, dense.step_time_s);
  EXPECT_EQ(same.mfu, dense.mfu);
  EXPECT_EQ(same.memory.total_bytes, dense.memory.total_bytes);
}

TEST(SlidingWindow, SimulatedStepPicksEachLayersAttention) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  hw.parallelism.pp = 2;
  LlmModelSpec m = shipped_model("mistral-7b");
  m.global_batch_size = 8;
  m.seq_len = 16384;
  m.attention.global_every = 2;
  TrainingRunOptions o;
  o.simulate_step = true;
  o.mode = "simulated";
  const TrainingPrediction sim = predict_training(hw, m, "test", nullptr, o);
  const TrainingPrediction formula = predict_training(hw, m, "test");
  EXPECT_GT(sim.step_time_s, 0.0);
  // Both stages hold 8 windowed and 8 global layers: the simulation sees the same work.
  EXPECT_NEAR(sim.step_time_s, formula.step_time_s, 0.05 * formula.step_time_s);
  LlmModelSpec all = m;
  all.attention.global_every = 0;
  EXPECT_LT(predict_training(hw, all, "test", nullptr, o).step_time_s, sim.step_time_s);
}

ConfigError model_error(const std::string& attention_extra) {
  rapidllm::testing::TempYaml file(
      "model_param:\n  mode: LLM\n  run_type: training\n  model_type: llama\n  global_batch_size: 8\n"
      "  seq_len: 8192\n  hidden_dim: 4096\n  intermediate_size: 14336\n  vocab_size: 32000\n"
      "  num_layers: 32\n  attention:\n    attention_type: gqa\n    num_heads: 32\n    kv_heads: 8\n" +
      attention_extra);
  try {
    (void)load_model(file.path());
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ConfigError for " << attention_extra;
  return ConfigError({}, "", "", "");
}

TEST(SlidingWindow, BadValuesAreConfigErrorsNamingTheKey) {
  for (const char* bad : {"    sliding_window: -1\n", "    sliding_window: 4k\n", "    sliding_window: 1.5\n"}) {
    EXPECT_EQ(model_error(bad).key_path(), "model_param.attention.sliding_window") << bad;
  }
  for (const char* bad : {"    sliding_window: 4096\n    global_every: 0\n",
                          "    sliding_window: 4096\n    global_every: -2\n",
                          "    sliding_window: 4096\n    global_every: two\n"}) {
    EXPECT_EQ(model_error(bad).key_path(), "model_param.attention.global_every") << bad;
  }
  const ConfigError orphan = model_error("    global_every: 2\n");
  EXPECT_EQ(orphan.key_path(), "model_param.attention.global_every");
  EXPECT_THAT(orphan.problem(), HasSubstr("no sliding_window"));
  EXPECT_THAT(orphan.hint(), HasSubstr("sliding_window"));
  // Legal: a window longer than the sequence, 0 and null (full attention).
  for (const char* ok : {"    sliding_window: 100000\n", "    sliding_window: 0\n", "    sliding_window: null\n"}) {
    rapidllm::testing::TempYaml file(
        "model_param:\n  mode: LLM\n  run_type: training\n  model_type: llama\n  global_batch_size: 8\n"
        "  seq_len: 8192\n  hidden_dim: 4096\n  intermediate_size: 14336\n  vocab_size: 32000\n"
        "  num_layers: 32\n  attention:\n    attention_type: gqa\n    num_heads: 32\n    kv_heads: 8\n" +
        std::string(ok));
    EXPECT_NO_THROW((void)load_model(file.path())) << ok;
  }
}

}  // namespace
}  // namespace rapidllm::exec
