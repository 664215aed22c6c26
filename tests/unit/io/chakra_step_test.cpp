// The Chakra export of a real training step (Llama-2-7B, TP 2, PP 2 with 1F1B, DP 2):
// every rank's file parses back with the generated code, with its stage program's nodes,
// dependencies and pipeline peers.
#include <filesystem>

#include <gtest/gtest.h>

#include "../exec/llm_fixtures.hpp"
#include "exec/training_predictor.hpp"
#include "io/chakra_export.hpp"

namespace rapidllm {
namespace {

TEST(ChakraStep, EveryRankOfATrainingStepParsesBackWithItsStagesGraph) {
  HardwareSpec hw = testing::shipped_hardware("H100_SXM5_80GB");
  hw.parallelism.tp = 2;
  hw.parallelism.pp = 2;
  hw.parallelism.dp = 2;
  hw.parallelism.mb = 4;
  hw.sw.dp_zero_stage = 1;
  LlmModelSpec m = testing::shipped_model("llama2-7b");
  m.global_batch_size = 16;
  exec::StepGraph graph;
  exec::TrainingRunOptions o;
  o.graph = &graph;
  (void)exec::predict_training(hw, m, "test", nullptr, o);
  ASSERT_EQ(graph.num_ranks, 8);
  ASSERT_EQ(graph.pp_stride, 2);

  const auto dir = std::filesystem::temp_directory_path() / "rapidllm_chakra_step_test";
  std::filesystem::remove_all(dir);
  io::write_chakra_traces(graph, dir, "step", {});
  for (int rank = 0; rank < graph.num_ranks; ++rank) {
    ChakraProtoMsg::GlobalMetadata meta;
    const auto nodes = io::read_chakra_trace(dir / ("step." + std::to_string(rank) + ".et"), &meta);
    const exec::StageProgram& prog = graph.stages[static_cast<std::size_t>(graph.stage_of_rank(rank))];
    ASSERT_EQ(nodes.size(), prog.nodes.size()) << "rank " << rank;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const exec::StepNode& n = prog.nodes[i];
      ASSERT_EQ(nodes[i].id(), i);
      ASSERT_EQ(static_cast<std::uint32_t>(nodes[i].data_deps_size()), n.deps_end - n.deps_begin);
      for (std::uint32_t k = n.deps_begin; k < n.deps_end; ++k) {
        EXPECT_EQ(nodes[i].data_deps(static_cast<int>(k - n.deps_begin)), prog.deps[k]);
      }
      if (n.kind == exec::StepNodeKind::send || n.kind == exec::StepNodeKind::recv) {
        int src = -1, dst = -1;
        for (const auto& a : nodes[i].attr()) {
          if (a.name() == "comm_src") src = static_cast<int>(a.int32_val());
          if (a.name() == "comm_dst") dst = static_cast<int>(a.int32_val());
        }
        const int peer = graph.peer_rank(rank, n.peer_stage);
        EXPECT_EQ(n.kind == exec::StepNodeKind::send ? dst : src, peer) << "rank " << rank << " node " << i;
        EXPECT_EQ(n.kind == exec::StepNodeKind::send ? src : dst, rank);
      }
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rapidllm
