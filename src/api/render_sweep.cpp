// Sweep reports: a table of the best points and the Pareto front, one CSV row per point
// (fixed columns whatever the plan), or JSON with everything.
#include <algorithm>
#include <map>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "api/csv_schemas.hpp"
#include "api/json_text.hpp"
#include "parallel/pipeline_schedule.hpp"
#include "rapidllm/report.hpp"
#include "rapidllm/version.hpp"

namespace rapidllm {

namespace {

constexpr double kGiB = 1073741824.0;

nlohmann::json plan_json(const Plan& p) {
  return {{"tp", p.tp}, {"sp", p.sp}, {"cp", p.cp}, {"ep", p.ep}, {"pp", p.pp}, {"dp", p.dp},
          {"schedule", to_string(p.schedule)}, {"vpp", p.vpp}, {"micro_batch_size", p.micro_batch_size},
          {"zero_stage", p.zero_stage}, {"recompute", to_string(p.recompute)}, {"placement", placement_name(p)}};
}

// Whether the point was timed: training plans that do not fit are pruned before timing.
bool timed(const SweepPoint& p, RunType run) {
  if (p.status == PointStatus::invalid || p.status == PointStatus::infeasible) return false;
  return !(run == RunType::training && p.status == PointStatus::does_not_fit);
}

nlohmann::json point_json(const SweepPoint& p, const SweepResult& r) {
  nlohmann::json varied = nlohmann::json::object();
  for (std::size_t k = 0; k < r.varied_keys.size(); ++k) varied[r.varied_keys[k]] = p.varied[k];
  nlohmann::json j = {{"index", p.index}, {"varied", varied}, {"plan", plan_json(p.plan)},
                      {"status", to_string(p.status)}, {"reason", p.reason}};
  if (p.status == PointStatus::invalid || p.status == PointStatus::infeasible) return j;
  j["peak_memory_bytes"] = p.peak_memory_bytes;
  j["memory_capacity_bytes"] = p.memory_capacity_bytes;
  j["fits_in_memory"] = p.peak_memory_bytes <= p.memory_capacity_bytes;
  if (!timed(p, r.run_type)) return j;
  j["time_s"] = p.time_s;
  j["tokens_per_s"] = p.tokens_per_s;
  j["tokens_per_s_per_gpu"] = p.tokens_per_s_per_gpu;
  if (r.run_type == RunType::training) {
    j["mfu"] = p.mfu;
  } else {
    j["ttft_s"] = p.ttft_s;
    j["tpot_s"] = p.tpot_s;
    j["tokens_per_s_per_user"] = p.tokens_per_s_per_user;
  }
  j["energy_j"] = p.energy_j;
  if (p.refined_time_s) j["refined_time_s"] = *p.refined_time_s;
  return j;
}

nlohmann::json summary_json(const SweepResult& r) {
  std::map<std::string, std::int64_t> by_status;
  for (const auto& [status, n] : r.by_status) by_status[std::string(to_string(status))] = n;
  return {{"run_type", r.run_type == RunType::training ? "training" : "inference"},
          {"points", r.total},
          {"evaluated", r.evaluated},
          {"by_status", by_status}};
}

std::string plan_text(const Plan& p, RunType run) {
  std::string s = fmt::format("tp{}{} cp{} ep{} pp{} {}{}", p.tp, p.sp ? "+sp" : "", p.cp, p.ep, p.pp,
                              run == RunType::training ? "dp" : "x", p.dp);
  if (run == RunType::training) {
    s += fmt::format(" {}{} mbs{} zero{} rc:{}", to_string(p.schedule),
                     parallel::schedule_of(p.schedule).interleaves() ? fmt::format("(v{})", p.vpp) : "",
                     p.micro_batch_size, p.zero_stage, to_string(p.recompute));
  }
  if (p.placed) s += " order:" + placement_name(p);
  return s;
}

std::string rows(const SweepResult& r, const std::vector<SweepPoint>& which) {
  const bool training = r.run_type == RunType::training;
  std::string out = fmt::format("{:>4}  {:<62}", "#", "plan");
  for (const auto& k : r.varied_keys) out += fmt::format("  {:>12}", k.substr(k.rfind('.') + 1));
  out += training ? fmt::format("  {:>11}  {:>12}  {:>6}  {:>10}", "step_s", "tok/s/GPU", "MFU", "mem_GiB")
                  : fmt::format("  {:>11}  {:>12}  {:>10}  {:>10}  {:>10}", "total_s", "tok/s/GPU", "tok/s/user",
                                "TTFT_s", "mem_GiB");
  const bool refined = std::any_of(which.begin(), which.end(), [](const SweepPoint& p) { return p.refined_time_s; });
  if (refined) out += fmt::format("  {:>11}", "simulated_s");
  out += "\n";
  int rank = 0;
  for (const SweepPoint& p : which) {
    out += fmt::format("{:>4}  {:<62}", ++rank, plan_text(p.plan, r.run_type));
    for (const auto& v : p.varied) out += fmt::format("  {:>12}", v);
    out += training ? fmt::format("  {:>11.4g}  {:>12.1f}  {:>5.1f}%  {:>10.1f}", p.time_s, p.tokens_per_s_per_gpu,
                                  100.0 * p.mfu, p.peak_memory_bytes / kGiB)
                    : fmt::format("  {:>11.4g}  {:>12.1f}  {:>10.1f}  {:>10.4g}  {:>10.1f}", p.time_s,
                                  p.tokens_per_s_per_gpu, p.tokens_per_s_per_user, p.ttft_s, p.peak_memory_bytes / kGiB);
    if (refined) out += p.refined_time_s ? fmt::format("  {:>11.4g}", *p.refined_time_s) : fmt::format("  {:>11}", "");
    out += "\n";
  }
  return out;
}

std::string table(const SweepResult& r) {
  std::string counts;
  for (const auto& [status, n] : r.by_status) {
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, to_string(status));
  }
  // No wall time here: the report is the same whatever the machine or --jobs (the command
  // logs the rate).
  std::string out = fmt::format("# rapidllm {} sweep: {} points ({}), {} predicted\n\n", kVersion, r.total, counts,
                                r.evaluated);
  if (r.best.empty()) return out + "no plan runs and fits: see the reasons with --format csv\n";
  out += fmt::format("best {} by throughput per GPU\n", r.best.size()) + rows(r, r.best);
  out += fmt::format("\nPareto front ({}): throughput per GPU vs {}\n", r.pareto.size(),
                     r.run_type == RunType::training ? "memory headroom" : "throughput per user") +
         rows(r, r.pareto);
  return out;
}

}  // namespace

