// sweep(): the plan search of `rapidllm sweep`, returning its --format json text (every
// point kept). The plan axes arrive as (axis, [value texts]) pairs and are read as the
// CLI reads --grid AXIS=v1,v2; the varied keys as (key, [value texts]) like --vary KEY=v1,v2.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "arguments.hpp"
#include "bindings.hpp"
#include "callback.hpp"
#include "rapidllm/report.hpp"
#include "rapidllm/sweep.hpp"

namespace py = pybind11;

namespace rapidllm::python {

namespace {

using Axis = std::pair<std::string, std::vector<std::string>>;

[[noreturn]] void bad_grid(const std::string& problem, const std::string& hint = "") {
  bad_argument("sweep", "grid", problem, hint);
}

void add_ints(std::vector<int>& out, const Axis& axis, int lowest, int highest) {
  for (const std::string& v : axis.second) {
    int n = 0;
    try {
      std::size_t used = 0;
      n = std::stoi(v, &used);
      if (used != v.size()) throw std::invalid_argument(v);
    } catch (const std::exception&) {
      bad_grid(fmt::format("{}: '{}' is not an integer", axis.first, v));
    }
    if (n < lowest || n > highest) bad_grid(fmt::format("{} = {} is outside {}..{}", axis.first, n, lowest, highest));
    out.push_back(n);
  }
}

void add_axis(SweepAxes& a, const Axis& axis) {
  const std::string& name = axis.first;
  constexpr int kAny = 1 << 30;
  if (name == "tp") return add_ints(a.tp, axis, 1, kAny);
  if (name == "cp") return add_ints(a.cp, axis, 1, kAny);
  if (name == "ep") return add_ints(a.ep, axis, 1, kAny);
  if (name == "pp") return add_ints(a.pp, axis, 1, kAny);
  if (name == "vpp") return add_ints(a.vpp, axis, 1, kAny);
  if (name == "mbs") return add_ints(a.micro_batch_size, axis, 1, kAny);
  if (name == "zero") return add_ints(a.zero_stage, axis, 0, 3);
  for (const std::string& v : axis.second) {
    if (name == "sp") {
      if (v != "true" && v != "false") bad_grid(fmt::format("sp: '{}' is not true or false", v));
      a.sp.push_back(v == "true");
    } else if (name == "schedule") {
      const auto s = parse_pipeline_schedule(v);
      if (!s) bad_grid(fmt::format("schedule: '{}' is not a pipeline schedule", v), "gpipe, 1f1b, interleaved_1f1b, zero_bubble, dualpipe");
      a.schedule.push_back(*s);
    } else if (name == "recompute") {
      const auto rc = parse_activation_recompute(v);
      if (!rc) bad_grid(fmt::format("recompute: '{}' is not none, selective or full", v));
      a.recompute.push_back(*rc);
    } else if (name == "placement") {
      if (v == "config") {
        a.placement.emplace_back(std::nullopt);
      } else if (const auto order = parse_placement(v)) {
        a.placement.emplace_back(order);
      } else {
        bad_grid(fmt::format("placement: '{}' is not config or an order of tp, cp, ep, pp, dp", v),
                 "e.g. placement=['config', 'tp-cp-ep-dp-pp'] (innermost first)");
      }
    } else {
      const auto best = closest_match(name, {"tp", "sp", "cp", "ep", "pp", "schedule", "vpp", "mbs", "zero", "recompute", "placement"});
      bad_grid(fmt::format("no plan axis '{}'", name),
               best ? fmt::format("did you mean '{}'?", *best)
                    : "axes: tp, sp, cp, ep, pp, schedule, vpp, mbs, zero, recompute, placement");
    }
  }
}

std::string sweep_json(const std::string& hardware, const std::string& model, const std::vector<std::string>& overrides,
                       int gpus, int top, int jobs, const std::vector<Axis>& grid, const std::vector<Axis>& vary,
                       std::optional<double> max_ttft_s, std::optional<double> max_tpot_s, int refine,
                       const std::optional<py::function>& progress) {
  if (gpus < 1) bad_argument("sweep", "gpus", fmt::format("{} is not a positive GPU count", gpus), "");
  if (top < 0) bad_argument("sweep", "top", fmt::format("{} is below 0", top), "");
  if (jobs < 1) bad_argument("sweep", "jobs", fmt::format("{} is not a positive thread count", jobs), "");
  if (refine < 0) bad_argument("sweep", "refine", fmt::format("{} is below 0", refine), "");
  for (const auto& [name, limit] : {std::pair{"max_ttft_s", max_ttft_s}, std::pair{"max_tpot_s", max_tpot_s}}) {
    if (limit && !(*limit > 0.0)) bad_argument("sweep", name, fmt::format("{} is not a time above zero", *limit), "");
  }
  SweepOptions options;
  options.gpus = gpus;
  options.top = top;
  options.jobs = jobs;
  for (const Axis& axis : grid) add_axis(options.axes, axis);
  for (const auto& [key, values] : vary) {
    if (values.empty()) bad_argument("sweep", "vary", fmt::format("'{}' has no values", key), "give a list of values");
    options.vary.push_back(SweepVary{key, values});
  }
  options.max_ttft_s = max_ttft_s;
  options.max_tpot_s = max_tpot_s;
  options.refine = refine;
  options.keep_points = true;
  options.progress = with_gil<std::int64_t, std::int64_t>(progress);
  const py::gil_scoped_release unlocked;
  return render_sweep(sweep(hardware, model, overrides, options), OutputFormat::json);
}

}  // namespace

void bind_sweep(py::module_& m) {
  m.def("sweep", &sweep_json, py::arg("hardware"), py::arg("model"), py::arg("overrides"), py::arg("gpus"),
        py::arg("top"), py::arg("jobs"), py::arg("grid"), py::arg("vary"), py::arg("max_ttft_s"),
        py::arg("max_tpot_s"), py::arg("refine"), py::arg("progress"),
        "A plan search as `rapidllm sweep --format json` prints it.");
}

}  // namespace rapidllm::python
