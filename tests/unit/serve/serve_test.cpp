// rapidllm::serve against hand-checkable limits: a request alone is a static prediction,
// a long run obeys Little's law, the KV cache bounds the resident requests, and the
// closed-form steady state agrees with the simulation.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"
#include "rapidllm/serve.hpp"

namespace rapidllm {
namespace {

std::string source_path(const std::string& rel) { return std::string(RAPIDLLM_SOURCE_DIR) + "/" + rel; }

// Llama-3.1-8B served on one H100 (tp 1), `replicas` replicas.
Scenario llama8b(int replicas = 1, std::vector<std::string> extra = {}) {
  std::vector<std::string> sets = {"model_param.run_type=inference", "model_param.global_batch_size=1",
                                   "model_param.seq_len=2048", "model_param.decode_len=128",
                                   "parallelism.inference.replica_count=" + std::to_string(replicas)};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return load_scenario(source_path("configs/hardware/H100_SXM5_80GB.yaml"),
                       source_path("configs/models/llama3.1-8b.yaml"), sets);
}

ServeOptions options(ArrivalKind arrivals, std::int64_t requests, std::int64_t input, std::int64_t output) {
  ServeOptions o;
  o.engine = *serve_engine_profile("vllm");
  o.workload.arrivals = arrivals;
  o.workload.requests = requests;
  o.workload.input = {input, input};
  o.workload.output = {output, output};
  return o;
}

// Arrivals far apart: every request runs alone, so its time to first token is the static
// batch-1 prefill and its time per output token the batch-1 decode step averaged over its
// growing context, exactly as predict() gives them.
TEST(Serve, ARequestAloneTakesTheStaticBatchOnePrefillAndDecode) {
  const std::int64_t input = 1000;
  const std::int64_t output = 65;
  ServeOptions o = options(ArrivalKind::poisson, 20, input, output);
  o.workload.rate_per_s = 0.01;  // one every 100 s; a request takes well under 1 s
  const ServeResult r = serve(llama8b(), o);
  ASSERT_EQ(r.requests, 20);
  EXPECT_EQ(r.preemptions, 0);

  // predict(): a prompt of `input` tokens, then output - 1 decode steps from that context.
  const Scenario alone = llama8b(1, {"model_param.seq_len=" + std::to_string(input + output - 1),
                                     "model_param.decode_len=" + std::to_string(output - 1)});
  const auto p = std::get<InferencePrediction>(predict(alone).prediction);
  EXPECT_NEAR(r.ttft.p50_s, p.prefill_time_s, 1e-9 * p.prefill_time_s);
  EXPECT_NEAR(r.ttft.max_s, p.prefill_time_s, 1e-9 * p.prefill_time_s);
  EXPECT_NEAR(r.tpot.mean_s, p.tpot.mean_s, 1e-6 * p.tpot.mean_s);
  EXPECT_NEAR(r.e2e.mean_s, p.prefill_time_s + p.decode_time_s, 1e-6 * p.total_time_s);
  // One request at a time: one sequence in every iteration.
  EXPECT_DOUBLE_EQ(r.mean_batch_tokens, static_cast<double>(input + output - 1) / static_cast<double>(output));
}

// Little's law on a long loaded run: the time-average number of requests in the system
// equals the arrival rate times the mean time in the system.
// Served on the simulated cluster network (full_astrasim_hierarchical, TP 8 on one DGX
// H100: GPUs 0-7, NVSwitch node 8): on a healthy network each iteration is its closed form
// (the simulated forward adds nothing where nothing is congested); GPU 0's NVLink port at a
// quarter of its bandwidth slows every TP all-reduce, so every iteration, and the
// inter-token latency with it, grows.
TEST(Serve, OnTheSimulatedNetworkADegradedLinkLengthensTheInterTokenLatency) {
  const std::vector<std::string> tp8 = {"parallelism.tp=8"};
  std::vector<std::string> simulated = tp8;
  simulated.insert(simulated.end(), {"execution_backend.model=astra",
                                     "execution_backend.astra.mode=full_astrasim_hierarchical"});
  std::vector<std::string> degraded = simulated;
  degraded.push_back("network.faulty_links=[[0, 8, 0.25]]");
  ServeOptions o = options(ArrivalKind::poisson, 60, 800, 64);
  o.workload.rate_per_s = 20.0;
  const ServeResult closed = serve(llama8b(1, tp8), o);
  const ServeResult healthy = serve(llama8b(1, simulated), o);
  const ServeResult slow = serve(llama8b(1, degraded), o);
  EXPECT_NEAR(healthy.itl.mean_s, closed.itl.mean_s, 0.01 * closed.itl.mean_s);
  EXPECT_GT(slow.itl.mean_s, healthy.itl.mean_s * 1.01);
  EXPECT_GT(slow.ttft.mean_s, healthy.ttft.mean_s);
}

TEST(Serve, ALongRunObeysLittlesLaw) {
  ServeOptions o = options(ArrivalKind::poisson, 4000, 512, 128);
  o.workload.input = {256, 768};
  o.workload.output = {64, 192};
  o.workload.rate_per_s = 40.0;
  o.workload.seed = 7;
  const ServeResult r = serve(llama8b(2), o);
  ASSERT_EQ(r.requests, 4000);
  const double span = r.duration_s;
  const double arrival_rate = static_cast<double>(r.requests) / span;
  const double littles = arrival_rate * r.e2e.mean_s;
  EXPECT_GT(r.mean_requests_in_system, 5.0);  // loaded: many in flight, not one at a time
  EXPECT_NEAR(r.mean_requests_in_system / littles, 1.0, 0.02);
}

// A KV cache with room for exactly k requests keeps at most k resident, whatever the load.
TEST(Serve, AKvCacheForKRequestsHoldsNoMoreThanK) {
  const int k = 3;
  ServeOptions o = options(ArrivalKind::offline, 40, 2000, 48);
  o.engine = *serve_engine_profile("tensorrt-llm");  // reserves whole sequences
  // Size the cache to k whole requests: the reservation is 2048 tokens = 64 blocks of 32.
  const ServeResult probe = serve(llama8b(), o);
  const double per_token = probe.kv_bytes_per_token;
  ASSERT_GT(per_token, 0.0);
  // The memory fraction that leaves exactly k x 64 blocks (and a half block spare).
  const double blocks = static_cast<double>(probe.kv_blocks_per_replica);
  o.engine.kv_memory_fraction *= (k * 64 + 0.5) / blocks;
  o.record_iterations = true;
  const ServeResult r = serve(llama8b(), o);
  ASSERT_EQ(r.kv_blocks_per_replica, k * 64);
  ASSERT_EQ(r.requests, 40);
  int most = 0;
  for (const ServeIteration& it : r.iteration_log) {
    EXPECT_LE(it.kv_blocks_used, k * 64);
    most = std::max(most, it.kv_blocks_used / 64);
  }
  EXPECT_EQ(most, k);
  EXPECT_EQ(r.preemptions, 0);
}

// vLLM-style engines allocate as they go and preempt the newest request when a decode
// needs a block: a small cache under a heavy load preempts, and every request still ends.
TEST(Serve, AFullCachePreemptsByRecomputeAndEveryRequestFinishes) {
  ServeOptions o = options(ArrivalKind::offline, 64, 1500, 600);
  o.engine.kv_memory_fraction = 0.25;  // of the whole GPU: ~4 GiB for the cache after the 16 GB of weights
  const ServeResult r = serve(llama8b(), o);
  EXPECT_EQ(r.requests, 64);
  EXPECT_GT(r.preemptions, 0);
  EXPECT_EQ(r.output_tokens, 64 * 600);
  // The time series holds every preemption, and the cache full at some point.
  std::int64_t counted = 0;
  for (const ServeSample& x : r.samples) counted += x.preemptions;
  EXPECT_EQ(counted, r.preemptions);
  EXPECT_GT(r.kv_used_fraction_max, 0.95);
  EXPECT_LE(r.kv_used_fraction_max, 1.0);
}

// The closed-form steady state of an offline run against the simulation of many more
// requests than the engine holds at once: TensorRT-LLM bound by its KV cache (whole
// sequences reserved), vLLM bound by max_num_seqs, and one bound by the token budget.
TEST(Serve, TheSteadyStateAgreesWithTheSimulation) {
  struct Case {
    const char* engine;
    int max_num_seqs;
    std::int64_t budget;
    const char* limit;
  };
  for (const Case& c : {Case{"tensorrt-llm", 2048, 8192, "kv_cache"}, Case{"vllm", 256, 8192, "max_num_seqs"},
                        Case{"vllm", 256, 600, "token_budget"}}) {
    SCOPED_TRACE(c.limit);
    ServeOptions o = options(ArrivalKind::offline, 6000, 512, 256);
    o.engine = *serve_engine_profile(c.engine);
    o.engine.max_num_seqs = c.max_num_seqs;
    o.engine.max_num_batched_tokens = c.budget;
    o.keep_requests = false;
    const SteadyState s = serve_steady_state(llama8b(), o);
    EXPECT_EQ(s.limited_by, c.limit);
    const ServeResult r = serve(llama8b(), o);
    EXPECT_NEAR(s.output_tokens_per_s / r.output_tokens_per_s, 1.0, 0.05);
  }
  // vLLM's own defaults under a KV-bound load: preemption churn, refused in closed form.
  ServeOptions o = options(ArrivalKind::offline, 6000, 512, 256);
  EXPECT_THROW((void)serve_steady_state(llama8b(), o), ConfigError);
}

TEST(Serve, ReplicasMultiplyThroughputUnderOfflineLoad) {
  ServeOptions o = options(ArrivalKind::offline, 400, 256, 64);
  const ServeResult one = serve(llama8b(1), o);
  const ServeResult four = serve(llama8b(4), o);
  EXPECT_EQ(four.num_gpus, 4);
  EXPECT_GT(four.output_tokens_per_s, 3.0 * one.output_tokens_per_s);
}

// A replica of two pipeline stages keeps two batches in flight: under an offline load it
// serves about twice what one stage's GPU does alone (the same iteration time, twice the
// batches, and twice the memory for its cache).
TEST(Serve, APipelinedReplicaKeepsABatchInEveryStage) {
  ServeOptions o = options(ArrivalKind::offline, 2000, 512, 128);
  o.keep_requests = false;
  const ServeResult one = serve(llama8b(), o);
  const ServeResult two = serve(llama8b(1, {"parallelism.pp=2"}), o);
  EXPECT_EQ(two.num_gpus, 2);
  EXPECT_EQ(two.replicas, 1);
  EXPECT_GT(two.output_tokens_per_s, 1.7 * one.output_tokens_per_s);
  EXPECT_LT(two.output_tokens_per_s, 2.3 * one.output_tokens_per_s);
}

// Prefill-first (vLLM V0 without chunking) runs a waiting prompt before any decode: its
// first tokens come sooner and the running requests' tokens later than decode-first with
// chunked prefill, on the same load.
TEST(Serve, PrefillFirstTradesTimePerTokenForTimeToFirstToken) {
  ServeOptions o = options(ArrivalKind::poisson, 2000, 1500, 200);
  o.workload.rate_per_s = 12.0;
  o.engine.max_num_batched_tokens = 2048;
  const ServeResult decode_first = serve(llama8b(), o);
  o.engine.policy = ServePolicy::prefill_first;
  o.engine.chunked_prefill = false;
  const ServeResult prefill_first = serve(llama8b(), o);
  EXPECT_LT(prefill_first.ttft.mean_s, decode_first.ttft.mean_s);
  EXPECT_GT(prefill_first.tpot.mean_s, decode_first.tpot.mean_s);
  EXPECT_GT(prefill_first.itl.p99_s, decode_first.itl.p99_s);  // a decode stalls behind whole prompts
}

// Disaggregated, a lone request: its first token comes from the prefill pool as an
// aggregated replica of that parallelism gives it, then its cache moves to the decode pool
// and the rest is decoded there as a lone decode of that parallelism.
TEST(Serve, DisaggregatedALoneRequestIsPrefillThenTransferThenDecode) {
  const std::int64_t input = 1000;
  const std::int64_t output = 33;
  ServeOptions o = options(ArrivalKind::poisson, 5, input, output);
  o.workload.rate_per_s = 0.01;
  o.disaggregated = Disaggregation{ServePool{1, 2, 1}, ServePool{1, 1, 1}};
  const ServeResult d = serve(llama8b(), o);
  ASSERT_EQ(d.requests, 5);
  EXPECT_EQ(d.prefill_replicas, 1);
  EXPECT_EQ(d.decode_replicas, 1);
  EXPECT_EQ(d.num_gpus, 3);
  EXPECT_GT(d.kv_transfer_mean_s, 0.0);

  const Scenario prefill = llama8b(1, {"parallelism.tp=2", "model_param.seq_len=" + std::to_string(input + 128)});
  const auto p = std::get<InferencePrediction>(predict(prefill).prediction);
  EXPECT_NEAR(d.ttft.mean_s, p.prefill_time_s, 1e-9 * p.prefill_time_s);
  const Scenario decode = llama8b(1, {"model_param.seq_len=" + std::to_string(input + output - 1),
                                      "model_param.decode_len=" + std::to_string(output - 1)});
  const auto q = std::get<InferencePrediction>(predict(decode).prediction);
  // After the first token: the transfer, then output - 1 decode steps from the prompt's context.
  EXPECT_NEAR(d.e2e.mean_s - d.ttft.mean_s, d.kv_transfer_mean_s + q.decode_time_s, 1e-6 * q.decode_time_s);
}

// In a simulated execution mode the caches move over the serving cluster's network: prefill
// GPUs on one DGX H100, decode GPUs on the next, so every cache crosses InfiniBand. Alone, a
// transfer takes what the analytical message takes (the same NIC, nothing else on it); two
// prefill replicas handing off at once into one decode replica share its NICs, so the mean
// transfer grows.
TEST(Serve, DisaggregatedCachesShareTheLinksOfTheSimulatedNetwork) {
  const std::vector<std::string> flattened = {"execution_backend.model=astra",
                                              "execution_backend.astra.mode=full_astrasim_flattened"};
  ServeOptions alone = options(ArrivalKind::poisson, 4, 1000, 16);
  alone.workload.rate_per_s = 0.01;
  alone.disaggregated = Disaggregation{ServePool{1, 8, 1}, ServePool{1, 8, 1}};
  const double analytical = serve(llama8b(), alone).kv_transfer_mean_s;
  const double simulated = serve(llama8b(1, flattened), alone).kv_transfer_mean_s;
  EXPECT_NEAR(simulated / analytical, 1.0, 0.05) << "analytical " << analytical << " s, simulated " << simulated << " s";

  ServeOptions burst = options(ArrivalKind::offline, 16, 1000, 16);
  burst.disaggregated = Disaggregation{ServePool{2, 4, 1}, ServePool{1, 8, 1}};
  const ServeResult shared = serve(llama8b(1, flattened), burst);
  EXPECT_EQ(shared.requests, 16);
  ServeOptions lone = burst;
  lone.workload = alone.workload;
  const double lone_s = serve(llama8b(1, flattened), lone).kv_transfer_mean_s;
  EXPECT_GT(shared.kv_transfer_mean_s, 1.3 * lone_s) << "burst " << shared.kv_transfer_mean_s << " s, alone " << lone_s;
}

// The layout search tries every split of the GPUs and ranks them by goodput per GPU.
TEST(Serve, TheLayoutSearchRanksAggregatedAndDisaggregatedSplits) {
  ServeOptions o = options(ArrivalKind::poisson, 300, 1024, 128);
  o.workload.rate_per_s = 30.0;
  o.slo_ttft_s = 0.5;
  o.slo_tpot_s = 0.05;
  const std::vector<ServeLayout> layouts = serve_layouts(llama8b(), o, 4);
  // Aggregated: 4 x tp1, 2 x tp2, 1 x tp4; disaggregated: every x tp_p + y tp_d = 4.
  int aggregated = 0;
  int disaggregated = 0;
  for (const ServeLayout& l : layouts) {
    (l.disaggregated ? disaggregated : aggregated) += 1;
    if (l.infeasible.empty()) {
      EXPECT_EQ(l.result.num_gpus, 4);
    }
  }
  EXPECT_EQ(aggregated, 3);
  // x prefill replicas of tp_p and y decode of tp_d: tp1+3xtp1, 2xtp1+2xtp1, 2xtp1+1xtp2,
  // 3xtp1+tp1, tp2+2xtp1, tp2+tp2.
  EXPECT_EQ(disaggregated, 6);
  for (std::size_t i = 1; i < layouts.size(); ++i) {
    if (layouts[i].infeasible.empty()) {
      EXPECT_GE(layouts[i - 1].goodput_per_gpu, layouts[i].goodput_per_gpu);
    }
  }
}

}  // namespace
}  // namespace rapidllm
