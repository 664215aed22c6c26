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
