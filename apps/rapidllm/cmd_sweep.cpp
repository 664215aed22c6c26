// rapidllm sweep --hardware HW.yaml --model MODEL.yaml --gpus N [--top K] [--jobs J]
//   [--grid AXIS=v1,v2 ...] [--vary KEY=LO..HI:N | KEY=v1,v2 ...] [--max-ttft S] [--max-tpot S]
//   [--refine K] [--shard i/N] [--resume CSV] [--set a.b=v ...] [--format table|csv|json] [-o FILE]
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cli_common.hpp"
#include "progress_bar.hpp"
#ifdef RAPIDLLM_WITH_MPI
#include "sweep_mpi.hpp"
#endif
#include "rapidllm/error.hpp"
#include "rapidllm/sweep.hpp"

namespace rapidllm::cli {

namespace {

struct SweepCommandOptions {
  std::string hardware;
  std::string model;
  std::vector<std::string> sets;
  std::vector<std::string> grid;
  std::vector<std::string> vary;
  std::string shard;
  std::string resume;
  std::optional<double> max_ttft_s;
  std::optional<double> max_tpot_s;
  SweepOptions sweep;
  OutputOptions output;
};

[[noreturn]] void bad(const std::string& option, const std::string& what, const std::string& hint) {
  throw ConfigError(SourceLocation{}, option, what, hint);
}

std::pair<std::string, std::vector<std::string>> split_assignment(const std::string& text, const std::string& option) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    bad(option, fmt::format("'{}' is not KEY=VALUES", text), option == "--grid" ? "e.g. --grid tp=2,4,8" : "e.g. --vary tech_param.DRAM.bandwidth=2e12..4e12:5");
  }
  std::vector<std::string> values;
  std::string rest = text.substr(eq + 1);
  for (std::size_t start = 0;;) {
    const auto comma = rest.find(',', start);
    values.push_back(rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const auto& v : values) {
    if (v.empty()) bad(option, fmt::format("'{}' has an empty value", text), "separate values with single commas");
  }
  return {text.substr(0, eq), values};
}

int integer(const std::string& v, const std::string& axis) {
  try {
    std::size_t used = 0;
    const int n = std::stoi(v, &used);
    if (used == v.size() && n >= 0) return n;
  } catch (const std::exception&) {
  }
  bad("--grid", fmt::format("{}: '{}' is not a non-negative integer", axis, v), "");
}

void add_grid(SweepAxes& a, const std::string& text) {
  const auto [axis, values] = split_assignment(text, "--grid");
  const auto ints = [&](std::vector<int>& out, int lowest) {
    for (const auto& v : values) {
      const int n = integer(v, axis);
      if (n < lowest) bad("--grid", fmt::format("{} = {} is below {}", axis, n, lowest), "");
      out.push_back(n);
    }
  };
  if (axis == "tp") return ints(a.tp, 1);
  if (axis == "cp") return ints(a.cp, 1);
  if (axis == "ep") return ints(a.ep, 1);
  if (axis == "pp") return ints(a.pp, 1);
  if (axis == "vpp") return ints(a.vpp, 1);
  if (axis == "mbs") return ints(a.micro_batch_size, 1);
  if (axis == "zero") {
    ints(a.zero_stage, 0);
    for (int z : a.zero_stage) {
      if (z > 3) bad("--grid", fmt::format("zero = {}: ZeRO stages are 0-3", z), "");
    }
    return;
  }
  for (const auto& v : values) {
    if (axis == "sp") {
      if (v != "true" && v != "false") bad("--grid", fmt::format("sp: '{}' is not true or false", v), "");
      a.sp.push_back(v == "true");
    } else if (axis == "schedule") {
      const auto s = parse_pipeline_schedule(v);
      if (!s) bad("--grid", fmt::format("schedule: '{}' is not a pipeline schedule", v), "gpipe, 1f1b, interleaved_1f1b, zero_bubble, dualpipe");
      a.schedule.push_back(*s);
    } else if (axis == "placement") {
      if (v == "config") {
        a.placement.emplace_back(std::nullopt);
      } else if (const auto order = parse_placement(v)) {
        a.placement.emplace_back(order);
      } else {
        bad("--grid", fmt::format("placement: '{}' is not config or an order of tp, cp, ep, pp, dp", v),
            "e.g. placement=config,tp-cp-ep-dp-pp (innermost first)");
      }
    } else if (axis == "recompute") {
      const auto rc = parse_activation_recompute(v);
      if (!rc) bad("--grid", fmt::format("recompute: '{}' is not none, selective or full", v), "");
      a.recompute.push_back(*rc);
    } else {
      bad("--grid", fmt::format("no plan axis '{}'", axis), "axes: tp, sp, cp, ep, pp, schedule, vpp, mbs, zero, recompute, placement");
    }
  }
}

// KEY=LO..HI:N (N values evenly spaced, ends included; LO and HI may carry the same unit)
// or KEY=v1,v2,... (any values --set accepts).
SweepVary parse_vary(const std::string& text) {
  const auto eq = text.find('=');
  const auto dots = text.find("..", eq == std::string::npos ? 0 : eq);
  if (eq == std::string::npos || dots == std::string::npos) {
    auto [key, values] = split_assignment(text, "--vary");
    return {key, values};
  }
  const std::string key = text.substr(0, eq);
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon < dots) bad("--vary", fmt::format("'{}': a range needs :N points", text), "e.g. KEY=1e12..4e12:4");
  const auto number_and_unit = [&](const std::string& s) {
    std::size_t used = 0;
    double v = 0.0;
    try {
      v = std::stod(s, &used);
    } catch (const std::exception&) {
      bad("--vary", fmt::format("'{}' in '{}' is not a number", s, text), "a range takes numbers; list other values with commas");
    }
    std::string unit = s.substr(used);
    while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
    return std::make_pair(v, unit);
  };
  const auto [lo, lo_unit] = number_and_unit(text.substr(eq + 1, dots - eq - 1));
  const auto [hi, hi_unit] = number_and_unit(text.substr(dots + 2, colon - dots - 2));
  if (lo_unit != hi_unit) bad("--vary", fmt::format("'{}': the ends have different units", text), "give both ends in one unit");
  int n = 0;
  try {
    n = std::stoi(text.substr(colon + 1));
  } catch (const std::exception&) {
  }
  if (n < 1 || n > kMaxSweepVariants) {
    bad("--vary", fmt::format("'{}': the point count must be an integer from 1 to {}", text, kMaxSweepVariants),
        "a sweep loads at most that many variants of the hardware/model");
  }
  SweepVary v{key, {}};
  for (int i = 0; i < n; ++i) {
    const double x = n == 1 ? lo : lo + (hi - lo) * i / (n - 1);
    v.values.push_back(fmt::format("{:.10g}{}{}", x, lo_unit.empty() ? "" : " ", lo_unit));
  }
  return v;
}

