// Mixture of experts and multi-head latent attention against hand counts: parameter
// totals and active parameters from the architectures' published shapes, the MLA latent
// cache, and the expert-parallel dispatch volume.
#include <gtest/gtest.h>

#include <algorithm>

#include "memory/inference_memory.hpp"
#include "model/llm_dims.hpp"
#include "model/model_flops.hpp"
#include "model/moe_ops.hpp"
#include "parallel/layer_graph.hpp"
#include "rapidllm/collective.hpp"
#include "rapidllm/config.hpp"

namespace rapidllm::model {
namespace {

LlmDims reference(const std::string& file) {
  const std::string path = std::string(RAPIDLLM_SOURCE_DIR) + "/tests/data/rapid-llm-reference/model/" + file;
  return llm_dims(std::get<LlmModelSpec>(load_model(path).workload), path);
}

LlmModelSpec gqa_moe(std::int64_t hidden, int layers, int heads, int kv_heads, int head_dim, int experts, int top_k,
                     std::int64_t expert_ffn, std::int64_t vocab) {
  LlmModelSpec m;
  m.model_type = "llama";
  m.hidden_dim = hidden;
  m.num_layers = layers;
  m.attention.type = AttentionType::gqa;
  m.attention.num_heads = heads;
  m.attention.kv_heads = kv_heads;
  m.attention.head_dim = head_dim;
  m.moe.num_experts = experts;
  m.moe.top_k = top_k;
  m.moe.moe_intermediate_size = expert_ffn;
  m.intermediate_size = expert_ffn;
  m.vocab_size = vocab;
  m.seq_len = 4096;
  return m;
}

TEST(MoeParameters, DeepSeekV3Has671BillionOf37BillionActive) {
  const LlmDims d = reference("DeepSeekV3.yaml");
  // MLA per layer: q 7168 x 1536 + 1536 + 1536 x 128 x 192; kv 7168 x 576 + 512 + 512 x 128 x 256;
  // o 128 x 128 x 7168: 187,107,328; norms 2 x 7168.
  EXPECT_DOUBLE_EQ(attention_parameter_count(d), 187107328.0);
  // Dense layers (0-2): + 3 x 7168 x 18432. MoE layers (3-60): router 7168 x 256, one shared
  // and 256 routed experts of 3 x 7168 x 2048 = 44,040,192.
  EXPECT_DOUBLE_EQ(layer_parameters(d, 2).total(), 583483392.0);
  EXPECT_DOUBLE_EQ(layer_parameters(d, 3).dense, 232996864.0);
  EXPECT_DOUBLE_EQ(layer_parameters(d, 3).routed_experts, 11274289152.0);
  // 3 x 583,483,392 + 58 x 11,507,286,016 + 2 x 129280 x 7168 + 7168 (the MTP module aside).
  EXPECT_DOUBLE_EQ(parameter_count(d), 671026404352.0);
  // Active: 8 routed of 256 per MoE layer: 58 x 585,318,400 + 3 dense layers + tables.
  EXPECT_DOUBLE_EQ(active_parameter_count(d), 37552282624.0);
}

TEST(MoeParameters, Qwen3_235B_A22B) {
  // 94 layers of GQA 64/4 x 128 on 4096 and 128 experts (top 8) of width 1536; untied 151936.
  const LlmDims d = llm_dims(gqa_moe(4096, 94, 64, 4, 128, 128, 8, 1536, 151936), "qwen3-235b");
  // Layer: 71,303,168 attention + 8,192 norms + 524,288 router + 128 x 18,874,368 experts.
  EXPECT_DOUBLE_EQ(parameter_count(d), 235093610496.0);
  EXPECT_DOUBLE_EQ(active_parameter_count(d), 22190739456.0);
}

TEST(MoeParameters, Mixtral8x7B) {
  // 32 layers of GQA 32/8 on 4096 and 8 experts (top 2) of width 14336; untied 32000.
  const LlmDims d = llm_dims(gqa_moe(4096, 32, 32, 8, 128, 8, 2, 14336, 32000), "mixtral");
  EXPECT_DOUBLE_EQ(parameter_count(d), 46702792704.0);       // the card's 46.7B
  EXPECT_DOUBLE_EQ(active_parameter_count(d), 12879925248.0);  // the card's 12.9B
}

TEST(MoeLayers, FirstKDenseAndLayerFrequency) {
  LlmDims d = reference("DeepSeekV3.yaml");
  EXPECT_FALSE(d.moe_layer(2));
  EXPECT_TRUE(d.moe_layer(3));
  d.moe.moe_layer_freq = 2;  // every second layer from first_dense on
  EXPECT_TRUE(d.moe_layer(4));
  EXPECT_FALSE(d.moe_layer(5));
  const auto kinds = d.layer_kinds(0, d.layers);
  EXPECT_EQ(kinds[0], 3 + 29);  // dense: the first three and the odd ones after
  EXPECT_EQ(kinds[2], 29);
}

TEST(Mla, LatentCacheIsKvLoraPlusRopePerTokenAndLayerOnEveryTpRank) {
  const LlmDims d = reference("DeepSeekV3.yaml");
  // (512 + 64) x 2 bytes per token and layer; TP does not split it (every head reads it).
  EXPECT_DOUBLE_EQ(memory::kv_cache_bytes(d, 1, 1, 1, 1, 2.0), 576.0 * 2.0);
  EXPECT_DOUBLE_EQ(memory::kv_cache_bytes(d, 61, 8, 4, 1000, 1.0), 61.0 * 576.0 * 4.0 * 1000.0);
}

TEST(Mla, DecodeAttentionReadsTheLatentOnce) {
  const LlmDims d = reference("DeepSeekV3.yaml");
  LocalShape s;
  s.micro_batch = 4;
  s.decode = true;
  s.kv_len = 1000;
  s.tp = 8;
  const std::vector<Op> ops = transformer_layer_ops(d, s, true);
  const auto at = std::find_if(ops.begin(), ops.end(), [](const Op& o) { return o.kind == OpKind::attention; });
  ASSERT_NE(at, ops.end());
  EXPECT_EQ(at->attention.heads, 16);     // 128 / tp
  EXPECT_EQ(at->attention.kv_heads, 1);   // one latent shared by the heads
  EXPECT_EQ(at->attention.cache_width, 576);
  // QK^T over 576 dims and PV over 512: their mean gives both FLOPs.
  EXPECT_EQ(at->attention.head_dim, (576 + 512) / 2);
}

TEST(ExpertParallel, DispatchVolumeIsTokensTopKHiddenBytesTimesEpMinusOneOverEp) {
  const LlmDims d = reference("DeepSeekV3.yaml");
  LocalShape s;
  s.micro_batch = 2;
  s.seq = 4096;
  s.ep = 8;
  s.element_bytes = 2.0;
  parallel::PartSettings p;
  OpGraph g;
  parallel::layer_graph(d, s, p, g, true);
  int forward_a2a = 0;
  int backward_a2a = 0;
  for (const Node& n : g.nodes()) {
    if (n.kind != NodeKind::communication) continue;
    const CommOp& c = g.comms()[n.index];
    if (c.op != CollectiveOp::all_to_all) continue;
    EXPECT_EQ(c.group, Parallelism::ep);
    // Each rank's 8192 tokens x top 8 x 7168 x 2 bytes (nccl-tests size) ...
    EXPECT_DOUBLE_EQ(c.bytes, 8192.0 * 8 * 7168 * 2);
    (n.pass == Pass::forward ? forward_a2a : backward_a2a)++;
  }
  EXPECT_EQ(forward_a2a, 2);   // dispatch and combine
  EXPECT_EQ(backward_a2a, 2);  // their transposes
  // ... of which (ep - 1) / ep leaves the rank each way.
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::all_to_all, 8), 7.0 / 8.0);
}

