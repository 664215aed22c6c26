#include <gtest/gtest.h>

#include "parallel/gemm_sharding.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::parallel {
namespace {

// C[M x N] = A[M x K] B[K x N] with M=1024, K=4096, N=2048 in bf16.
const GemmModelSpec kGemm{1024, 4096, 2048, true, ShardAxis::row};
constexpr double kC = 1024.0 * 2048 * 2;  // bytes of C (and dC)
constexpr double kA = 1024.0 * 4096 * 2;  // bytes of A (and dA)

TEST(GemmSharding, SingleRankRunsTheThreeGemmsWhole) {
  auto passes = shard_gemm(kGemm, 1, false, 2.0);
  ASSERT_EQ(passes.size(), 3u);
  EXPECT_EQ(passes[0].local_shape, (GemmShape{1024, 2048, 4096, 1}));  // m, n, k
  EXPECT_EQ(passes[1].local_shape, (GemmShape{1024, 4096, 2048, 1}));  // dA = dC B^T
  EXPECT_EQ(passes[2].local_shape, (GemmShape{4096, 2048, 1024, 1}));  // dB = A^T dC
  for (const auto& p : passes) EXPECT_TRUE(p.collectives.empty());
}

TEST(GemmSharding, RowSplitsKAndAllReducesC) {
  auto passes = shard_gemm(kGemm, 8, false, 2.0);
  EXPECT_EQ(passes[0].local_shape.k, 512);
  ASSERT_EQ(passes[0].collectives.size(), 1u);
  EXPECT_EQ(passes[0].collectives[0].op, CollectiveOp::all_reduce);
  EXPECT_DOUBLE_EQ(passes[0].collectives[0].bytes, kC);
  EXPECT_EQ(passes[1].local_shape, (GemmShape{1024, 512, 2048, 1}));
  EXPECT_EQ(passes[2].local_shape, (GemmShape{512, 2048, 1024, 1}));
  EXPECT_TRUE(passes[1].collectives.empty());  // dC is replicated after the all-reduce
}

TEST(GemmSharding, RowWithSequenceParallelReduceScattersAndGathersDc) {
  auto passes = shard_gemm(kGemm, 8, true, 2.0);
  EXPECT_EQ(passes[0].collectives[0].op, CollectiveOp::reduce_scatter);
  ASSERT_EQ(passes[1].collectives.size(), 1u);
  EXPECT_EQ(passes[1].collectives[0].op, CollectiveOp::all_gather);
  EXPECT_TRUE(passes[1].collectives[0].before_gemm);
  EXPECT_DOUBLE_EQ(passes[1].collectives[0].bytes, kC);
}

TEST(GemmSharding, ColumnSplitsNGathersCAndAllReducesDa) {
  GemmModelSpec col = kGemm;
  col.shard_axis = ShardAxis::column;
  auto passes = shard_gemm(col, 4, false, 2.0);
  EXPECT_EQ(passes[0].local_shape, (GemmShape{1024, 512, 4096, 1}));
  EXPECT_EQ(passes[0].collectives[0].op, CollectiveOp::all_gather);
  EXPECT_DOUBLE_EQ(passes[0].collectives[0].bytes, kC);
  EXPECT_EQ(passes[1].local_shape, (GemmShape{1024, 4096, 512, 1}));
  EXPECT_EQ(passes[1].collectives[0].op, CollectiveOp::all_reduce);
  EXPECT_DOUBLE_EQ(passes[1].collectives[0].bytes, kA);
  EXPECT_EQ(passes[2].local_shape, (GemmShape{4096, 512, 1024, 1}));
}

TEST(GemmSharding, ColumnWithSequenceParallelGathersTheInput) {
  GemmModelSpec col = kGemm;
  col.shard_axis = ShardAxis::column;
  auto passes = shard_gemm(col, 4, true, 2.0);
  EXPECT_EQ(passes[0].collectives[0].op, CollectiveOp::all_gather);
  EXPECT_EQ(passes[0].collectives[0].tensor, "A");
  EXPECT_DOUBLE_EQ(passes[0].collectives[0].bytes, kA);
  EXPECT_EQ(passes[1].collectives[0].op, CollectiveOp::reduce_scatter);
}

TEST(GemmSharding, ForwardOnlyWithoutBackward) {
  GemmModelSpec fwd = kGemm;
  fwd.backward = false;
  EXPECT_EQ(shard_gemm(fwd, 2, false, 2.0).size(), 1u);
}

TEST(GemmSharding, IndivisibleShardIsInfeasible) {
  EXPECT_THROW((void)shard_gemm(kGemm, 3, false, 2.0), InfeasibleError);  // 4096 % 3 != 0
  GemmModelSpec odd_m{1000, 4096, 2048, false, ShardAxis::row};
  EXPECT_THROW((void)shard_gemm(odd_m, 16, true, 2.0), InfeasibleError);  // SP splits M: 1000 % 16
}

}  // namespace
}  // namespace rapidllm::parallel