namespace detail {

const std::vector<std::string>& sweep_csv_columns() {
  static const std::vector<std::string> columns{
      "tp",     "sp",      "cp",           "ep",           "pp",     "dp",     "schedule",
      "vpp",    "micro_batch_size",        "zero_stage",   "recompute",      "placement",
      "status", "time_s",  "tokens_per_s", "tokens_per_s_per_gpu", "mfu",    "ttft_s", "tpot_s",
      "peak_memory_bytes", "memory_capacity_bytes", "fits_in_memory", "energy_j", "refined_time_s", "reason"};
  return columns;
}

}  // namespace detail

std::string sweep_csv_header(const std::vector<std::string>& varied_keys) {
  // The index, then one column per varied key, then the fixed columns.
  std::vector<std::string> header{"index"};
  for (const auto& k : varied_keys) header.push_back(k);
  for (const auto& c : detail::sweep_csv_columns()) header.push_back(c);
  return fmt::format("{}\n", fmt::join(header, ","));
}

std::string sweep_csv_row(const SweepPoint& p, RunType run) {
  const bool training = run == RunType::training;
  const bool sized = p.status != PointStatus::invalid && p.status != PointStatus::infeasible;
  const bool measured = timed(p, run);
  const Plan& q = p.plan;
  // One buffer, no field strings: a big sweep writes millions of rows.
  fmt::memory_buffer b;
  const auto out = std::back_inserter(b);
  fmt::format_to(out, FMT_COMPILE("{}"), p.index);
  for (const auto& v : p.varied) fmt::format_to(out, FMT_COMPILE(",{}"), v);
  fmt::format_to(out, FMT_COMPILE(",{},{},{},{},{},{},{},{},{},{},{},{},{}"), q.tp, q.sp, q.cp, q.ep, q.pp, q.dp,
                 to_string(q.schedule), q.vpp, q.micro_batch_size, q.zero_stage, to_string(q.recompute),
                 placement_name(q), to_string(p.status));
  // Numbers in their shortest form that reads back to the same double (--resume).
  const auto number = [&](double v, bool present) {
    if (present) {
      fmt::format_to(out, FMT_COMPILE(",{}"), v);
    } else {
      b.push_back(',');
    }
  };
  number(p.time_s, measured);
  number(p.tokens_per_s, measured);
  number(p.tokens_per_s_per_gpu, measured);
  number(p.mfu, measured && training);
  number(p.ttft_s, measured && !training);
  number(p.tpot_s, measured && !training);
  number(p.peak_memory_bytes, sized);
  number(p.memory_capacity_bytes, sized);
  b.push_back(',');
  if (sized) b.append(std::string_view(p.peak_memory_bytes <= p.memory_capacity_bytes ? "true" : "false"));
  number(p.energy_j, measured);
  number(p.refined_time_s.value_or(0.0), p.refined_time_s.has_value());
  // Reasons may hold commas: quoted, quotes doubled.
  b.append(std::string_view(",\""));
  for (char c : p.reason) {
    if (c == '"') b.push_back('"');
    b.push_back(c);
  }
  b.append(std::string_view("\"\n"));
  return fmt::to_string(b);
}

