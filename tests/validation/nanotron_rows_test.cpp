// nanotron_h100.csv rows -> scenarios (validate/nanotron_rows.cpp) and what the nanotron
// stack adds to rapidllm's memory (validate/nanotron_stack.cpp), on rows written as the
// file writes them.
#include "validate/nanotron_rows.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "rapidllm/config.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"
#include "validate/nanotron_stack.hpp"

namespace rapidllm::validate {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const HardwareSpec& h100() {
  static const HardwareSpec hw = load_hardware(RAPIDLLM_SOURCE_DIR "/configs/hardware/H100_SXM5_80GB.yaml");
  return hw;
}

// A row as the file has it; a failed run logs no architecture beyond hidden/layers/heads/vocab.
CsvRow row(const std::string& name, const std::string& status, int nodes, int dp, int tp, int pp, int mbs, int acc,
           int zero, bool logged_architecture, const std::string& after_pp_fix = "",
           const std::string& intra_node_all_reduce_gbps = "") {
  std::map<std::string, std::string> f{
      {"name", name},       {"status", status},  {"nodes", std::to_string(nodes)}, {"dp", std::to_string(dp)},
      {"tp", std::to_string(tp)}, {"pp", std::to_string(pp)}, {"mbs", std::to_string(mbs)},
      {"batch_accum", std::to_string(acc) + ".0"}, {"zero_stage", std::to_string(zero)}, {"seq_len", "4096"},
      {"vocab_size", "131072"}};
  const bool big = name.rfind("469G", 0) == 0;
  f["hidden_size"] = big ? "16384" : "2048";
  f["num_layers"] = big ? "126" : "16";
  f["num_heads"] = big ? "128" : "32";
  if (logged_architecture) {
    f["num_kv_heads"] = big ? "128.0" : "32.0";
    f["interm_dim"] = big ? "53248" : "8192";
    f["tie_word_embeddings"] = big ? "False" : "True";
    f["pp_engine"] = "OneForwardOneBackwardPipelineEngine";
  }
  if (!after_pp_fix.empty()) f["after_pp_fix"] = after_pp_fix;
  if (!intra_node_all_reduce_gbps.empty()) f["AR Intra-node (GB/s)"] = intra_node_all_reduce_gbps;
  return CsvRow(f);
}

std::vector<NanotronRow> sample() {
  return nanotron_rows({
      // Row 1 of nanotron_h100.csv (job 13436292): measured 14.76 GiB allocated.
      row("1.34G_dp8_tp1_pp1_acc32_mbs1_seq4096_zero1_tpmodeRED_vocab131k", "Success", 1, 8, 1, 1, 1, 32, 1, true),
      // The same size failed with 256-sequence micro-batches: architecture from the row above.
      row("1.34G_dp2_tp4_pp1_acc1_mbs128_seq4096_zero0_tpmodeRED_vocab131k", "OOM", 1, 2, 4, 1, 128, 1, 0, false),
      row("469G_dp1_tp8_pp1_acc256_mbs1_seq4096_zero0_tpmodeRED_vocab131k", "Success", 1, 1, 8, 1, 1, 256, 0, true),
      row("469G_dp1_tp8_pp1_acc64_mbs4_seq4096_zero0_tpmodeRED_vocab131k_gqa8", "OOM", 1, 1, 8, 1, 4, 64, 0, false),
  });
}

TEST(NanotronRows, FailedRunsTakeTheirSizesArchitecture) {
  const auto rows = sample();
  ASSERT_EQ(rows.size(), 4u);
  const NanotronRow& oom = rows[1];
  EXPECT_EQ(oom.size, "1.34G");
  EXPECT_EQ(oom.status, NanotronStatus::oom);
  EXPECT_EQ(oom.kv_heads, 32);
  EXPECT_EQ(oom.ffn, 8192);
  EXPECT_TRUE(oom.tied_embeddings);
  EXPECT_EQ(oom.schedule, PipelineSchedule::one_f_one_b);  // nanotron's default engine
  // A "_gqa8" name is a grouped-query variant of its size, whatever the size's Success rows say.
  EXPECT_EQ(rows[3].kv_heads, 8);
  EXPECT_EQ(rows[3].ffn, 53248);
  EXPECT_FALSE(rows[3].tied_embeddings);
  EXPECT_EQ(rows[3].index, 3);
}

TEST(NanotronRows, ScenarioIsTheRowsPlanUnderNanotron) {
  const auto rows = sample();
  const Scenario s = nanotron_scenario(rows[1], h100());
  const auto& m = std::get<LlmModelSpec>(s.model.workload);
  EXPECT_EQ(m.model_type, "llama");
  EXPECT_EQ(m.global_batch_size, 2 * 128 * 1);  // dp x mbs x batch_accum
  EXPECT_EQ(m.seq_len, 4096);
  EXPECT_EQ(m.attention.type, AttentionType::mha);
  EXPECT_TRUE(m.tied_embeddings);
  const ParallelismSpec& p = s.hardware.parallelism;
  EXPECT_EQ(p.tp, 4);
  EXPECT_TRUE(p.tp_sp);  // tp_mode REDUCE_SCATTER
  EXPECT_EQ(p.dp, 2);
  EXPECT_EQ(p.micro_batch_size, 128);
  EXPECT_EQ(s.hardware.sw.recompute, ActivationRecompute::none);
  EXPECT_DOUBLE_EQ(s.hardware.sw.precision.parameters.bytes, 2.0);
  EXPECT_DOUBLE_EQ(s.hardware.sw.precision.gradients.bytes, 4.0);  // accumulate_grad_in_fp32
  EXPECT_DOUBLE_EQ(s.hardware.sw.precision.master_parameters_bytes, 4.0);
  // nanotron's rank order: tp, then dp, then pp.
  EXPECT_EQ(s.hardware.network.dimensions[1].parallelisms.front(), Parallelism::dp);
  EXPECT_EQ(nanotron_scenario(rows[3], h100()).hardware.parallelism.tp, 8);
}

TEST(NanotronRows, SmallPlanFitsWithTheMeasuredStaticMemory) {
  const auto rows = sample();
  const Result r = predict_memory(nanotron_scenario(rows[0], h100()));
  ASSERT_TRUE(r.ok()) << r.message;
  const auto& p = std::get<TrainingPrediction>(r.prediction);
  const double token_hidden = 1.0 * 4096 * 2048;  // mbs 1 x seq 4096, hidden 2048
  const NanotronMemory mem = nanotron_memory(p.memory, 8, 1, token_hidden);
  // 1.342e9 parameters x (2 bf16 + 2 DDP bf16 gradient + 4 fp32 gradient + 2 ZeRO-1 gather
  // buffer + 12 / 8 master and Adam shard) = 15.4e9 B = 14.4 GiB, and rank 0's fp32 token
  // buffer 4096 x 2048 x 4 B = 0.03 GiB; measured 14.76 GiB.
  EXPECT_NEAR(mem.optimizer_step_allocated / kGiB, 14.76, 0.6);
  EXPECT_LT(mem.device_bytes, p.memory.capacity_bytes);
}

TEST(NanotronRows, OnlyTheFirstStageHoldsTheTokenBuffer) {
  MemoryBreakdown b;
  b.bytes = {{"weights", 1e9}, {"gradients", 2e9}, {"optimizer_states", 6e9}};
  b.total_bytes = 9e9;
  const double token_hidden = 64.0 * 4096 * 2048;  // mbs 64: 2 GiB in fp32
  b.stage = 0;
  const double first = nanotron_memory(b, 1, 0, token_hidden).optimizer_step_allocated;
  b.stage = 1;
  const double later = nanotron_memory(b, 1, 0, token_hidden).optimizer_step_allocated;
  EXPECT_DOUBLE_EQ(first - later, token_hidden * 4.0);
  EXPECT_DOUBLE_EQ(later, 1e9 + 1e9 + 2e9 + 6e9);  // weights, bf16 gradients, fp32 gradients, states
}

TEST(NanotronRows, HugePlanOnOneNodeDoesNotFit) {
  const auto rows = sample();
  const Result r = predict_memory(nanotron_scenario(rows[3], h100()));
  ASSERT_TRUE(r.ok()) << r.message;
  const auto& p = std::get<TrainingPrediction>(r.prediction);
  // 469e9 parameters over 8 GPUs at 18 B each without ZeRO: about 980 GiB per GPU.
  EXPECT_GT(nanotron_memory(p.memory, 1, 0, 0.0).device_bytes, 10.0 * p.memory.capacity_bytes);
}

TEST(NanotronRows, NetworkReproducesTheRowsAllReduces) {
  auto rows = sample();
  NanotronRow r = rows[0];
  r.nodes = 16;
  r.dp = 128;
  r.all_reduce_intra_gbps = 426.0;
  r.all_reduce_gbps = 53.0;
  Scenario s = nanotron_scenario(r, h100());
  std::string reason;
  ASSERT_TRUE(nanotron_network(r, s.hardware, reason)) << reason;
  const auto busbw = [&s](int ranks) {
    return run_collective(s.hardware, {CollectiveOp::all_reduce, kGiB, ranks, std::nullopt, NetworkBackend::analytical})
        .busbw_bytes_per_s;
  };
  EXPECT_NEAR(busbw(8) / 426e9, 1.0, 0.01);
  EXPECT_NEAR(busbw(128) / 53e9, 1.0, 0.01);
  r.all_reduce_gbps = 0.0;
  EXPECT_FALSE(nanotron_network(r, s.hardware, reason));
}

// The cluster's ring step between nodes (fitted, scripts/fit_nanotron_network.py) is an
// override ahead of validate's own --set ones: it replaces the H100 file's 5 us InfiniBand
// latency, and a user's value still wins.
TEST(NanotronRows, TheClustersInterNodeStepLatencyIsAnOverrideTheUsersStillBeat) {
  const auto shipped = load_hardware(RAPIDLLM_SOURCE_DIR "/configs/hardware/H100_SXM5_80GB.yaml");
  const auto cluster =
      load_hardware(RAPIDLLM_SOURCE_DIR "/configs/hardware/H100_SXM5_80GB.yaml", nanotron_cluster_overrides({}));
  EXPECT_DOUBLE_EQ(shipped.network.dimensions[1].latency_s, 5e-6);
  EXPECT_NEAR(cluster.network.dimensions[1].latency_s, 55e-6, 1e-12);
  EXPECT_DOUBLE_EQ(cluster.network.dimensions[0].latency_s, shipped.network.dimensions[0].latency_s);
  const auto user = load_hardware(RAPIDLLM_SOURCE_DIR "/configs/hardware/H100_SXM5_80GB.yaml",
                                  nanotron_cluster_overrides({"network.dimensions[1].topology.latency=7 us"}));
  EXPECT_NEAR(user.network.dimensions[1].latency_s, 7e-6, 1e-15);
}

TEST(NanotronRows, RunsBeforeThePipelineFixTakeTheBlockingEngine) {
  const std::string name = "1.34G_dp2_tp4_pp8_acc32_mbs1_seq4096_zero1_tpmodeRED_vocab131k";
  const CsvRow before = row(name, "Success", 8, 2, 4, 8, 1, 32, 1, true, "False");
  const CsvRow after = row(name, "Success", 8, 2, 4, 8, 1, 32, 1, true, "True");
  const auto rows = nanotron_rows({before, after});
  EXPECT_FALSE(rows[0].after_pp_fix);
  EXPECT_TRUE(rows[1].after_pp_fix);
  const SoftwareSpec blocking = nanotron_scenario(rows[0], h100()).hardware.sw;
  const SoftwareSpec fixed = nanotron_scenario(rows[1], h100()).hardware.sw;
  EXPECT_EQ(blocking.stack, "nanotron-pre-pp-fix");
  EXPECT_EQ(fixed.stack, "nanotron");
  EXPECT_GT(blocking.pipeline_transfer_stall_s, 0.1);  // fitted: 0.261 s
  EXPECT_DOUBLE_EQ(fixed.pipeline_transfer_stall_s, 0.0);
  // The same kernels: only the engine differs.
  EXPECT_DOUBLE_EQ(blocking.compute_efficiency, fixed.compute_efficiency);
  EXPECT_DOUBLE_EQ(blocking.kernel_launch_overhead_s, fixed.kernel_launch_overhead_s);
  EXPECT_THROW((void)nanotron_rows({row(name, "Success", 8, 2, 4, 8, 1, 32, 1, true, "maybe")}), Error);
}

// A run that measured its node's NVLink all-reduce at a tenth of the others' (45 against
// 385-462 GB/s) stalled like the blocking engine, whatever its after_pp_fix; a run before the
// fix is blocking whatever it measured.
TEST(NanotronRows, RunsOnADegradedNodeTakeTheBlockingEngine) {
  const std::string name = "1.34G_dp2_tp1_pp4_acc128_mbs1_seq4096_zero1_tpmodeRED_vocab131k";
  auto measured = [&](const char* fixed, const char* intra_gbps) {
    return nanotron_rows({row(name, "Success", 1, 2, 1, 4, 1, 128, 1, true, fixed, intra_gbps)}).front();
  };
  EXPECT_TRUE(ran_blocking_pipeline(measured("True", "45.85")));  // NT1251's node
  EXPECT_FALSE(ran_blocking_pipeline(measured("True", "423.0")));
  EXPECT_FALSE(ran_blocking_pipeline(measured("True", "")));  // nothing measured: its flag decides
  EXPECT_TRUE(ran_blocking_pipeline(measured("False", "423.0")));
  EXPECT_EQ(nanotron_scenario(measured("True", "45.85"), h100()).hardware.sw.stack, "nanotron-pre-pp-fix");
  EXPECT_EQ(nanotron_scenario(measured("True", "423.0"), h100()).hardware.sw.stack, "nanotron");
}

TEST(NanotronRows, BadRowsAreRefusedWithTheirColumn) {
  std::map<std::string, std::string> f{{"name", "1.34G_x"}, {"status", "Maybe"}};
  EXPECT_THROW((void)nanotron_rows({CsvRow(f)}), Error);
  try {
    (void)nanotron_rows({row("3.57G_dp8", "OOM", 1, 8, 1, 1, 1, 32, 1, false)});
    FAIL() << "an OOM row whose size has no Success row was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("3.57G"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rapidllm::validate
