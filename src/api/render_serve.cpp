// Serving reports: the simulation's summary (table), every field (JSON), one row per request
// (CSV), and the closed-form steady state. Each names the engine and workload settings that
// produced it, and the configuration hash covers them: the same files under another
// engine or workload are another configuration.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "api/csv_schemas.hpp"
#include "api/json_text.hpp"
#include "api/stack_echo.hpp"
#include "io/report_header.hpp"
#include "io/spec_json.hpp"
#include "io/text_table.hpp"
#include "rapidllm/report.hpp"

namespace rapidllm {

std::string_view to_string(ServePolicy policy) {
  return policy == ServePolicy::decode_first ? "decode-first" : "prefill-first";
}

std::string_view to_string(ServeRouter router) {
  return router == ServeRouter::round_robin ? "round-robin" : "least-loaded";
}

std::string_view to_string(ArrivalKind arrivals) {
  switch (arrivals) {
    case ArrivalKind::poisson: return "poisson";
    case ArrivalKind::concurrency: return "concurrency";
    case ArrivalKind::trace: return "trace";
    case ArrivalKind::offline: return "offline";
  }
  return "poisson";
}

std::string_view to_string(KvBudget budget) {
  return budget == KvBudget::fraction_of_total ? "fraction-of-total" : "fraction-of-free";
}

bool serve_workload_is_random(const ServeWorkload& w) {
  if (w.arrivals == ArrivalKind::poisson) return true;
  return w.arrivals != ArrivalKind::trace && (w.input.lo != w.input.hi || w.output.lo != w.output.hi);
}

namespace {

constexpr double kGiB = 1073741824.0;

nlohmann::json engine_json(const ServeEngine& e) {
  return {{"name", e.name},
          {"max_num_seqs", e.max_num_seqs},
          {"max_num_batched_tokens", e.max_num_batched_tokens},
          {"chunked_prefill", e.chunked_prefill},
          {"policy", to_string(e.policy)},
          {"block_size_tokens", e.block_size},
          {"kv_budget", to_string(e.kv_budget)},
          {"kv_memory_fraction", e.kv_memory_fraction},
          {"reserve_full_sequence", e.reserve_full_sequence},
          {"iteration_overhead_s", e.iteration_overhead_s}};
}

// Only the settings the arrival kind reads: a trace's lengths are its own.
nlohmann::json workload_json(const ServeWorkload& w) {
  nlohmann::json j = {{"arrivals", to_string(w.arrivals)}, {"requests_limit", w.requests}};
  switch (w.arrivals) {
    case ArrivalKind::poisson: j["rate_per_s"] = w.rate_per_s; break;
    case ArrivalKind::concurrency: j["concurrency"] = w.concurrency; break;
    case ArrivalKind::trace: j["trace_file"] = w.trace_file; break;
    case ArrivalKind::offline: break;
  }
  if (w.arrivals != ArrivalKind::offline) j["duration_limit_s"] = w.duration_s;
  if (w.arrivals != ArrivalKind::trace) {
    j["input_tokens"] = {{"lo", w.input.lo}, {"hi", w.input.hi}};
    j["output_tokens"] = {{"lo", w.output.lo}, {"hi", w.output.hi}};
  }
  if (serve_workload_is_random(w)) j["seed"] = w.seed;
  return j;
}

nlohmann::json pool_json(const ServePool& p) { return {{"replicas", p.replicas}, {"tp", p.tp}, {"pp", p.pp}}; }

// The settings a report was made under. The steady state routes nothing: no router.
nlohmann::json options_json(const ServeOptions& o, bool simulated) {
  nlohmann::json j = {{"engine", engine_json(o.engine)}, {"workload", workload_json(o.workload)}};
  if (o.disaggregated) {
    j["disaggregated"] = {{"prefill", pool_json(o.disaggregated->prefill)},
                          {"decode", pool_json(o.disaggregated->decode)}};
  }
  if (simulated) j["router"] = to_string(o.router);
  if (o.slo_ttft_s) j["slo_ttft_s"] = *o.slo_ttft_s;
  if (o.slo_tpot_s) j["slo_tpot_s"] = *o.slo_tpot_s;
  return j;
}

io::ReportHeader serve_header(const Scenario& scenario, const ServeOptions& options, bool simulated) {
  const nlohmann::json resolved = {{"hardware", io::hardware_json(scenario.hardware)},
                                   {"model", io::model_json(scenario.model)},
                                   {"serve", options_json(options, simulated)}};
  return {io::config_hash(resolved), scenario.hardware.source, scenario.model_file, scenario.overrides,
          detail::stack_echo(scenario.hardware.sw, RunType::inference)};
}

// The header, the run kind and the settings: what every serve JSON report starts with.
nlohmann::json report_json(const Scenario& scenario, const ServeOptions& options, bool simulated) {
  nlohmann::json j = io::header_json(serve_header(scenario, options, simulated));
  j["run_type"] = simulated ? "serve" : "serve_steady_state";
  j.update(options_json(options, simulated));
  return j;
}

nlohmann::json latency_json(const LatencyStats& s) {
  return {{"mean_s", s.mean_s}, {"p50_s", s.p50_s}, {"p90_s", s.p90_s}, {"p99_s", s.p99_s}, {"max_s", s.max_s}};
}

// Completed requests in arrival (id) order; the log holds them in completion order.
std::vector<ServedRequest> by_id(const ServeResult& r) {
  std::vector<ServedRequest> out = r.request_log;
  std::sort(out.begin(), out.end(), [](const ServedRequest& a, const ServedRequest& b) { return a.id < b.id; });
  return out;
}

nlohmann::json result_json(const ServeResult& r, const Scenario& scenario, const ServeOptions& options) {
  nlohmann::json j = report_json(scenario, options, true);
  j.update({{"replicas", r.replicas},
            {"gpus_per_replica", r.gpus_per_replica},
            {"num_gpus", r.num_gpus},
            {"kv_blocks_per_replica", r.kv_blocks_per_replica},
            {"kv_tokens_per_replica", r.kv_tokens_per_replica},
            {"kv_bytes_per_token", r.kv_bytes_per_token},
            {"kv_cache_bytes_per_gpu", static_cast<double>(r.kv_tokens_per_replica) * r.kv_bytes_per_token},
            {"requests", r.requests},
            {"input_tokens", r.input_tokens},
            {"output_tokens", r.output_tokens},
            {"iterations", r.iterations},
            {"preemptions", r.preemptions},
            {"duration_s", r.duration_s},
            {"requests_per_s", r.requests_per_s},
            {"output_tokens_per_s", r.output_tokens_per_s},
            {"total_tokens_per_s", r.total_tokens_per_s},
            {"output_tokens_per_s_per_gpu", r.output_tokens_per_s_per_gpu},
            {"ttft", latency_json(r.ttft)},
            {"tpot", latency_json(r.tpot)},
            {"itl", latency_json(r.itl)},
            {"e2e", latency_json(r.e2e)},
            {"mean_batch_tokens", r.mean_batch_tokens},
            {"mean_requests_in_system", r.mean_requests_in_system},
            {"kv_used_fraction_mean", r.kv_used_fraction_mean},
            {"kv_used_fraction_max", r.kv_used_fraction_max},
            {"goodput_requests_per_s", r.goodput_requests_per_s},
            {"slo_attainment", r.slo_attainment}});
  if (options.disaggregated) {
    j.update({{"prefill_replicas", r.prefill_replicas},
              {"decode_replicas", r.decode_replicas},
              {"kv_transfer_mean_s", r.kv_transfer_mean_s}});
  }
  nlohmann::json samples = nlohmann::json::array();
  for (const ServeSample& s : r.samples) {
    samples.push_back({{"start_s", s.start_s}, {"kv_used_fraction", s.kv_used_fraction}, {"running", s.running},
                       {"waiting", s.waiting}, {"preemptions", s.preemptions}});
  }
  j["samples"] = std::move(samples);
  if (options.keep_requests) {
    nlohmann::json log = nlohmann::json::array();
    for (const ServedRequest& q : by_id(r)) {
      log.push_back({{"id", q.id}, {"replica", q.replica}, {"arrival_s", q.arrival_s},
                     {"input_tokens", q.input_tokens}, {"output_tokens", q.output_tokens},
                     {"first_token_s", q.first_token_s}, {"finish_s", q.finish_s}, {"ttft_s", q.ttft_s()},
                     {"tpot_s", q.tpot_s()}, {"e2e_s", q.e2e_s()}, {"preemptions", q.preemptions}});
    }
    j["request_log"] = std::move(log);
  }
  return j;
}

std::string csv_header(const std::vector<std::string>& columns) { return fmt::format("{}\n", fmt::join(columns, ",")); }

std::string requests_csv(const ServeResult& r) {
  std::string out = csv_header(detail::serve_requests_csv_columns());
  for (const ServedRequest& q : by_id(r)) {
    // "{}": the shortest text that reads back to the same double.
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", q.id, q.replica, q.arrival_s, q.input_tokens,
                       q.output_tokens, q.ttft_s(), q.tpot_s(), q.e2e_s(), q.preemptions);
  }
  return out;
}

std::string range_text(const TokenRange& r) {
  return r.lo == r.hi ? fmt::format("{}", r.lo) : fmt::format("{}..{}", r.lo, r.hi);
}

// Two lines; the second indented under the first line's text (after the 14-wide labels).
std::string engine_text(const ServeEngine& e) {
  return fmt::format(
      "{}: up to {} sequences, {}-token budget, {}, {},\n              {}-token blocks, KV cache {} of the {} GPU "
      "memory, {}{}",
      e.name, e.max_num_seqs, e.max_num_batched_tokens, e.chunked_prefill ? "chunked prefill" : "whole prompts",
      to_string(e.policy), e.block_size, e.kv_memory_fraction,
      e.kv_budget == KvBudget::fraction_of_total ? "total" : "free",
      e.reserve_full_sequence ? "whole sequences reserved" : "recompute preemption",
      e.iteration_overhead_s > 0.0 ? fmt::format(", {} per iteration", io::human_seconds(e.iteration_overhead_s))
                                   : std::string());
}

std::string workload_text(const ServeWorkload& w) {
  std::string arrivals;
  switch (w.arrivals) {
    case ArrivalKind::poisson: arrivals = fmt::format("Poisson arrivals at {} req/s", w.rate_per_s); break;
    case ArrivalKind::concurrency: arrivals = fmt::format("closed loop of {} clients", w.concurrency); break;
    case ArrivalKind::trace: arrivals = fmt::format("trace {}", w.trace_file); break;
    case ArrivalKind::offline: arrivals = "offline (every request queued at t = 0)"; break;
  }
  std::vector<std::string> parts{arrivals};
  if (w.requests > 0) parts.push_back(fmt::format("{} requests", w.requests));
  if (w.duration_s > 0.0 && w.arrivals != ArrivalKind::offline) {
    parts.push_back(fmt::format("arrivals for {}", io::human_seconds(w.duration_s)));
  }
  if (w.arrivals != ArrivalKind::trace) {
    parts.push_back(fmt::format("input {} and output {} tokens", range_text(w.input), range_text(w.output)));
  }
  if (serve_workload_is_random(w)) parts.push_back(fmt::format("seed {}", w.seed));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string replicas_text(const ServeResult& r, const ServeOptions& o) {
  if (!o.disaggregated) return fmt::format("{} replica(s) of {} GPU(s)", r.replicas, r.gpus_per_replica);
  const auto pool = [](const ServePool& p, const char* role) {
    return fmt::format("{} {} replica(s) of tp {} x pp {}", p.replicas, role, p.tp, p.pp);
  };
  return fmt::format("{} and {}", pool(o.disaggregated->prefill, "prefill"), pool(o.disaggregated->decode, "decode"));
}

std::string ms(double s) { return fmt::format("{:.2f}", s * 1e3); }

std::string slo_text(const ServeOptions& o) {
  std::vector<std::string> parts;
  if (o.slo_ttft_s) parts.push_back(fmt::format("TTFT <= {}", io::human_seconds(*o.slo_ttft_s)));
  if (o.slo_tpot_s) parts.push_back(fmt::format("TPOT <= {}", io::human_seconds(*o.slo_tpot_s)));
  return fmt::format("{}", fmt::join(parts, " and "));
}

std::string result_table(const ServeResult& r, const Scenario& scenario, const ServeOptions& o) {
  std::string out = io::header_line(serve_header(scenario, o, true));
  out += fmt::format("serving {} on {} GPU(s): {}, router {}\n", scenario.model_file, r.num_gpus, replicas_text(r, o),
                     to_string(o.router));
  out += fmt::format("engine        {}\n", engine_text(o.engine));
  out += fmt::format("workload      {}\n", workload_text(o.workload));
  out += fmt::format("KV cache      {} blocks = {} tokens per {}replica, {:.2f} GiB per GPU ({} per token)\n",
                     r.kv_blocks_per_replica, r.kv_tokens_per_replica, o.disaggregated ? "decode " : "",
                     static_cast<double>(r.kv_tokens_per_replica) * r.kv_bytes_per_token / kGiB,
                     io::human_bytes(r.kv_bytes_per_token));
  if (o.disaggregated) {
    out += fmt::format("KV transfer   {} per request on average, prefill to decode replica\n",
                       io::human_seconds(r.kv_transfer_mean_s));
  }
  out += "\n";
  out += fmt::format("requests      {} completed in {:.3f} s ({} input + {} output tokens, {} iterations)\n",
                     r.requests, r.duration_s, r.input_tokens, r.output_tokens, r.iterations);
  out += fmt::format("throughput    {:.3f} req/s, {:.1f} output tok/s ({:.1f} per GPU), {:.1f} tok/s in total\n",
                     r.requests_per_s, r.output_tokens_per_s, r.output_tokens_per_s_per_gpu, r.total_tokens_per_s);
  out += fmt::format("batch         {:.1f} tokens per iteration, {:.2f} requests in the system on average\n",
                     r.mean_batch_tokens, r.mean_requests_in_system);
  out += fmt::format("KV cache use  {:.1f} % mean, {:.1f} % max\n", 100.0 * r.kv_used_fraction_mean,
                     100.0 * r.kv_used_fraction_max);
  out += fmt::format("preemptions   {}\n", r.preemptions);
  if (o.slo_ttft_s || o.slo_tpot_s) {
    out += fmt::format("goodput       {:.3f} req/s: {:.1f} % of requests meet {}\n", r.goodput_requests_per_s,
                       100.0 * r.slo_attainment, slo_text(o));
  }
  io::TextTable t({"latency (ms)", "mean", "p50", "p90", "p99", "max"});
  for (const auto& [name, s] : {std::pair<const char*, const LatencyStats&>{"TTFT", r.ttft}, {"TPOT", r.tpot},
                                {"ITL", r.itl}, {"E2E", r.e2e}}) {
    t.add_row({name, ms(s.mean_s), ms(s.p50_s), ms(s.p90_s), ms(s.p99_s), ms(s.max_s)});
  }
  return out + "\n" + t.render();
}

nlohmann::json steady_json(const SteadyState& s, const Scenario& scenario, const ServeOptions& options) {
  nlohmann::json j = report_json(scenario, options, false);
  const ParallelismSpec& p = scenario.hardware.parallelism;
  j.update({{"replicas", std::max(1, p.replica_count)},
            {"gpus_per_replica", p.tp * p.pp},
            {"resident_requests_per_replica", s.resident_requests},
            {"decode_tokens_per_iteration", s.decode_tokens_per_iteration},
            {"prefill_tokens_per_iteration", s.prefill_tokens_per_iteration},
            {"iteration_s", s.iteration_s},
            {"requests_per_s", s.requests_per_s},
            {"output_tokens_per_s", s.output_tokens_per_s},
            {"output_tokens_per_s_per_gpu", s.output_tokens_per_s_per_gpu},
            {"limited_by", s.limited_by}});
  return j;
}

std::string steady_table(const SteadyState& s, const Scenario& scenario, const ServeOptions& o) {
  const ParallelismSpec& p = scenario.hardware.parallelism;
  std::string out = io::header_line(serve_header(scenario, o, false));
  const int replicas = std::max(1, p.replica_count);
  out += fmt::format("offline steady state (closed form) of {} on {} GPU(s): {} replica(s) of {} GPU(s)\n",
                     scenario.model_file, replicas * p.tp * p.pp, replicas, p.tp * p.pp);
  out += fmt::format("engine        {}\n", engine_text(o.engine));
  out += fmt::format("workload      {}\n\n", workload_text(o.workload));
  out += fmt::format("resident      {} requests per replica (limited by {})\n", s.resident_requests, s.limited_by);
  out += fmt::format("iteration     {:.1f} decode + {:.1f} prefill tokens in {}\n", s.decode_tokens_per_iteration,
                     s.prefill_tokens_per_iteration, io::human_seconds(s.iteration_s));
  out += fmt::format("throughput    {:.3f} req/s, {:.1f} output tok/s ({:.1f} per GPU)\n", s.requests_per_s,
                     s.output_tokens_per_s, s.output_tokens_per_s_per_gpu);
  return out;
}

std::string steady_csv(const SteadyState& s) {
  return csv_header(detail::serve_steady_state_csv_columns()) + fmt::format(
      "{},{},{},{},{},{},{},{}\n",
      s.resident_requests, s.decode_tokens_per_iteration, s.prefill_tokens_per_iteration, s.iteration_s,
      s.requests_per_s, s.output_tokens_per_s, s.output_tokens_per_s_per_gpu, s.limited_by);
}

std::string layout_text(const ServeLayout& l) {
  const auto pool = [](const ServePool& p) {
    return p.pp > 1 ? fmt::format("{}xtp{}pp{}", p.replicas, p.tp, p.pp) : fmt::format("{}xtp{}", p.replicas, p.tp);
  };
  if (!l.disaggregated) return pool(l.aggregated);
  return fmt::format("{}P+{}D", pool(l.disaggregated->prefill), pool(l.disaggregated->decode));
}

nlohmann::json layouts_json(const std::vector<ServeLayout>& layouts, int gpus, const Scenario& scenario,
                            const ServeOptions& options) {
  nlohmann::json j = report_json(scenario, options, true);
  j["run_type"] = "serve_layouts";
  j["gpus"] = gpus;
  nlohmann::json list = nlohmann::json::array();
  for (const ServeLayout& l : layouts) {
    nlohmann::json e = {{"layout", layout_text(l)}};
    if (l.disaggregated) {
      e["prefill"] = pool_json(l.disaggregated->prefill);
      e["decode"] = pool_json(l.disaggregated->decode);
    } else {
      e["aggregated"] = pool_json(l.aggregated);
    }
    if (!l.infeasible.empty()) {
      e["infeasible"] = l.infeasible;
    } else {
      const ServeResult& r = l.result;
      e.update({{"num_gpus", r.num_gpus},
                {"goodput_requests_per_s_per_gpu", l.goodput_per_gpu},
                {"goodput_requests_per_s", r.goodput_requests_per_s},
                {"slo_attainment", r.slo_attainment},
                {"requests_per_s", r.requests_per_s},
                {"output_tokens_per_s_per_gpu", r.output_tokens_per_s_per_gpu},
                {"ttft", latency_json(r.ttft)},
                {"tpot", latency_json(r.tpot)},
                {"preemptions", r.preemptions}});
    }
    list.push_back(e);
  }
  j["layouts"] = list;
  return j;
}

std::string layouts_csv(const std::vector<ServeLayout>& layouts) {
  std::string out = csv_header(detail::serve_layouts_csv_columns());
  for (const ServeLayout& l : layouts) {
    if (!l.infeasible.empty()) {
      out += fmt::format("{},,,,,,,,,,,,\"{}\"\n", layout_text(l), l.infeasible);
      continue;
    }
    const ServeResult& r = l.result;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},\n", layout_text(l), r.num_gpus, l.goodput_per_gpu,
                       r.goodput_requests_per_s, r.slo_attainment, r.requests_per_s, r.output_tokens_per_s_per_gpu,
                       r.ttft.p50_s, r.ttft.p99_s, r.tpot.p50_s, r.tpot.p99_s, r.preemptions);
  }
  return out;
}

