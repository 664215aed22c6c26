// torchtitan's published local batch under pipeline parallelism: split into pp micro-batches.
#include "validate/pipeline_micro_batch.hpp"

#include <gtest/gtest.h>

#include <string>

namespace rapidllm::validate {
namespace {

TEST(PipelineMicroBatch, TorchtitanSplitsTheLocalBatchIntoPpMicroBatches) {
  std::string reason;
  // Its 405B table: local batch 32 at pp 8 (8 micro-batches of 4), local batch 8 (of 1).
  EXPECT_EQ(torchtitan_micro_batch(32, 8, reason), 4);
  EXPECT_EQ(torchtitan_micro_batch(8, 8, reason), 1);
  // Without a pipeline the local batch is the micro-batch.
  EXPECT_EQ(torchtitan_micro_batch(2, 1, reason), 2);
  EXPECT_TRUE(reason.empty());
}

TEST(PipelineMicroBatch, ALocalBatchPpDoesNotDivideIsSkippedWithWhy) {
  std::string reason;
  EXPECT_FALSE(torchtitan_micro_batch(12, 8, reason).has_value());
  EXPECT_NE(reason.find("local batch of 12"), std::string::npos) << reason;
}

}  // namespace
}  // namespace rapidllm::validate
