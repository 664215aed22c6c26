// serve(): `rapidllm serve --format json`, a request-level serving simulation (or, with
// steady_state, the closed-form offline maximum). The arguments are the CLI's options,
// checked the same way: exactly one arrival kind, options that do not apply refused.
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "arguments.hpp"
#include "bindings.hpp"
#include "rapidllm/report.hpp"
#include "rapidllm/serve.hpp"

namespace py = pybind11;

namespace rapidllm::python {

namespace {

using Range = std::tuple<std::int64_t, std::int64_t>;
using Pool = std::tuple<int, int, int>;  // replicas, tp, pp

struct EngineArgs {
  std::string name;
  std::optional<int> max_num_seqs;
  std::optional<std::int64_t> max_num_batched_tokens;
  std::optional<int> block_size;
  std::optional<double> kv_memory_fraction;
  std::optional<bool> chunked_prefill;
  std::optional<std::string> policy;
  std::optional<bool> reserve_full_sequence;
  std::optional<double> iteration_overhead_s;
};

ServeEngine engine_of(const EngineArgs& a) {
  const auto profile = serve_engine_profile(a.name);
  if (!profile) {
    const auto names = serve_engine_profile_names();
    bad_argument("serve", "engine", fmt::format("'{}' is not an engine profile", a.name),
                 fmt::format("the profiles are {}", fmt::join(names, ", ")));
  }
  ServeEngine e = *profile;
  if (a.max_num_seqs) e.max_num_seqs = *a.max_num_seqs;
  if (a.max_num_batched_tokens) e.max_num_batched_tokens = *a.max_num_batched_tokens;
  if (a.block_size) e.block_size = *a.block_size;
  if (a.kv_memory_fraction) e.kv_memory_fraction = *a.kv_memory_fraction;
  if (a.chunked_prefill) e.chunked_prefill = *a.chunked_prefill;
  if (a.policy) e.policy = named("serve", "policy", *a.policy, ServePolicy::decode_first, ServePolicy::prefill_first);
  if (a.reserve_full_sequence) e.reserve_full_sequence = *a.reserve_full_sequence;
  if (a.iteration_overhead_s) e.iteration_overhead_s = *a.iteration_overhead_s;
  return e;  // serve() checks the ranges (options_check), naming the option
}

TokenRange tokens(const char* argument, const Range& r) {
  const auto [lo, hi] = r;
  if (lo < 1 || hi < lo) {
    bad_argument("serve", argument, fmt::format("({}, {}) is not a token count or a range lo <= hi of counts >= 1", lo, hi),
                 fmt::format("e.g. {0}=1024 or {0}=(200, 800)", argument));
  }
  return {lo, hi};
}

ServePool pool(const char* argument, const Pool& p) {
  const auto [replicas, tp, pp] = p;
  if (replicas < 1 || tp < 1 || pp < 1) {
    bad_argument("serve", argument, fmt::format("({}, {}, {}) is not a pool of counts >= 1", replicas, tp, pp),
                 fmt::format("e.g. {}=(2, 4, 1): two replicas of tp 4", argument));
  }
  return {replicas, tp, pp};
}

ServeWorkload workload_of(std::optional<double> rate, std::optional<int> concurrency,
                          const std::optional<std::string>& trace_file, bool offline,
                          const std::optional<Range>& isl, const std::optional<Range>& osl, std::int64_t requests,
                          std::optional<double> duration_s, std::optional<std::uint64_t> seed) {
  const int given = (rate ? 1 : 0) + (concurrency ? 1 : 0) + (trace_file ? 1 : 0) + (offline ? 1 : 0);
  if (given != 1) {
    bad_argument("serve", "rate/concurrency/trace_file/offline",
                 given == 0 ? "no arrival option given" : "more than one arrival option given",
                 "give exactly one: rate=R (Poisson, requests/s), concurrency=C (closed loop), "
                 "trace_file=PATH (arrival_s,input_tokens,output_tokens rows) or offline=True");
  }
  ServeWorkload w;
  if (rate) {
    if (!(*rate > 0.0)) bad_argument("serve", "rate", fmt::format("{} is not a rate above zero", *rate), "");
    w.arrivals = ArrivalKind::poisson;
    w.rate_per_s = *rate;
  } else if (concurrency) {
    if (*concurrency < 1) bad_argument("serve", "concurrency", fmt::format("{} is not >= 1", *concurrency), "");
    w.arrivals = ArrivalKind::concurrency;
    w.concurrency = *concurrency;
  } else if (trace_file) {
    w.arrivals = ArrivalKind::trace;
    w.trace_file = *trace_file;
    if (isl || osl) bad_argument("serve", isl ? "isl" : "osl", "does not apply to trace_file", "the trace gives every request's lengths");
  } else {
    w.arrivals = ArrivalKind::offline;
    if (duration_s) bad_argument("serve", "duration_s", "does not apply to offline", "every request arrives at t = 0: give requests=N");
  }
  if (isl) w.input = tokens("isl", *isl);
  if (osl) w.output = tokens("osl", *osl);
  if (requests < 0) bad_argument("serve", "requests", fmt::format("{} is below 0", requests), "");
  w.requests = requests;
  if (duration_s) {
    if (!(*duration_s > 0.0)) bad_argument("serve", "duration_s", fmt::format("{} is not a time above zero", *duration_s), "");
    w.duration_s = *duration_s;
  }
  if (seed) {
    w.seed = *seed;
    if (!serve_workload_is_random(w)) {
      bad_argument("serve", "seed", "nothing is drawn at random: the arrivals and the lengths are fixed",
                   "drop seed, or give rate=, or a range such as isl=(200, 800)");
    }
  }
  return w;
}

std::string serve_json(const Scenario& scenario, const EngineArgs& engine, const ServeWorkload& workload,
                       const std::string& router, std::optional<double> slo_ttft_s, std::optional<double> slo_tpot_s,
                       const std::optional<Pool>& prefill, const std::optional<Pool>& decode, bool steady_state,
                       bool keep_requests, const std::string& trace_out) {
  ServeOptions o;
  o.engine = engine_of(engine);
  o.workload = workload;
  o.router = named("serve", "router", router, ServeRouter::round_robin, ServeRouter::least_loaded);
  for (const auto& [name, slo] : {std::pair{"slo_ttft_s", slo_ttft_s}, std::pair{"slo_tpot_s", slo_tpot_s}}) {
    if (slo && !(*slo > 0.0)) bad_argument("serve", name, fmt::format("{} is not a time above zero", *slo), "");
  }
  o.slo_ttft_s = slo_ttft_s;
  o.slo_tpot_s = slo_tpot_s;
  if (prefill.has_value() != decode.has_value()) {
    bad_argument("serve", prefill ? "decode" : "prefill", "disaggregated serving needs both pools",
                 "give prefill=(replicas, tp, pp) and decode=(replicas, tp, pp) together, or neither");
  }
  if (prefill) o.disaggregated = Disaggregation{pool("prefill", *prefill), pool("decode", *decode)};
  o.record_iterations = !trace_out.empty();
  o.keep_requests = keep_requests;
  if (steady_state) {
    if (workload.arrivals != ArrivalKind::offline) {
      bad_argument("serve", "steady_state", "is the offline maximum throughput: it takes no arrival rate, clients or trace",
                   "give offline=True, or drop steady_state to simulate");
    }
    if (o.disaggregated) bad_argument("serve", "prefill/decode", "the steady state is an aggregated engine's", "drop steady_state to simulate the pools");
    if (o.record_iterations) bad_argument("serve", "trace_out", "the closed form runs no iterations", "drop it, or drop steady_state");
    const py::gil_scoped_release unlocked;
    return render_serve_steady_state(serve_steady_state(scenario, o), scenario, o, OutputFormat::json);
  }
  const py::gil_scoped_release unlocked;
  const ServeResult result = serve(scenario, o);
  // Both rendered before either is written, as the CLI does.
  std::string report = render_serve(result, scenario, o, OutputFormat::json);
  if (!trace_out.empty()) write_output(render_serve_trace(result), trace_out);
  return report;
}

}  // namespace

void bind_serve(py::module_& m) {
  py::class_<EngineArgs>(m, "_EngineArgs")
      .def(py::init<>())
      .def_readwrite("name", &EngineArgs::name)
      .def_readwrite("max_num_seqs", &EngineArgs::max_num_seqs)
      .def_readwrite("max_num_batched_tokens", &EngineArgs::max_num_batched_tokens)
      .def_readwrite("block_size", &EngineArgs::block_size)
      .def_readwrite("kv_memory_fraction", &EngineArgs::kv_memory_fraction)
      .def_readwrite("chunked_prefill", &EngineArgs::chunked_prefill)
      .def_readwrite("policy", &EngineArgs::policy)
      .def_readwrite("reserve_full_sequence", &EngineArgs::reserve_full_sequence)
      .def_readwrite("iteration_overhead_s", &EngineArgs::iteration_overhead_s);
  py::class_<ServeWorkload>(m, "_ServeWorkload");
  m.def("serve_workload", &workload_of, py::arg("rate"), py::arg("concurrency"), py::arg("trace_file"),
        py::arg("offline"), py::arg("isl"), py::arg("osl"), py::arg("requests"), py::arg("duration_s"), py::arg("seed"),
        "The checked workload of serve().");
  m.def("serve", &serve_json, py::arg("scenario"), py::arg("engine"), py::arg("workload"), py::arg("router"),
        py::arg("slo_ttft_s"), py::arg("slo_tpot_s"), py::arg("prefill"), py::arg("decode"), py::arg("steady_state"),
        py::arg("keep_requests"), py::arg("trace_out"), "A serving run as `rapidllm serve --format json` prints it.");
  m.def("engine_profiles", &serve_engine_profile_names, "The built-in serving engine profiles.");
}

}  // namespace rapidllm::python