void parse_shard(const std::string& text, SweepOptions& o) {
  const auto slash = text.find('/');
  try {
    if (slash != std::string::npos) {
      o.shard_index = std::stoi(text.substr(0, slash));
      o.shard_count = std::stoi(text.substr(slash + 1));
      return;
    }
  } catch (const std::exception&) {
  }
  bad("--shard", fmt::format("'{}' is not i/N", text), "e.g. --shard 0/4 for the first of four parts");
}

// The points of an earlier run's CSV (complete lines only: an interrupted run's last line
// may be cut), which must have this sweep's columns.
std::vector<SweepPoint> read_resume(const std::string& path, const std::vector<std::string>& keys) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad("--resume", fmt::format("cannot read '{}'", path), "give the CSV an earlier sweep wrote (-o FILE, or FILE.partial when it was cut off)");
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  const std::string header = sweep_csv_header(keys);
  if (all.compare(0, header.size(), header) != 0) {
    bad("--resume", fmt::format("'{}' does not start with this sweep's CSV header", path),
        "resume with the same --vary keys and --format csv as the run that wrote it");
  }
  std::vector<SweepPoint> points;
  std::size_t line = 2;
  for (std::size_t start = header.size(); start < all.size(); ++line) {
    const auto end = all.find('\n', start);
    if (end == std::string::npos) break;  // a cut-off last line: evaluated again
    auto p = parse_sweep_csv_row(all.substr(start, end - start), keys.size());
    if (!p) bad("--resume", fmt::format("{}:{}: not a sweep CSV row", path, line), "");
    points.push_back(std::move(*p));
    start = end + 1;
  }
  return points;
}

