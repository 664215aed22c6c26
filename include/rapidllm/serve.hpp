// Request-level serving simulation: requests arrive (Poisson, a closed loop of clients, a
// trace, or all at once), replicas batch them continuously under an engine's scheduler and
// a paged KV cache, and every engine iteration is timed by the inference step model for
// that iteration's mix of prefill chunks and decode tokens. Reports latency percentiles
// (TTFT, TPOT, inter-token latency, end to end), throughput, KV-cache use, preemptions and
// goodput under SLOs. A closed-form steady state predicts an engine's offline maximum
// throughput without simulating every request.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapidllm/scenario.hpp"

namespace rapidllm {

// What an iteration runs first.
enum class ServePolicy {
  // Every running decode first, then prefill chunks in the token budget left (vLLM V1,
  // TensorRT-LLM in-flight batching with chunked context).
  decode_first,
  // A prefill-only iteration whenever a waiting request can be admitted, else a decode
  // iteration of everything running (vLLM V0 without chunked prefill).
  prefill_first,
};

// What the KV cache may take: a fraction of the GPU's whole memory less everything else
// (vLLM's gpu_memory_utilization) or of the memory left after everything else
// (TensorRT-LLM's kv_cache_free_gpu_memory_fraction). Everything else: the weights, the
// largest iteration's activations and logits, communication buffers, the framework offset.
enum class KvBudget { fraction_of_total, fraction_of_free };

// How a serving engine batches and holds the KV cache: a named software-stack profile
// (serve_engine_profile), each field overridable. An engine that does not reserve whole
// sequences preempts by recompute when a running request needs a block and none is free
// (vLLM's default: the newest request's KV is dropped and its prompt and output so far
// prefilled again later).
struct ServeEngine {
  std::string name;
  int max_num_seqs = 256;                      // sequences resident at once
  std::int64_t max_num_batched_tokens = 8192;  // tokens one iteration processes
  bool chunked_prefill = true;  // a prompt longer than the budget left is split over iterations
  ServePolicy policy = ServePolicy::decode_first;
  int block_size = 16;  // tokens per KV-cache block
  KvBudget kv_budget = KvBudget::fraction_of_total;
  double kv_memory_fraction = 0.9;
  // Admit a request only with blocks for its whole input and output (TensorRT-LLM's
  // GUARANTEED_NO_EVICT): no preemption, fewer resident requests.
  bool reserve_full_sequence = false;
  double iteration_overhead_s = 0.0;  // host time per iteration (scheduling, sampling)
};

// Built-in profiles: "vllm" (V1 defaults), "tensorrt-llm" (v1.0 defaults). nullopt for an
// unknown name.
[[nodiscard]] std::optional<ServeEngine> serve_engine_profile(std::string_view name);
[[nodiscard]] std::vector<std::string> serve_engine_profile_names();

// Token counts drawn uniformly from [lo, hi] (lo == hi: fixed).
struct TokenRange {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};

enum class ArrivalKind {
  poisson,      // open loop at `rate_per_s`
  concurrency,  // closed loop: `concurrency` clients, each sending its next request when the last finishes
  trace,        // arrival_s,input_tokens,output_tokens rows of `trace_file`
  offline,      // every request queued at t = 0 (max-throughput benchmarks)
};

// The most requests one simulation takes (about 20 minutes of one core at 100k requests per
// second): a bigger run is refused up front, or stopped where it passes the bound.
inline constexpr std::int64_t kMaxServeRequests = 100'000'000;

struct ServeWorkload {
  ArrivalKind arrivals = ArrivalKind::poisson;
  double rate_per_s = 1.0;
  int concurrency = 1;
  std::string trace_file;
  TokenRange input{1024, 1024};
  TokenRange output{128, 128};
  // The run ends after `requests` requests have arrived (0: no limit) or, for open and
  // closed loops, when arrivals reach `duration_s` (0: no limit); one of them is needed
  // except for a trace. Requests in flight then finish.
  std::int64_t requests = 0;
  double duration_s = 0.0;
  std::uint64_t seed = 1;
};

enum class ServeRouter { round_robin, least_loaded };

// Replicas of one kind and each one's parallelism.
struct ServePool {
  int replicas = 1;
  int tp = 1;
  int pp = 1;

  [[nodiscard]] int gpus() const { return replicas * tp * pp; }
};

// Disaggregated prefill and decode (xPyD): prompts are prefilled on the prefill pool,
// which emits the first token; the request's KV cache then moves to a decode replica
// over the outermost network dimension (each prefill GPU sending its shard at once), and
// the decode pool generates the rest. Both pools run the same engine profile.
struct Disaggregation {
  ServePool prefill;
  ServePool decode;
};

struct ServeOptions {
  ServeEngine engine;
  ServeWorkload workload;
  // Replicas: hardware.parallelism.inference.replica_count, each tp x pp GPUs; or, with
  // `disaggregated`, its two pools (the hardware's replica count must then be 1).
  std::optional<Disaggregation> disaggregated;
  ServeRouter router = ServeRouter::round_robin;
  std::optional<double> slo_ttft_s;  // goodput counts requests within both
  std::optional<double> slo_tpot_s;
  bool record_iterations = false;  // keep every iteration (the timeline trace)
  bool keep_requests = true;       // keep every request's record
};

struct LatencyStats {
  double mean_s = 0.0;
  double p50_s = 0.0;
  double p90_s = 0.0;
  double p99_s = 0.0;
  double max_s = 0.0;
};

struct ServedRequest {
  std::int64_t id = 0;
  int replica = 0;
  double arrival_s = 0.0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  double first_token_s = 0.0;  // absolute times
  double finish_s = 0.0;
  int preemptions = 0;

