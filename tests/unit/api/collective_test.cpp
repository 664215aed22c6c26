// run_collective(): the ranks laid out over the network, timed by the chosen backend.
#include <gtest/gtest.h>

#include "api_fixtures.hpp"
#include "network/analytical_collectives.hpp"
#include "network/backend.hpp"
#include "parallel/placement.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"

namespace rapidllm {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

HardwareSpec h100() { return testing::shipped_scenario("H100_SXM5_80GB", "llama3.1-8b").hardware; }

TEST(RunCollective, AnalyticalEqualsTheAnalyticalModel) {
  const HardwareSpec hw = h100();
  for (const int ranks : {8, 64}) {
    const CollectiveRequest request{.op = CollectiveOp::all_reduce,
                                    .bytes = kGiB,
                                    .ranks = ranks,
                                    .dimension = std::nullopt,
                                    .backend = NetworkBackend::analytical};
    const CollectiveEstimate e = run_collective(hw, request);
    const CollectiveEstimate direct = network::estimate_collective(
        CollectiveOp::all_reduce, kGiB, parallel::lay_out_ranks(hw.network, ranks), hw.execution);
    EXPECT_EQ(e.time_s, direct.time_s) << ranks;
    EXPECT_EQ(e.busbw_bytes_per_s, direct.busbw_bytes_per_s) << ranks;
    EXPECT_EQ(e.phases.size(), direct.phases.size()) << ranks;
  }
}

TEST(RunCollective, ADimensionHoldsAllRanks) {
  const HardwareSpec hw = h100();
  CollectiveRequest request{.op = CollectiveOp::all_gather,
                            .bytes = 64e6,
                            .ranks = 8,
                            .dimension = "infiniband",
                            .backend = NetworkBackend::analytical};
  const CollectiveEstimate e = run_collective(hw, request);
  ASSERT_EQ(e.phases.size(), 1u);
  EXPECT_EQ(e.phases.front().dimension_id, "infiniband");
  request.dimension = "nvlink";
  request.ranks = 16;  // the NVLink domain holds 8
  EXPECT_THROW((void)run_collective(hw, request), InfeasibleError);
}

TEST(RunCollective, TheRequestNamesTheBackend) {
  const HardwareSpec hw = h100();
  const CollectiveRequest request{.op = CollectiveOp::reduce_scatter,
                                  .bytes = 256e6,
                                  .ranks = 16,
                                  .dimension = std::nullopt,
                                  .backend = NetworkBackend::flow};
  const CollectiveEstimate e = run_collective(hw, request);
  const CollectiveEstimate direct =
      network::run_collective(NetworkBackend::flow, CollectiveOp::reduce_scatter, 256e6,
                              parallel::lay_out_ranks(hw.network, 16), hw.network, hw.execution);
  EXPECT_GT(e.time_s, 0.0);
  EXPECT_EQ(e.time_s, direct.time_s);
}

// ASTRA-sim's endpoint_delay (cycles of 1 ns) is paid by every algorithm step of a
// simulated collective: a ring all-gather over 8 ranks takes 7 steps.
TEST(RunCollective, EndpointDelayIsPaidOncePerStep) {
  HardwareSpec hw = h100();
  const CollectiveRequest request{.op = CollectiveOp::all_gather,
                                  .bytes = 64.0 * 1024 * 1024,
                                  .ranks = 8,
                                  .dimension = "nvlink",
                                  .backend = NetworkBackend::flow};
  const double without = run_collective(hw, request).time_s;
  hw.execution.endpoint_delay_s = 1e-6;
  EXPECT_NEAR(run_collective(hw, request).time_s - without, 7 * 1e-6, 1e-12);
  const HardwareSpec loaded = testing::shipped_scenario("H100_SXM5_80GB", "llama3.1-8b",
                                                        {"execution_backend.astra.sys_options.endpoint_delay=1000"})
                                  .hardware;
  EXPECT_DOUBLE_EQ(loaded.execution.endpoint_delay_s, 1e-6);
}

}  // namespace
}  // namespace rapidllm