std::string layouts_table(const std::vector<ServeLayout>& layouts, int gpus, const Scenario& scenario,
                          const ServeOptions& o) {
  std::string out = io::header_line(serve_header(scenario, o, true));
  out += fmt::format("serving {} on {} GPU(s): every aggregated and disaggregated layout, best goodput per GPU first\n",
                     scenario.model_file, gpus);
  out += fmt::format("engine        {}\n", engine_text(o.engine));
  out += fmt::format("workload      {}\n", workload_text(o.workload));
  out += fmt::format("SLOs          {}\n\n", o.slo_ttft_s || o.slo_tpot_s ? slo_text(o) : "none (goodput = throughput)");
  out += fmt::format("{:<18} {:>12} {:>10} {:>6} {:>11} {:>9} {:>9} {:>9} {:>9}\n", "layout", "good/s/GPU",
                     "good/s", "SLO %", "tok/s/GPU", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99");
  out += std::string(108, '-') + "\n";
  for (const ServeLayout& l : layouts) {
    if (!l.infeasible.empty()) {
      out += fmt::format("{:<18} infeasible: {}\n", layout_text(l), l.infeasible);
      continue;
    }
    const ServeResult& r = l.result;
    out += fmt::format("{:<18} {:>12.4f} {:>10.3f} {:>6.1f} {:>11.1f} {:>9} {:>9} {:>9} {:>9}\n", layout_text(l),
                       l.goodput_per_gpu, r.goodput_requests_per_s, 100.0 * r.slo_attainment,
                       r.output_tokens_per_s_per_gpu, ms(r.ttft.p50_s), ms(r.ttft.p99_s), ms(r.tpot.p50_s),
                       ms(r.tpot.p99_s));
  }
  out += "(latencies in ms; NxtpT: N replicas of T GPUs; P+D: prefill and decode pools)\n";
  return out;
}

}  // namespace

