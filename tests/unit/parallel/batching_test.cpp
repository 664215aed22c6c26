// How the global batch is cut into micro-batches, RAPID-LLM's ceil rule included.
#include <gtest/gtest.h>

#include "parallel/batching.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::parallel {
namespace {

Batching cut(long long global_batch, int dp, int mb, int accumulation = 1) {
  LlmModelSpec m;
  m.global_batch_size = global_batch;
  m.gradient_accumulation_steps = accumulation;
  ParallelismSpec p;
  p.dp = dp;
  p.mb = mb;
  return training_batching(m, p);
}

TEST(Batching, MicroBatchesThatDivideTheBatchCarryNoPadding) {
  const Batching b = cut(128, 8, 4);  // 16 sequences per rank: 4 x 4
  EXPECT_EQ(b.micro_batches, 4);
  EXPECT_EQ(b.micro_batch_size, 4);
  EXPECT_EQ(b.padded_sequences, 0);
}

// RAPID-LLM takes ceil(batch / mb) sequences per micro-batch where mb does not divide it:
// its H100 file runs 16 sequences as mb = 23 micro-batches of 1 (7 of padding), and 16 as
// 5 micro-batches of ceil(3.2) = 4 (4 of padding).
TEST(Batching, MicroBatchesThatDoNotDivideTheBatchRoundUpWithPadding) {
  const Batching a = cut(16, 1, 23);
  EXPECT_EQ(a.micro_batches, 23);
  EXPECT_EQ(a.micro_batch_size, 1);
  EXPECT_EQ(a.padded_sequences, 7);
  const Batching b = cut(16, 1, 5);
  EXPECT_EQ(b.micro_batch_size, 4);
  EXPECT_EQ(b.padded_sequences, 4);
}

TEST(Batching, ABatchThatDataParallelRanksCannotShareIsInfeasible) {
  EXPECT_THROW((void)cut(100, 8, 1), InfeasibleError);
  LlmModelSpec m;
  m.global_batch_size = 16;
  ParallelismSpec p;
  p.micro_batch_size = 3;  // an explicit micro-batch size must divide
  EXPECT_THROW((void)training_batching(m, p), InfeasibleError);
}

}  // namespace
}  // namespace rapidllm::parallel