// The shared bar (progress_bar.hpp) counting points, shown once a sweep has run 2 s.
std::function<void(std::int64_t, std::int64_t)> sweep_progress() {
  auto bar = progress_bar("points", kProgressDelayS);
  if (!bar) return {};
  return [bar](std::int64_t done, std::int64_t total) { bar(static_cast<double>(done), static_cast<double>(total)); };
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepCommandOptions>();
  CLI::App* cmd = app.add_subcommand("sweep", "search the parallel plans (and config variants) of a model on N GPUs");
  cmd->add_option("--hardware", o->hardware, "hardware YAML (RAPID-LLM schema)")->required();
  cmd->add_option("--model", o->model, "model YAML (RAPID-LLM schema)")->required();
  cmd->add_option("--gpus", o->sweep.gpus, "GPUs every plan uses")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--top", o->sweep.top, "how many best points to rank (default 10)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--jobs", o->sweep.jobs, "worker threads (default 1; the output does not depend on it)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--grid", o->grid,
                  "plan axis values, e.g. tp=2,4,8 (axes: tp, sp, cp, ep, pp, schedule, vpp, mbs, zero, recompute, "
                  "placement: config or an order such as tp-cp-ep-dp-pp, innermost first)");
  cmd->add_option("--vary", o->vary, "a config key over a range KEY=LO..HI:N or a list KEY=v1,v2 (repeatable: crossed)");
  cmd->add_option("--max-ttft", o->max_ttft_s, "inference: longest time to first token, seconds")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-tpot", o->max_tpot_s, "inference: longest mean time per output token, seconds")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--refine", o->sweep.refine, "re-predict the best K with the simulated step (full_astrasim_hierarchical)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--shard", o->shard, "evaluate part i of N (points with index % N == i), e.g. 0/4");
  cmd->add_option("--resume", o->resume, "take the points of an earlier run's CSV (e.g. its FILE.partial) as done");
  add_set_option(*cmd, o->sets);
  add_output_options(*cmd, o->output);
  cmd->callback([o] {
    for (const auto& g : o->grid) add_grid(o->sweep.axes, g);
    for (const auto& v : o->vary) o->sweep.vary.push_back(parse_vary(v));
    if (!o->shard.empty()) parse_shard(o->shard, o->sweep);
    std::vector<std::string> keys;
    for (const auto& v : o->sweep.vary) keys.push_back(v.key);
    if (!o->resume.empty()) o->sweep.known = read_resume(o->resume, keys);
    o->sweep.max_ttft_s = o->max_ttft_s;
    o->sweep.max_tpot_s = o->max_tpot_s;
    o->sweep.progress = sweep_progress();
    const OutputFormat format = format_of(o->output);
#ifdef RAPIDLLM_WITH_MPI
    if (mpi_ranks() > 1) {
      const auto merged = mpi_sweep(o->hardware, o->model, o->sets, o->sweep);
      if (!merged) return;  // not rank 0
      spdlog::info("{} points ({} predicted) on {} MPI ranks", merged->total, merged->evaluated, mpi_ranks());
      write_output(render_sweep(*merged, format), o->output.path);
      return;
    }
#endif
    // CSV streams one row per point (memory bounded however big the space) unless --refine
    // must add the simulated times to the best rows afterwards; the table keeps only the
    // best points and the front; JSON keeps every point.
    std::optional<StreamedOutput> csv;
    bool header = false;  // written with the first row: a config error prints nothing
    if (format == OutputFormat::csv && o->sweep.refine == 0) {
      csv.emplace(o->output.path);
      o->sweep.keep_points = false;
      o->sweep.on_point = [&](const SweepPoint& p, RunType run) {
        if (!header) csv->write(sweep_csv_header(keys));
        header = true;
        csv->write(sweep_csv_row(p, run));
      };
    } else {
      o->sweep.keep_points = format != OutputFormat::table;
    }
    const SweepResult r = sweep(o->hardware, o->model, o->sets, o->sweep);
    spdlog::info("{} points ({} predicted) in {:.3g} s: {:.0f} points/s on {} thread(s)", r.total, r.evaluated,
                 r.seconds, r.seconds > 0 ? static_cast<double>(r.total) / r.seconds : 0.0, o->sweep.jobs);
    if (csv) {
      if (!header) csv->write(sweep_csv_header(keys));
      csv->commit();
    } else {
      write_output(render_sweep(r, format), o->output.path);
    }
  });
}

}  // namespace rapidllm::cli