namespace detail {

const std::vector<std::string>& serve_requests_csv_columns() {
  static const std::vector<std::string> columns{"id",     "replica", "arrival_s", "input_tokens", "output_tokens",
                                                "ttft_s", "tpot_s",  "e2e_s",     "preemptions"};
  return columns;
}

const std::vector<std::string>& serve_layouts_csv_columns() {
  static const std::vector<std::string> columns{
      "layout",         "num_gpus",   "goodput_requests_per_s_per_gpu", "goodput_requests_per_s", "slo_attainment",
      "requests_per_s", "output_tokens_per_s_per_gpu", "ttft_p50_s",    "ttft_p99_s",             "tpot_p50_s",
      "tpot_p99_s",     "preemptions", "infeasible"};
  return columns;
}

const std::vector<std::string>& serve_steady_state_csv_columns() {
  static const std::vector<std::string> columns{
      "resident_requests_per_replica", "decode_tokens_per_iteration", "prefill_tokens_per_iteration", "iteration_s",
      "requests_per_s", "output_tokens_per_s", "output_tokens_per_s_per_gpu", "limited_by"};
  return columns;
}

}  // namespace detail

std::string render_serve_layouts(const std::vector<ServeLayout>& layouts, int gpus, const Scenario& scenario,
                                 const ServeOptions& options, OutputFormat format) {
  switch (format) {
    case OutputFormat::json: return detail::json_text(layouts_json(layouts, gpus, scenario, options));
    case OutputFormat::csv: return layouts_csv(layouts);
    case OutputFormat::table: break;
  }
  return layouts_table(layouts, gpus, scenario, options);
}

std::string render_serve(const ServeResult& result, const Scenario& scenario, const ServeOptions& options,
                         OutputFormat format) {
  switch (format) {
    case OutputFormat::json: return detail::json_text(result_json(result, scenario, options));
    case OutputFormat::csv: return requests_csv(result);
    case OutputFormat::table: break;
  }
  return result_table(result, scenario, options);
}

std::string render_serve_steady_state(const SteadyState& state, const Scenario& scenario, const ServeOptions& options,
                                      OutputFormat format) {
  switch (format) {
    case OutputFormat::json: return detail::json_text(steady_json(state, scenario, options));
    case OutputFormat::csv: return steady_csv(state);
    case OutputFormat::table: break;
  }
  return steady_table(state, scenario, options);
}

}  // namespace rapidllm
