// How a model's layers fall on pipeline ranks, and which ranks are alike.
#include <gtest/gtest.h>

#include "exec/model_partition.hpp"
#include "exec/stage_groups.hpp"
#include "llm_fixtures.hpp"

namespace rapidllm::exec {
namespace {

// 80 layers over pp x vpp chunks, the first L mod (pp x vpp) chunks one layer longer;
// rank i holds chunks i, i + pp, ...
TEST(StageGroups, EveryRanksLayersAsTheChunksFall) {
  HardwareSpec hw = testing::shipped_hardware("H100_SXM5_80GB");
  const LlmModelSpec model = testing::shipped_model("llama3.1-70b");  // 80 layers, one kind
  hw.parallelism.tp = 1;
  hw.parallelism.cp = 1;
  struct Case {
    int pp, vpp;
    std::vector<int> layers;  // per rank
  };
  for (const Case& c : {Case{4, 1, {20, 20, 20, 20}},
                        Case{3, 1, {27, 27, 26}},
                        Case{6, 2, {14, 14, 13, 13, 13, 13}},     // 12 chunks: 8 of 7 layers, 4 of 6
                        Case{7, 4, {12, 12, 12, 11, 11, 11, 11}},  // 28 chunks: 24 of 3, 4 of 2
                        Case{16, 4, {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5}}}) {
    hw.parallelism.pp = c.pp;
    const ModelPartition partition(hw, model, "llama3.1-70b.yaml");
    const StageGroups groups = stage_groups(partition, c.vpp);
    int total = 0;
    for (int i = 0; i < c.pp; ++i) {
      const int n = layer_count(partition.stage_layer_kinds(i, c.vpp));
      EXPECT_EQ(n, c.layers[static_cast<std::size_t>(i)]) << "pp=" << c.pp << " vpp=" << c.vpp << " rank " << i;
      EXPECT_EQ(layer_count(groups.of(i).kinds), n) << "pp=" << c.pp << " rank " << i;
      total += n;
    }
    EXPECT_EQ(total, 80);
  }
}

// First, last, and the middle ranks with the longer and the shorter share: four groups,
// each starting at its earliest rank.
TEST(StageGroups, RanksAlikeShareAGroup) {
  HardwareSpec hw = testing::shipped_hardware("H100_SXM5_80GB");
  hw.parallelism.pp = 6;  // 14, 14, 13, 13, 13, 13 layers
  const ModelPartition partition(hw, testing::shipped_model("llama3.1-70b"), "llama3.1-70b.yaml");
  const StageGroups g = stage_groups(partition, 1);
  ASSERT_EQ(g.groups.size(), 4u);
  EXPECT_EQ(g.of_stage, (std::vector<int>{0, 1, 2, 2, 2, 3}));
  EXPECT_EQ(g.groups[2].first_stage, 2);
  EXPECT_TRUE(g.groups[0].first);
  EXPECT_TRUE(g.groups[3].last);
  // The first rank holds the embedding table besides its layers: V x h / tp more.
  EXPECT_GT(g.groups[0].params.dense, g.groups[1].params.dense);
}

}  // namespace
}  // namespace rapidllm::exec

namespace rapidllm::exec {
namespace {

// nanotron's compute-balanced split, against the parameters its runs logged on their first
// pipeline rank (validation/data/nanotron_h100.csv, `Local Params` at tp 1): a rank takes
// decoder layers (4 h^2 + 3 h ffn each) until their cost reaches its share of the model's,
// the LM head (V h) counted on the last.
TEST(StageGroups, ComputeBalancedSplitHoldsNanotronsLayers) {
  HardwareSpec hw = testing::shipped_hardware("H100_SXM5_80GB");
  hw.parallelism.layer_split = LayerSplit::compute_balanced;
  hw.parallelism.pp_schedule = PipelineSchedule::one_f_one_b;
  LlmModelSpec m = testing::shipped_model("llama3.1-8b");
  // 1.34B: 16 layers, hidden 2048, MLP 8192, 32 heads, vocabulary 131072 (the head costs
  // exactly 4 layers).
  m.num_layers = 16;
  m.hidden_dim = 2048;
  m.intermediate_size = 8192;
  m.attention.num_heads = 32;
  m.attention.kv_heads = 32;
  m.attention.type = AttentionType::mha;
  m.vocab_size = 131072;
  struct Case {
    int pp;
    std::vector<int> layers;
    double first_rank_params;  // logged
  };
  // Shares of 20 layers' cost: pp 4 cuts at 5, 10, 15 (the head fills the last share); pp 8
  // at 2.5, 5, ... so ranks alternate 3 and 2, and the head's rank would be the seventh: it
  // sits on the eighth, the seventh keeping the last layer.
  for (const Case& c : {Case{2, {10, 6}, 940e6}, Case{4, {5, 5, 5, 1}, 604e6}, Case{8, {3, 2, 3, 2, 3, 2, 1, 0}, 470e6}}) {
    hw.parallelism.pp = c.pp;
    const ModelPartition partition(hw, m, "nanotron-1.34B");
    EXPECT_EQ(partition.balanced_stage_layers(), c.layers) << "pp=" << c.pp;
    const StageGroups g = stage_groups(partition, 1);
    EXPECT_NEAR(g.of(0).params.total(), c.first_rank_params, 0.005 * c.first_rank_params) << "pp=" << c.pp;
  }
}

}  // namespace
}  // namespace rapidllm::exec
