// What a collective benchmark's timing adds to the collective (validate/benchmark_harness.hpp):
// the tools of the ground-truth rows, the measured torch.distributed call, and its place in
// a row's prediction.
#include "validate/benchmark_harness.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "rapidllm/collective.hpp"
#include "validate/cases.hpp"
#include "validate/csv_table.hpp"

namespace rapidllm::validate {
namespace {

const std::string kRoot = RAPIDLLM_SOURCE_DIR;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

TEST(BenchmarkHarness, EveryCollectiveRowNamesAKnownHarness) {
  int torch = 0;
  int nccl = 0;
  for (const auto& r : read_csv(kRoot + "/validation/data/collectives.csv")) {
    const auto h = harness_of(r.text("tool"));
    ASSERT_TRUE(h.has_value()) << r.text("row_id") << ": " << r.text("tool");
    (*h == CollectiveHarness::torch_distributed ? torch : nccl) += 1;
  }
  // ml-engineering's 40 all_reduce_bench.py rows and its one H200 sweep summary; the rest
  // are nccl-tests (with the 11 of the DGX A100 sweep).
  EXPECT_EQ(torch, 41);
  EXPECT_EQ(nccl, 66);
  EXPECT_FALSE(harness_of("osu_allreduce").has_value());
  EXPECT_EQ(harness_overhead_s(CollectiveHarness::nccl_tests), 0.0);
}

// The constant is the measurement: the timed one-rank all-reduce (which moves nothing) less
// the two events alone, medians over the sizes past the first two (whose runs warm up).
TEST(BenchmarkHarness, TorchCallIsTheMeasuredHostPath) {
  std::vector<double> call_us;
  double events_us = 0.0;
  for (const auto& r : read_csv(kRoot + "/validation/kernels/measured/h200/torch_collective_call.csv")) {
    if (r.text("measure") == "event_pair") events_us = *r.number("median_us");
    if (r.text("measure") == "all_reduce" && *r.number("size_bytes") >= 131072) call_us.push_back(*r.number("median_us"));
  }
  ASSERT_EQ(call_us.size(), 12u);
  ASSERT_GT(events_us, 0.0);
  EXPECT_NEAR(kTorchDistributedCallS * 1e6, median(call_us) - events_us, 0.1);
  EXPECT_EQ(harness_overhead_s(CollectiveHarness::torch_distributed), kTorchDistributedCallS);
}

// The same all-reduce timed by both harnesses: the torch.distributed row's predicted bus
// bandwidth is the nccl-tests row's with the call's host time added to the collective's.
TEST(BenchmarkHarness, TorchRowsPayTheCallOnTopOfTheCollective) {
  // Its own folder: the release and sanitizer suites may run at once on one machine.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rapidllm_harness_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir / "collectives.csv");
    f << "row_id,source,collective,tool,gpu,num_gpus,num_nodes,inter_node,algo,size_bytes,time_us,busbw_GBps\n"
         "X0,test,all_reduce,nccl-tests all_reduce_perf,B200-180GB,8,1,n/a,,1048576,,36\n"
         "X1,test,all_reduce,ml-engineering all_reduce_bench.py (torch.distributed),B200-180GB,8,1,n/a,,1048576,,36\n";
  }
  const auto cases = collective_cases({.data_dir = dir.string(), .config_dir = kRoot + "/configs", .overrides = {}, .source = {}});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(cases.size(), 2u);
  ASSERT_EQ(cases[0].status, CaseStatus::compared) << cases[0].reason;
  ASSERT_EQ(cases[1].status, CaseStatus::compared) << cases[1].reason;
  const double bytes_factor = bus_bandwidth_factor(CollectiveOp::all_reduce, 8) * 1048576.0;
  const double nccl_s = bytes_factor / cases[0].predicted;
  const double torch_s = bytes_factor / cases[1].predicted;
  EXPECT_NEAR(torch_s - nccl_s, kTorchDistributedCallS, 1e-9);
  // A 1 MiB all-reduce over 8 B200s takes ~30 us: the call's host path about doubles it.
  EXPECT_GT(nccl_s, 15e-6);
  EXPECT_LT(nccl_s, 45e-6);
}

}  // namespace
}  // namespace rapidllm::validate
