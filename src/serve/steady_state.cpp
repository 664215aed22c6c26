// The offline maximum throughput of a decode-first engine in steady state, in closed form.
// Every resident request emits one token per iteration (a decode, or its last prefill
// chunk), so with B resident and requests of input I and output O tokens the engine
// completes lambda = B / O requests per iteration, unless the token budget binds first:
// an iteration carries lambda (O - 1) decode and lambda I prefill tokens, at most the
// budget. B is what max_num_seqs and the KV cache allow with every request holding the
// blocks of its whole I + O tokens: an engine that reserves them at admission does so by
// design, and one that allocates as it goes (vLLM) holds them at the end of its requests'
// lives anyway. Requests of equal length queued together stay in step (admitted together,
// they finish together), so the cache must hold a whole cohort at its longest. An engine
// that allocates as it goes admits more than that and preempts: refused when the cache
// binds (simulate it).
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "rapidllm/error.hpp"
#include "rapidllm/serve.hpp"
#include "serve/iteration_cost.hpp"
#include "serve/options_check.hpp"
#include "serve/kv_capacity.hpp"

namespace rapidllm {

SteadyState serve_steady_state(const Scenario& scenario, const ServeOptions& options) {
  const ServeEngine& e = options.engine;
  const ServeWorkload& w = options.workload;
  if (e.policy != ServePolicy::decode_first) {
    throw serving::option_error("--policy", "the steady state models decode-first engines",
                                "simulate a prefill-first engine (drop --steady-state)");
  }
  if (w.input.lo != w.input.hi || w.output.lo != w.output.hi || w.input.lo < 1 || w.output.lo < 1) {
    throw serving::option_error("--isl/--osl", "the steady state needs fixed input and output lengths",
                                "give --isl N --osl M (one value each)");
  }
  serving::check_engine(e, w.input.lo, w.input.lo + w.output.lo);
  serving::IterationCost cost(scenario);
  const serving::KvCapacity kv = serving::kv_capacity(cost.context(), e);
  const auto input = static_cast<double>(w.input.lo);
  const auto output = static_cast<double>(w.output.lo);
  const double blocks_per_request = std::ceil((input + output) / e.block_size);
  SteadyState s;
  const double by_kv = std::floor(static_cast<double>(kv.blocks) / blocks_per_request);
  if (by_kv < 1.0) {
    throw InfeasibleError(fmt::format("one request of {} tokens does not fit the KV cache of {} tokens per replica",
                                      w.input.lo + w.output.lo, kv.tokens));
  }
  double resident = std::min<double>(e.max_num_seqs, by_kv);
  s.limited_by = by_kv < e.max_num_seqs ? "kv_cache" : "max_num_seqs";
  const int replicas = std::max(1, scenario.hardware.parallelism.replica_count);
  if (w.requests > 0 && static_cast<double>(w.requests) / replicas < resident) {
    resident = static_cast<double>(w.requests) / replicas;
    s.limited_by = "requests";
  }
  if (s.limited_by == "kv_cache" && !e.reserve_full_sequence) {
    // Admitting by prompt and allocating as they go, such an engine overfills the cache and
    // preempts: ~10 % of the throughput is lost to recomputation in the simulation of an
    // offline Llama-3.1-8B run, churn this closed form does not hold.
    throw serving::option_error(
        "--steady-state",
        fmt::format("the KV cache ({} requests of {} tokens) binds before max_num_seqs ({}) on an engine that "
                    "allocates as it goes: its preemptions are not in closed form",
                    static_cast<std::int64_t>(by_kv), w.input.lo + w.output.lo, e.max_num_seqs),
        "simulate it (drop --steady-state), or lower --max-num-seqs to what the cache holds");
  }
  double per_iteration = resident / output;  // requests completed per iteration
  const double by_budget = static_cast<double>(e.max_num_batched_tokens) / (input + output - 1.0);
  if (by_budget < per_iteration) {
    per_iteration = by_budget;
    s.limited_by = "token_budget";
  }
  s.resident_requests = static_cast<int>(resident);
  s.decode_tokens_per_iteration = per_iteration * (output - 1.0);
  s.prefill_tokens_per_iteration = per_iteration * input;
  // The iteration: its decodes at the mean context (input + O / 2), and per_iteration
  // prompts' attention (a fraction of one prompt's when fewer than one completes).
  const auto decodes = static_cast<std::int64_t>(std::llround(s.decode_tokens_per_iteration));
  const double mean_context = input + output / 2.0;
  const std::int64_t context = std::llround(mean_context * static_cast<double>(decodes));
  const double base = cost.time_s(decodes, context, {});
  const std::vector<serving::PrefillChunk> one{{w.input.lo, 0, true}};
  const double with_prompt = cost.time_s(decodes, context, one);
  // Each prompt adds its tokens to the shared forward and its attention: linear in how
  // many prompts an iteration carries on average.
  s.iteration_s = base + per_iteration * (with_prompt - base) + e.iteration_overhead_s;
  s.requests_per_s = replicas * per_iteration / s.iteration_s;
  s.output_tokens_per_s = s.requests_per_s * output;
  const auto& deg = cost.context().degrees();
  s.output_tokens_per_s_per_gpu = s.output_tokens_per_s / (replicas * deg.tp * deg.pp);
  return s;
}

}  // namespace rapidllm
