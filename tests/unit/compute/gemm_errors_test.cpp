// Configurations and shapes the GEMM model must refuse, with messages that say why.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include "compute/gemm_tile_model.hpp"
#include "rapidllm/error.hpp"
#include "test_devices.hpp"

namespace rapidllm::compute {
namespace {

using ::testing::HasSubstr;

template <typename F>
std::string infeasible_message(F&& f) {
  try {
    f();
  } catch (const InfeasibleError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected InfeasibleError";
  return "";
}

TEST(GemmErrors, UndescribedDtypeNamesTheKeyToAdd) {
  const std::string msg =
      infeasible_message([] { GemmTileModel model(test::a100(), DType::fp32); });
  EXPECT_THAT(msg, HasSubstr("does not describe fp32 throughput"));
  EXPECT_THAT(msg, HasSubstr("tech_param.core.dtype_flop_scale.fp32"));
}

TEST(GemmErrors, DescribedFp32Works) {
  HardwareSpec hw = test::a100();
  hw.core.dtype_flop_scale[DType::fp32] = 0.5;  // TF32 runs at half the bf16 rate
  const GemmTileModel model(hw, DType::fp32);
  EXPECT_GT(model.estimate({4096, 4096, 4096, 1}).time_s, 0.0);
}

TEST(GemmErrors, MemoryHierarchyMustHaveFourLevels) {
  HardwareSpec hw = test::a100();
  hw.memory.erase(hw.memory.begin() + 2);  // drop L2
  EXPECT_THAT(infeasible_message([&] { GemmTileModel model(hw, DType::bf16); }),
              HasSubstr("exactly 4 memory levels"));
  HardwareSpec zero_bw = test::a100();
  zero_bw.memory[3].bandwidth_bytes_per_s = 0.0;
  EXPECT_THAT(infeasible_message([&] { GemmTileModel model(zero_bw, DType::bf16); }),
              HasSubstr("memory level 'DRAM'"));
}

TEST(GemmErrors, EmptyOrNegativeShapesAreRefused) {
  const GemmTileModel model(test::a100(), DType::bf16);
  for (const GemmShape& s : {GemmShape{0, 16, 16, 1}, GemmShape{16, -1, 16, 1},
                             GemmShape{16, 16, 0, 1}, GemmShape{16, 16, 16, 0}}) {
    EXPECT_THAT(infeasible_message([&] { (void)model.estimate(s); }),
                HasSubstr("every dimension must be positive"));
  }
}

TEST(GemmErrors, TilingThatDoesNotFitSharedMemory) {
  const GemmTileModel model(test::a100(), DType::bf16);
  GemmTiling t;
  t.block_m = 256;
  t.block_n = 128;
  t.block_k = 128;
  t.warp_m = 64;
  t.warp_n = 64;
  t.stages = 4;
  // 4 * (256 + 128) * 128 * 2 B = 393216 B > 196608 B per SM.
  EXPECT_THAT(infeasible_message([&] { (void)model.evaluate({4096, 4096, 4096, 1}, t); }),
              HasSubstr("393216 bytes of shared memory per CTA, an SM has 196608"));
}

TEST(GemmErrors, TilingThatDoesNotFitRegisters) {
  const GemmTileModel model(test::a100(), DType::bf16);
  GemmTiling t;
  t.block_m = 256;
  t.block_n = 256;
  t.block_k = 32;
  t.warp_m = 64;
  t.warp_n = 64;
  t.stages = 2;
  // Accumulators 256*256*4 = 262144 B fill the SM's register file before the fragments
  // (16 warps * (64+64) * 4 * 2 * 2 = 32768 B): 294912 B > 262144 B.
  EXPECT_THAT(infeasible_message([&] { (void)model.evaluate({4096, 4096, 4096, 1}, t); }),
              HasSubstr("294912 bytes of registers per CTA, an SM has 262144"));
  // A 128x128 warp tile needs 512 accumulator registers per thread.
  t.block_m = 128;
  t.block_n = 128;
  t.warp_m = 128;
  t.warp_n = 128;
  EXPECT_THAT(infeasible_message([&] { (void)model.evaluate({4096, 4096, 4096, 1}, t); }),
              HasSubstr("registers per thread"));
}

TEST(GemmErrors, MalformedTilingIsRefused) {
  const GemmTileModel model(test::a100(), DType::bf16);
  GemmTiling t;
  t.block_m = 128;
  t.block_n = 128;
  t.block_k = 32;
  t.warp_m = 48;  // does not divide 128
  t.warp_n = 64;
  EXPECT_THAT(infeasible_message([&] { (void)model.evaluate({4096, 4096, 4096, 1}, t); }),
              HasSubstr("must divide the CTA tile"));
}

}  // namespace
}  // namespace rapidllm::compute
