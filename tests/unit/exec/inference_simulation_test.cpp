// Inference on the step graph: the prefill and a decode step played by the same simulator
// as a training step, on the cluster network. Where nothing is congested it must agree
// with the closed form; a degraded link must reach time to first token and time per output
// token; the timeline and the Chakra graph must hold both phases.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "exec/inference_predictor.hpp"
#include "exec/inference_step.hpp"
#include "llm_fixtures.hpp"

namespace rapidllm::exec {
namespace {

using testing::shipped_hardware;
using testing::shipped_model;

struct Plan {
  std::string name;
  std::string model;
  int tp = 1, pp = 1, cp = 1, replicas = 1;
  std::int64_t batch = 8, prompt = 1024, generated = 64;
  double transfer_stall_s = 0.0;
};

HardwareSpec plan_hardware(const Plan& p) {
  HardwareSpec hw = shipped_hardware("H100_SXM5_80GB");
  hw.parallelism.tp = p.tp;
  hw.parallelism.pp = p.pp;
  hw.parallelism.cp = p.cp;
  hw.parallelism.replica_count = p.replicas;
  hw.sw.pipeline_transfer_stall_s = p.transfer_stall_s;
  return hw;
}

LlmModelSpec plan_model(const Plan& p) {
  LlmModelSpec m = shipped_model(p.model);
  m.run_type = RunType::inference;
  m.global_batch_size = p.batch;
  m.seq_len = p.prompt + p.generated;
  m.decode_len = p.generated;
  return m;
}

StepRunOptions simulated(NetworkKind network, bool symmetric = true) {
  StepRunOptions o;
  o.network = network;
  o.simulate_step = true;
  o.symmetric = symmetric;
  return o;
}

StepRunOptions closed_form(NetworkKind network) {
  StepRunOptions o;
  o.network = network;
  return o;
}

double sum(const Breakdown& b) {
  double s = 0.0;
  for (const auto& [name, seconds] : b) s += seconds;
  return s;
}

const Plan kPlans[] = {
    {"8b_tp8", "llama3.1-8b", 8},
    {"7b_tp2_pp4", "llama2-7b", 2, 4},
    {"70b_tp8_pp2_replicas", "llama3.1-70b", 8, 2, 1, 2, 16, 2000, 128},
    {"8b_tp4_cp2", "llama3.1-8b", 4, 1, 2, 1, 4, 8192, 32},
    {"mistral_sliding_window_tp2_pp2", "mistral-7b", 2, 2, 1, 1, 8, 6000, 64},
    // A blocking pipeline engine: the sender holds its host once per hop.
    {"8b_pp4_blocking_transfers", "llama3.1-8b", 1, 4, 1, 1, 8, 1000, 100, 0.01},
};

class IdleNetwork : public ::testing::TestWithParam<Plan> {};

// Nothing congests an idle network and every collective of the simulated forward is the
// one the closed form times, so the two agree; the acceptance bound is 1 % (measured:
// equal to 1e-9 on the analytical network and the flow network alike).
TEST_P(IdleNetwork, SimulatedInferenceMatchesTheClosedForm) {
  const Plan& p = GetParam();
  const HardwareSpec hw = plan_hardware(p);
  const LlmModelSpec m = plan_model(p);
  for (const NetworkKind network : {NetworkKind::analytical, NetworkKind::cluster_isolated}) {
    const InferencePrediction formula = predict_inference(hw, m, "test", nullptr, closed_form(network));
    const InferencePrediction sim = predict_inference(hw, m, "test", nullptr, simulated(network));
    EXPECT_EQ(sim.execution.pipeline, "simulated");
    EXPECT_EQ(sim.execution.simulated_units, p.pp);  // symmetry: one unit per stage
    EXPECT_NEAR(sim.prefill_time_s / formula.prefill_time_s, 1.0, 1e-6) << p.name;
    EXPECT_NEAR(sim.tpot.mean_s / formula.tpot.mean_s, 1.0, 1e-6) << p.name;
    EXPECT_NEAR(sim.tpot.max_s / formula.tpot.max_s, 1.0, 1e-6) << p.name;
    // The simulated breakdowns account for the whole prefill and decode.
    EXPECT_NEAR(sum(sim.prefill_breakdown), sim.prefill_time_s, 1e-9 * sim.prefill_time_s) << p.name;
    EXPECT_NEAR(sum(sim.decode_breakdown), sim.decode_time_s, 1e-9 * sim.decode_time_s) << p.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Plans, IdleNetwork, ::testing::ValuesIn(kPlans),
                         [](const auto& test) { return test.param.name; });

InferencePrediction with_faults(const Plan& p, std::vector<FaultyLink> faults, ExecutionMode mode) {
  HardwareSpec hw = plan_hardware(p);
  hw.network.faulty_links = std::move(faults);
  hw.execution.mode = mode;
  return predict_inference(hw, plan_model(p), "test", nullptr, step_run_options(hw, RunType::inference));
}

// full_astrasim_hierarchical, TP 8 on one DGX H100 (GPUs 0-7, NVSwitch node 8): GPU 0's
// NVLink port at a quarter of its bandwidth slows every TP all-reduce of the prefill and of
// each decode step, so both TTFT and TPOT grow; flattened (every GPU's traffic sharing the
// links) sees the same fault.
TEST(InferenceSimulation, ADegradedNvlinkSlowsTtftAndTpot) {
  const Plan p{"", "llama3.1-70b", 8, 1, 1, 1, 16, 2000, 64};
  for (const ExecutionMode mode : {ExecutionMode::full_astrasim_hierarchical, ExecutionMode::full_astrasim_flattened}) {
    const InferencePrediction healthy = with_faults(p, {}, mode);
    const InferencePrediction degraded = with_faults(p, {{0, 8, 0.25}}, mode);
    EXPECT_GT(degraded.tpot.mean_s, healthy.tpot.mean_s * 1.01) << to_string(mode);
    EXPECT_GT(degraded.prefill_time_s, healthy.prefill_time_s * 1.01) << to_string(mode);
    EXPECT_EQ(degraded.execution.pipeline, "simulated");
    // The slower collectives show up as exposed TP communication, not as compute.
    const auto tp_s = [](const Breakdown& b) {
      for (const auto& [name, s] : b) {
        if (name == "communication.tp") return s;
      }
      return 0.0;
    };
    EXPECT_GT(tp_s(degraded.decode_breakdown), tp_s(healthy.decode_breakdown));
  }
}

// A fault on a GPU the job does not use (GPU 6 of a TP-4 job) changes nothing.
TEST(InferenceSimulation, AFaultOutsideTheJobChangesNothing) {
  const Plan p{"", "llama3.1-8b", 4};
  const InferencePrediction healthy = with_faults(p, {}, ExecutionMode::full_astrasim_hierarchical);
  const InferencePrediction elsewhere = with_faults(p, {{6, 8, 0.1}}, ExecutionMode::full_astrasim_hierarchical);
  EXPECT_NEAR(elsewhere.tpot.mean_s, healthy.tpot.mean_s, 1e-12 * healthy.tpot.mean_s);
  EXPECT_NEAR(elsewhere.prefill_time_s, healthy.prefill_time_s, 1e-12 * healthy.prefill_time_s);
}

// The timeline holds the prefill's spans, then the decode step's after the prefill ends,
// on the compute streams and the TP and pipeline channels.
TEST(InferenceSimulation, TheTimelineHoldsPrefillThenDecodeOnComputeAndNetworkTracks) {
  const Plan p{"", "llama2-7b", 2, 2};
  Timeline timeline;
  StepRunOptions o = simulated(NetworkKind::cluster_isolated);
  o.timeline = &timeline;
  const InferencePrediction pred = predict_inference(plan_hardware(p), plan_model(p), "test", nullptr, o);
  std::set<std::string> tracks[2];  // prefill, decode
  double prefill_end = 0.0, decode_start = 1e300;
  for (const TimelineSpan& s : timeline.spans) {
    const std::string& name = timeline.names[s.name];
    const bool decode = name.find(".decode.") != std::string::npos || name.rfind("decode.", 0) == 0;
    const bool prefill = name.find(".prefill.") != std::string::npos || name.rfind("prefill.", 0) == 0;
    ASSERT_TRUE(decode != prefill) << name;
    tracks[decode ? 1 : 0].insert(timeline.tracks[s.track]);
    if (prefill) prefill_end = std::max(prefill_end, s.end_s);
    if (decode) decode_start = std::min(decode_start, s.start_s);
  }
  for (const auto& t : tracks) {
    EXPECT_TRUE(t.count("compute")) << "no compute spans";
    EXPECT_TRUE(t.count("tp")) << "no TP collective spans";
    EXPECT_TRUE(t.count("pp_send_next")) << "no pipeline sends";
  }
  EXPECT_NEAR(prefill_end, pred.prefill_time_s, 1e-12 * pred.prefill_time_s);
  EXPECT_GE(decode_start, prefill_end * (1.0 - 1e-12));
}

// The Chakra graph: each stage's prefill, then its decode step; the last stage sends the
// sampled token ids (4 bytes a sequence) to the first, whose decode waits for them.
TEST(InferenceSimulation, TheExportedGraphJoinsPrefillAndDecodeThroughTheSampledToken) {
  const Plan p{"", "llama2-7b", 2, 2};
  StepGraph graph;
  StepRunOptions o = closed_form(NetworkKind::analytical);
  o.graph = &graph;
  (void)predict_inference(plan_hardware(p), plan_model(p), "test", nullptr, o);
  ASSERT_EQ(graph.stages.size(), 2u);
  const auto find = [&](int stage, const std::string& name) {
    const auto& nodes = graph.stages[static_cast<std::size_t>(stage)].nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (graph.names[nodes[i].name] == name) return static_cast<int>(i);
    }
    return -1;
  };
  const int send = find(1, "prefill.send_token");
  const int recv = find(0, "decode.recv_token");
  ASSERT_GE(send, 0);
  ASSERT_GE(recv, 0);
  const StepNode& s = graph.stages[1].nodes[static_cast<std::size_t>(send)];
  const StepNode& r = graph.stages[0].nodes[static_cast<std::size_t>(recv)];
  EXPECT_EQ(s.tag, r.tag);
  EXPECT_EQ(s.peer_stage, 0);
  EXPECT_DOUBLE_EQ(s.bytes, 4.0 * 8);
  // The first decode kernel of stage 0 (its embedding) waits for the token.
  const int embed = find(0, "decode.embedding.embedding");
  ASSERT_GT(embed, recv) << "the decode embedding's name";
  const StepNode& e = graph.stages[0].nodes[static_cast<std::size_t>(embed)];
  bool waits = false;
  for (std::uint32_t k = e.deps_begin; k < e.deps_end; ++k) waits = waits || graph.stages[0].deps[k] == static_cast<std::uint32_t>(recv);
  EXPECT_TRUE(waits);
  EXPECT_EQ(graph.num_ranks, 4);
}

}  // namespace
}  // namespace rapidllm::exec