std::optional<SweepPoint> parse_sweep_csv_row(const std::string& row, std::size_t varied_keys) {
  // Split on commas outside quotes; a quoted field's doubled quotes are one.
  std::vector<std::string> f(1);
  bool quoted = false;
  for (std::size_t i = 0; i < row.size(); ++i) {
    const char c = row[i];
    if (quoted) {
      if (c == '"' && i + 1 < row.size() && row[i + 1] == '"') {
        f.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        f.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      f.emplace_back();
    } else {
      f.back() += c;
    }
  }
  if (quoted || f.size() != 1 + varied_keys + detail::sweep_csv_columns().size()) return std::nullopt;
  SweepPoint p;
  try {
    std::size_t i = 0;
    const auto integer = [&]() { return std::stoll(f.at(i++)); };
    const auto number = [&]() -> std::optional<double> {
      const std::string& v = f.at(i++);
      if (v.empty()) return std::nullopt;
      return std::stod(v);
    };
    p.index = integer();
    for (std::size_t k = 0; k < varied_keys; ++k) p.varied.push_back(f.at(i++));
    Plan& q = p.plan;
    q.tp = static_cast<int>(integer());
    q.sp = f.at(i++) == "true";
    q.cp = static_cast<int>(integer());
    q.ep = static_cast<int>(integer());
    q.pp = static_cast<int>(integer());
    q.dp = static_cast<int>(integer());
    const auto schedule = parse_pipeline_schedule(f.at(i++));
    if (!schedule) return std::nullopt;
    q.schedule = *schedule;
    q.vpp = static_cast<int>(integer());
    q.micro_batch_size = static_cast<int>(integer());
    q.zero_stage = static_cast<int>(integer());
    const auto rc = parse_activation_recompute(f.at(i++));
    if (!rc) return std::nullopt;
    q.recompute = *rc;
    const std::string placement = f.at(i++);
    if (placement != "config") {
      const auto order = parse_placement(placement);
      if (!order) return std::nullopt;
      q.placed = true;
      q.order = *order;
    }
    const std::string status = f.at(i++);
    bool found = false;
    for (auto s : {PointStatus::ok, PointStatus::does_not_fit, PointStatus::invalid, PointStatus::infeasible,
                   PointStatus::over_limit}) {
      if (status == to_string(s)) {
        p.status = s;
        found = true;
      }
    }
    if (!found) return std::nullopt;
    for (double* field : {&p.time_s, &p.tokens_per_s, &p.tokens_per_s_per_gpu, &p.mfu, &p.ttft_s, &p.tpot_s,
                          &p.peak_memory_bytes, &p.memory_capacity_bytes}) {
      *field = number().value_or(0.0);
    }
    ++i;  // fits_in_memory follows from the two above
    p.energy_j = number().value_or(0.0);
    p.refined_time_s = number();
    p.reason = f.at(i++);
    p.tokens_per_s_per_user = p.tpot_s > 0.0 ? 1.0 / p.tpot_s : 0.0;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return p;
}

std::string render_sweep(const SweepResult& result, OutputFormat format) {
  switch (format) {
    case OutputFormat::csv: {
      std::string out = sweep_csv_header(result.varied_keys);
      for (const auto& p : result.points) out += sweep_csv_row(p, result.run_type);
      return out;
    }
    case OutputFormat::json: {
      const auto list = [&](const std::vector<SweepPoint>& points) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& p : points) out.push_back(point_json(p, result));
        return out;
      };
      return detail::json_text({{"version", kVersion},
                                {"schema_version", kSchemaVersion},
                                {"summary", summary_json(result)},
                                {"varied_keys", result.varied_keys},
                                {"best", list(result.best)},
                                {"pareto", list(result.pareto)},
                                {"points", list(result.points)}});
    }
    case OutputFormat::table: break;
  }
  return table(result);
}

}  // namespace rapidllm
