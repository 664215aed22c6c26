// rapidllm serve --hardware HW.yaml --model M.yaml [--set a.b=v ...] [engine options]
//   (--rate R | --concurrency C | --trace FILE | --offline) [--isl N|LO..HI] [--osl N|LO..HI]
//   [--requests N] [--duration T] [--seed S] [--router R] [--slo-ttft T] [--slo-tpot T]
//   [--prefill NxtpT[ppP] --decode NxtpT[ppP]] [--layouts GPUS]
//   [--steady-state] [--trace-out FILE.json] [--format table|json|csv] [-o FILE]
#include <chrono>
#include <regex>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "cli_common.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/serve.hpp"
#include "rapidllm/units.hpp"

namespace rapidllm::cli {

namespace {

struct ServeCommandOptions {
  std::string hardware;
  std::string model;
  std::vector<std::string> sets;
  // Engine: a profile, then the overrides given.
  std::string engine = "vllm";
  std::optional<int> max_num_seqs;
  std::optional<std::int64_t> max_num_batched_tokens;
  std::optional<int> block_size;
  std::optional<double> kv_memory_fraction;
  bool no_chunked_prefill = false;
  std::optional<std::string> policy;
  std::optional<bool> reserve_full_sequence;
  std::optional<std::string> iteration_overhead;
  // Workload: exactly one arrival option.
  std::optional<double> rate;
  std::optional<int> concurrency;
  std::optional<std::string> trace;
  bool offline = false;
  std::string isl = "1024";
  std::string osl = "128";
  std::int64_t requests = 0;
  std::optional<std::string> duration;
  std::uint64_t seed = 1;
  std::string router = "round-robin";
  std::optional<std::string> slo_ttft;
  std::optional<std::string> slo_tpot;
  bool steady_state = false;
  std::optional<std::string> prefill;  // disaggregated pools
  std::optional<std::string> decode;
  std::optional<int> layouts;  // GPUs to lay out every way
  std::string trace_out;
  OutputOptions output;
};

[[noreturn]] void bad(const std::string& option, const std::string& problem, const std::string& hint) {
  throw ConfigError(SourceLocation{"command line", 0, 0, {}}, option, problem, hint);
}

// The value of `Enum` that to_string names `name` (the option's IsMember check has passed).
template <class Enum>
Enum named(const std::string& option, const std::string& name, Enum first, Enum last) {
  for (int i = static_cast<int>(first); i <= static_cast<int>(last); ++i) {
    if (to_string(static_cast<Enum>(i)) == name) return static_cast<Enum>(i);
  }
  bad(option, fmt::format("'{}' is not one of {}", name, fmt::join(enum_names(first, last), ", ")), "");
}

// CLI11's PositiveNumber names the whole range of a double in its message; this says it plainly.
CLI::Validator above_zero() {
  return CLI::Validator(
      [](const std::string& text) {
        const auto v = parse_number(text);
        return v && *v > 0.0 ? std::string() : fmt::format("'{}' is not a number above zero", text);
      },
      "> 0");
}

// A time: plain seconds or a number with s, ms, us or ns; above zero.
double seconds(const std::string& option, const std::string& text) {
  const auto s = parse_duration_s(text);
  if (!s || !(*s > 0.0)) bad(option, fmt::format("'{}' is not a time above zero", text), "e.g. 0.2, 200ms or 50 us");
  return *s;
}

// N (fixed) or LO..HI (drawn uniformly).
TokenRange tokens(const std::string& option, const std::string& text) {
  const auto count = [&](const std::string& s) -> std::int64_t {
    try {
      std::size_t used = 0;
      const long long n = std::stoll(s, &used);
      if (used == s.size() && n >= 1) return n;
    } catch (const std::exception&) {
    }
    bad(option, fmt::format("'{}' is not a token count N or a range LO..HI of counts >= 1", text),
        fmt::format("e.g. {0} 1024 or {0} 200..800", option));
  };
  const auto dots = text.find("..");
  if (dots == std::string::npos) {
    const std::int64_t n = count(text);
    return {n, n};
  }
  const TokenRange r{count(text.substr(0, dots)), count(text.substr(dots + 2))};
  if (r.hi < r.lo) bad(option, fmt::format("range '{}' runs backwards", text), "write the lower count first");
  return r;
}

// NxtpT or NxtpTppP: N replicas of T (x P) GPUs.
ServePool pool(const std::string& option, const std::string& text) {
  static const std::regex form(R"(([0-9]{1,6})xtp([0-9]{1,4})(?:pp([0-9]{1,4}))?)");
  std::smatch m;
  ServePool p{0, 0, 0};
  if (std::regex_match(text, m, form)) {
    p = ServePool{std::stoi(m[1]), std::stoi(m[2]), m[3].matched ? std::stoi(m[3]) : 1};
  }
  if (p.replicas < 1 || p.tp < 1 || p.pp < 1) {
    bad(option, fmt::format("'{}' is not a pool NxtpT or NxtpTppP of counts >= 1", text),
        fmt::format("e.g. {} 2xtp4 (two replicas of four GPUs)", option));
  }
  return p;
}

ServeEngine engine_of(const ServeCommandOptions& o) {
  ServeEngine e = *serve_engine_profile(o.engine);  // the option accepts only profile names
  if (o.max_num_seqs) e.max_num_seqs = *o.max_num_seqs;
  if (o.max_num_batched_tokens) e.max_num_batched_tokens = *o.max_num_batched_tokens;
  if (o.block_size) e.block_size = *o.block_size;
  if (o.kv_memory_fraction) {
    if (!(*o.kv_memory_fraction > 0.0 && *o.kv_memory_fraction <= 1.0)) {
      bad("--kv-memory-fraction", fmt::format("{} is not in (0, 1]", *o.kv_memory_fraction), "e.g. 0.9");
    }
    e.kv_memory_fraction = *o.kv_memory_fraction;
  }
  if (o.no_chunked_prefill) e.chunked_prefill = false;
  if (o.policy) e.policy = named("--policy", *o.policy, ServePolicy::decode_first, ServePolicy::prefill_first);
  if (o.reserve_full_sequence) e.reserve_full_sequence = *o.reserve_full_sequence;
  if (o.iteration_overhead) {
    const auto s = parse_duration_s(*o.iteration_overhead);
    if (!s) bad("--iteration-overhead", fmt::format("'{}' is not a time >= 0", *o.iteration_overhead), "e.g. 2ms");
    e.iteration_overhead_s = *s;
  }
  return e;
}

// The arrival option given (exactly one), and the options that do not apply to it refused:
// none is read and then ignored.
ServeWorkload workload_of(const ServeCommandOptions& o, const CLI::App& cmd) {
  const int given = (o.rate ? 1 : 0) + (o.concurrency ? 1 : 0) + (o.trace ? 1 : 0) + (o.offline ? 1 : 0);
  if (given != 1) {
    bad("--rate/--concurrency/--trace/--offline",
        given == 0 ? "no arrival option given" : "more than one arrival option given",
        "give exactly one: --rate R (Poisson, requests/s), --concurrency C (closed loop of C clients), "
        "--trace FILE (arrival_s,input_tokens,output_tokens rows) or --offline (all queued at t = 0)");
  }
  ServeWorkload w;
  if (o.rate) {
    w.arrivals = ArrivalKind::poisson;
    w.rate_per_s = *o.rate;
  } else if (o.concurrency) {
    w.arrivals = ArrivalKind::concurrency;
    w.concurrency = *o.concurrency;
  } else if (o.trace) {
    w.arrivals = ArrivalKind::trace;
    w.trace_file = *o.trace;
    for (const char* option : {"--isl", "--osl"}) {
      if (cmd.count(option) > 0) bad(option, "does not apply to --trace", "the trace gives every request's lengths");
    }
  } else {
    w.arrivals = ArrivalKind::offline;
    if (o.duration) bad("--duration", "does not apply to --offline", "every request arrives at t = 0: give --requests N");
  }
  w.input = tokens("--isl", o.isl);
  w.output = tokens("--osl", o.osl);
  w.requests = o.requests;
  if (o.duration) w.duration_s = seconds("--duration", *o.duration);
  w.seed = o.seed;
  if (cmd.count("--seed") > 0 && !serve_workload_is_random(w)) {
    bad("--seed", "nothing is drawn at random: the arrivals and the lengths are fixed",
        w.arrivals == ArrivalKind::trace ? "the trace gives them all: drop --seed"
                                         : "drop --seed, or give --rate, or a range such as --isl 200..800");
  }
  return w;
}

ServeOptions serve_options(const ServeCommandOptions& o, const CLI::App& cmd) {
  ServeOptions s;
  s.engine = engine_of(o);
  s.workload = workload_of(o, cmd);
  s.router = named("--router", o.router, ServeRouter::round_robin, ServeRouter::least_loaded);
  if (o.slo_ttft) s.slo_ttft_s = seconds("--slo-ttft", *o.slo_ttft);
  if (o.slo_tpot) s.slo_tpot_s = seconds("--slo-tpot", *o.slo_tpot);
  if (o.steady_state) {
    if (s.workload.arrivals != ArrivalKind::offline) {
      bad("--steady-state", "is the offline maximum throughput: it takes no arrival rate, clients or trace",
          "give --offline (and --requests N to bound the batch), or drop --steady-state to simulate");
    }
    const std::pair<const char*, const char*> unused[] = {
        {"--router", "the closed form routes nothing"},
        {"--slo-ttft", "the closed form has no latency distribution"},
        {"--slo-tpot", "the closed form has no latency distribution"},
        {"--trace-out", "the closed form runs no iterations"},
        {"--no-chunked-prefill", "the closed form spreads every prompt over the iterations (chunked)"}};
    for (const auto& [option, why] : unused) {
      if (cmd.count(option) > 0) {
        bad(option, fmt::format("does not apply to --steady-state: {}", why), "drop it, or drop --steady-state to simulate");
      }
    }
  }
  if (o.prefill.has_value() != o.decode.has_value()) {
    bad(o.prefill ? "--decode" : "--prefill", "disaggregated serving needs both pools",
        "give --prefill NxtpT and --decode NxtpT together, or neither for aggregated replicas");
  }
  if (o.prefill) s.disaggregated = Disaggregation{pool("--prefill", *o.prefill), pool("--decode", *o.decode)};
  if (o.layouts) {
    for (const char* option : {"--prefill", "--decode", "--steady-state", "--trace-out"}) {
      if (cmd.count(option) > 0) {
        bad(option, "does not apply to --layouts: the search tries every layout, each simulated",
            "drop it, or drop --layouts to run one layout");
      }
    }
  }
  if (o.steady_state && s.disaggregated) {
    bad("--prefill/--decode", "the steady state is an aggregated engine's", "drop --steady-state to simulate the pools");
  }
  if ((s.slo_ttft_s || s.slo_tpot_s) && format_of(o.output) == OutputFormat::csv && !o.layouts) {
    bad(s.slo_ttft_s ? "--slo-ttft" : "--slo-tpot", "the per-request CSV has no goodput",
        "use --format table or json, or compare the CSV's ttft_s and tpot_s columns with the limits");
  }
  if (o.trace_out == "-") bad("--trace-out", "needs a file name", "e.g. --trace-out serve.json");
  s.record_iterations = !o.trace_out.empty();
  s.keep_requests = format_of(o.output) != OutputFormat::table;  // csv rows and json's request_log
  return s;
}

void run(const ServeCommandOptions& o, const CLI::App& cmd) {
  const ServeOptions options = serve_options(o, cmd);
  const Scenario scenario = load_scenario(o.hardware, o.model, o.sets);
  const OutputFormat format = format_of(o.output);
  if (o.layouts) {
    write_output(render_serve_layouts(serve_layouts(scenario, options, *o.layouts), *o.layouts, scenario, options,
                                      format),
                 o.output.path);
    return;
  }
  if (o.steady_state) {
    write_output(render_serve_steady_state(serve_steady_state(scenario, options), scenario, options, format),
                 o.output.path);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  const ServeResult result = serve(scenario, options);
  spdlog::info("{} requests, {} iterations simulated in {:.3g} s", result.requests, result.iterations,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  // Both rendered before either is written: a run that fails writes neither.
  const std::string report = render_serve(result, scenario, options, format);
  if (!o.trace_out.empty()) write_output(render_serve_trace(result), o.trace_out);
  write_output(report, o.output.path);
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto o = std::make_shared<ServeCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "simulate serving an LLM: requests arrive, an engine batches them continuously over a paged KV cache, "
      "every iteration timed by the step model (docs/serving.md). Replicas: the hardware file's "
      "parallelism.inference.replica_count (e.g. --set parallelism.inference.replica_count=8), each tp x pp GPUs");
  cmd->add_option("--hardware", o->hardware, "hardware YAML (RAPID-LLM schema)")->required();
  cmd->add_option("--model", o->model, "LLM model YAML (RAPID-LLM schema)")->required();
  add_set_option(*cmd, o->sets);
  cmd->add_option("--engine", o->engine, "engine profile: the scheduler and KV-cache settings the options below override (docs/serving.md lists them)")
      ->check(CLI::IsMember(serve_engine_profile_names()))
      ->capture_default_str();
  cmd->add_option("--max-num-seqs", o->max_num_seqs, "sequences resident at once")->check(above_zero());
  cmd->add_option("--max-num-batched-tokens", o->max_num_batched_tokens, "tokens one iteration processes")
      ->check(above_zero());
  cmd->add_option("--block-size", o->block_size, "tokens per KV-cache block")->check(above_zero());
  cmd->add_option("--kv-memory-fraction", o->kv_memory_fraction,
                  "the KV cache's share, in (0, 1], of the GPU's memory (vllm) or of what the weights, activations "
                  "and buffers leave (tensorrt-llm)");
  cmd->add_flag("--no-chunked-prefill", o->no_chunked_prefill, "admit a prompt only whole within the token budget");
  cmd->add_option("--policy", o->policy, "what an iteration runs first")
      ->check(CLI::IsMember(enum_names(ServePolicy::decode_first, ServePolicy::prefill_first)));
  cmd->add_option("--reserve-full-sequence", o->reserve_full_sequence,
                  "true: admit a request only with KV blocks for its whole input and output (no preemption)")
      ->check(CLI::IsMember({"true", "false"}));
  cmd->add_option("--iteration-overhead", o->iteration_overhead, "host time per iteration, seconds (or 2ms, 500us)");
  cmd->add_option("--rate", o->rate, "Poisson arrivals, requests per second")->check(above_zero());
  cmd->add_option("--concurrency", o->concurrency, "closed loop: C clients, each sending its next request when the "
                                                   "last one finishes")
      ->check(above_zero());
  cmd->add_option("--trace", o->trace, "arrivals from a CSV of arrival_s,input_tokens,output_tokens rows");
  cmd->add_flag("--offline", o->offline, "every request queued at t = 0 (maximum throughput)");
  cmd->add_option("--isl", o->isl, "input tokens: N, or LO..HI drawn uniformly")->capture_default_str();
  cmd->add_option("--osl", o->osl, "output tokens: N, or LO..HI drawn uniformly")->capture_default_str();
  cmd->add_option("--requests", o->requests, "stop arrivals after N requests")->check(above_zero());
  cmd->add_option("--duration", o->duration, "stop arrivals at this time, seconds (not with --offline)");
  cmd->add_option("--seed", o->seed, "seed of the random arrivals and lengths")->capture_default_str();
  cmd->add_option("--router", o->router, "how a request picks its replica")
      ->check(CLI::IsMember(enum_names(ServeRouter::round_robin, ServeRouter::least_loaded)))
      ->capture_default_str();
  cmd->add_option("--slo-ttft", o->slo_ttft, "goodput: longest time to first token, seconds (or 200ms)");
  cmd->add_option("--slo-tpot", o->slo_tpot, "goodput: longest mean time per output token, seconds (or 50ms)");
  cmd->add_flag("--steady-state", o->steady_state,
                "print the closed-form offline steady state instead of simulating (--offline, fixed --isl and --osl)");
  cmd->add_option("--prefill", o->prefill,
                  "disaggregated: the prefill pool, NxtpT or NxtpTppP (N replicas of T x P GPUs); with --decode");
  cmd->add_option("--decode", o->decode, "disaggregated: the decode pool, NxtpT or NxtpTppP; with --prefill");
  cmd->add_option("--layouts", o->layouts,
                  "simulate every aggregated and disaggregated way to use this many GPUs (tp 1-8) and rank them by "
                  "goodput per GPU")
      ->check(above_zero());
  cmd->add_option("--trace-out", o->trace_out, "write every iteration as a Chrome/Perfetto timeline (JSON)");
  add_output_options(*cmd, o->output);
  cmd->callback([o, cmd] { run(*o, *cmd); });
}

}  // namespace rapidllm::cli