  [[nodiscard]] double ttft_s() const { return first_token_s - arrival_s; }
  [[nodiscard]] double e2e_s() const { return finish_s - arrival_s; }
  // Mean time per output token after the first; 0 for a one-token answer.
  [[nodiscard]] double tpot_s() const {
    return output_tokens > 1 ? (finish_s - first_token_s) / static_cast<double>(output_tokens - 1) : 0.0;
  }
};

struct ServeIteration {
  int replica = 0;  // prefill replicas first when disaggregated
  double start_s = 0.0;
  double end_s = 0.0;
  int decode_tokens = 0;
  std::int64_t prefill_tokens = 0;
  int prefill_chunks = 0;
  int kv_blocks_used = 0;  // the replica's, all its batches
  int batch = 0;           // which of a pp-stage replica's pp batches in flight (0 when pp = 1)
};

// KV-cache use and queue lengths over time, averaged over equal intervals from t = 0 (all
// replicas; at most 256 intervals, their width a power of two times 1 ms).
struct ServeSample {
  double start_s = 0.0;
  double kv_used_fraction = 0.0;  // time-weighted mean over the interval
  double running = 0.0;           // requests holding KV blocks
  double waiting = 0.0;           // requests queued
  std::int64_t preemptions = 0;   // in the interval
};

struct ServeResult {
  std::string engine;
  int replicas = 1;          // all pools
  int gpus_per_replica = 1;  // aggregated; with disaggregation, a decode replica's
  int num_gpus = 1;
  int prefill_replicas = 0;  // disaggregated only
  int decode_replicas = 0;
  double kv_transfer_mean_s = 0.0;  // prefill-to-decode move of one request's cache
  std::int64_t kv_blocks_per_replica = 0;  // a decode (or aggregated) replica's
  std::int64_t kv_tokens_per_replica = 0;  // blocks x block size
  double kv_bytes_per_token = 0.0;         // per GPU
  std::int64_t requests = 0;               // completed
  std::int64_t output_tokens = 0;
  std::int64_t input_tokens = 0;
  std::int64_t iterations = 0;
  std::int64_t preemptions = 0;
  double duration_s = 0.0;  // first arrival to last completion
  LatencyStats ttft, tpot, itl, e2e;
  double requests_per_s = 0.0;
  double output_tokens_per_s = 0.0;
  double total_tokens_per_s = 0.0;  // input and output
  double output_tokens_per_s_per_gpu = 0.0;
  double mean_batch_tokens = 0.0;        // tokens per iteration
  double mean_requests_in_system = 0.0;  // time average over the run (Little's L)
  double kv_used_fraction_mean = 0.0;    // time-weighted
  double kv_used_fraction_max = 0.0;
  // Goodput: completed requests within the SLOs given, per second (all of them without SLOs).
  double goodput_requests_per_s = 0.0;
  double slo_attainment = 1.0;
  std::vector<ServeSample> samples;
  std::vector<ServedRequest> request_log;   // keep_requests
  std::vector<ServeIteration> iteration_log;  // record_iterations
};

// Simulates `scenario` (an LLM inference model; its parallelism is one replica's, replica
// count from hardware.parallelism.inference.replica_count). Throws ConfigError for bad
// options or a workload the serving model does not cover (context or expert parallelism),
// InfeasibleError when the weights leave no room for a KV cache.
[[nodiscard]] ServeResult serve(const Scenario& scenario, const ServeOptions& options);

// One way to spend a number of GPUs on serving and how it does on the workload.
struct ServeLayout {
  std::optional<Disaggregation> disaggregated;  // none: aggregated replicas
  ServePool aggregated;                         // when not disaggregated
  ServeResult result;
  double goodput_per_gpu = 0.0;  // requests per second within the SLOs, per GPU
  std::string infeasible;        // why it could not run (empty when it ran)
};

// Every aggregated layout (replicas x tp, pp = 1) and every disaggregated one (x prefill
// replicas of tp_p GPUs, y decode replicas of tp_d, x tp_p + y tp_d = gpus) with tp in
// {1, 2, 4, 8}, each simulated on the workload; best goodput per GPU first.
[[nodiscard]] std::vector<ServeLayout> serve_layouts(const Scenario& scenario, const ServeOptions& options, int gpus);

// The offline maximum throughput of an engine in steady state (closed form, every request
// of fixed input and output length queued): the resident batch the KV cache and
// max_num_seqs allow, the token budget, and each iteration's time from the step model.
struct SteadyState {
  int resident_requests = 0;          // per replica
  double decode_tokens_per_iteration = 0.0;
  double prefill_tokens_per_iteration = 0.0;
  double iteration_s = 0.0;
  double requests_per_s = 0.0;        // all replicas
  double output_tokens_per_s = 0.0;
  double output_tokens_per_s_per_gpu = 0.0;
  std::string limited_by;  // "kv_cache", "max_num_seqs", "token_budget" or "requests"
};
[[nodiscard]] SteadyState serve_steady_state(const Scenario& scenario, const ServeOptions& options);

}  // namespace rapidllm