TEST(ExpertParallel, OneHotImbalanceLoadsTheHotRank) {
  LlmDims d = reference("DeepSeekV3.yaml");
  d.moe.expert_imbalance_factor = 2.0;
  LocalShape s;
  s.micro_batch = 1;
  s.seq = 4096;
  s.ep = 64;  // 4 experts per rank
  const ExpertLoad load = expert_load(d, s);
  EXPECT_EQ(load.local_experts, 4);
  EXPECT_DOUBLE_EQ(load.rows, 4096.0 * 8);
  // Cold experts: (256 - 2) / 255 of the mean; the hot rank (2 + 3 x cold) / 4 of the rows.
  const double beta = 254.0 / 255.0;
  EXPECT_DOUBLE_EQ(load.hot_rank_factor, (2.0 + 3.0 * beta) / 4.0);
  ASSERT_EQ(load.groups.size(), 2u);
  EXPECT_EQ(load.groups[0].experts, 1);
  EXPECT_EQ(load.groups[0].rows, 2 * 8192);     // 2 x the 8192 rows of a mean expert
  EXPECT_EQ(load.groups[1].experts, 3);
  EXPECT_EQ(load.groups[1].rows, 8160);         // ceil(254/255 x 8192)
}

TEST(ExpertParallel, BalancedRoutingRunsTheLocalExpertsAsOneGroup) {
  const LlmDims d = reference("DeepSeekV3.yaml");  // expert_imbalance_factor 1.0
  LocalShape s;
  s.micro_batch = 1;
  s.seq = 4096;
  s.ep = 64;
  const ExpertLoad load = expert_load(d, s);
  // No hot expert: the 4 local experts' 4096 x 8 / 256 x 64 = 8192 rows each in one grouped
  // GEMM, launched once a pass (a hot group of one would pay a second launch).
  EXPECT_DOUBLE_EQ(load.hot_rank_factor, 1.0);
  ASSERT_EQ(load.groups.size(), 1u);
  EXPECT_EQ(load.groups[0].experts, 4);
  EXPECT_EQ(load.groups[0].rows, 8192);
}

TEST(ExpertParallel, DecodeReadsOnlyTheExpertsItsTokensHit) {
  const LlmDims d = reference("DeepSeekV3.yaml");
  LocalShape s;
  s.micro_batch = 1;
  s.decode = true;
  s.ep = 4;  // 64 experts per rank
  const ExpertLoad load = expert_load(d, s);
  // 4 ranks x 1 token x top 8 = 32 picks: 256 (1 - (1 - 8/256)^4) = 30.1 experts hit, 7.5 per rank.
  ASSERT_EQ(load.groups.size(), 1u);
  EXPECT_EQ(load.groups[0].experts, 8);
  EXPECT_EQ(load.groups[0].rows, 1);
}

}  // namespace
}  // namespace rapidllm::model
