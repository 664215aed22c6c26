// nanotron_h100.csv rows -> cases: the out-of-memory verdict of every Success and OOM row,
// and for Success rows the measured peaks (allocated, reserved) and tokens/s per GPU on a
// network re-scaled to the row's own measured all-reduce bandwidths (nanotron_rows.hpp).
// Sources are per model size ("nanotron-1.34G") so that each size's accuracy and rank
// correlation stand on their own.
#include <filesystem>

#include <fmt/format.h>

#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"
#include "validate/cases.hpp"
#include "validate/device_map.hpp"
#include "validate/nanotron_rows.hpp"
#include "validate/nanotron_stack.hpp"

namespace rapidllm::validate {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

CaseResult base(const NanotronRow& r, const char* kind, const char* metric) {
  CaseResult c;
  c.row_id = fmt::format("NT{:04d}", r.index);
  c.source = "nanotron-" + r.size;
  c.kind = kind;
  c.metric = metric;
  c.description = nanotron_plan(r);
  return c;
}

void fail_all(std::vector<CaseResult>& cases, const std::string& reason) {
  for (auto& c : cases) {
    c.status = CaseStatus::failed;
    c.reason = reason;
  }
}

// The row's cases: the verdict first, then a Success row's measured quantities.
std::vector<CaseResult> row_cases(const NanotronRow& r, const HardwareSpec& h100, PredictionCache& cache) {
  std::vector<CaseResult> cases;
  cases.reserve(4);  // `verdict` stays valid as the others are added
  cases.push_back(base(r, "memory", "oom_verdict"));
  CaseResult& verdict = cases.front();
  verdict.verdict = true;
  if (r.status == NanotronStatus::other) {
    verdict.reason = "status Other: the run failed for another reason than memory";
    return cases;
  }
  verdict.measured = r.status == NanotronStatus::oom ? 1.0 : 0.0;
  const bool success = r.status == NanotronStatus::success;
  if (success && r.allocated_gib > 0.0) cases.push_back(base(r, "memory", "peak_allocated_bytes"));
  if (success && r.reserved_gib > 0.0) cases.push_back(base(r, "memory", "peak_reserved_bytes"));
  if (success && r.tokens_per_s_per_gpu > 0.0) cases.push_back(base(r, "training", "tokens_per_s_per_gpu"));

  Scenario s = nanotron_scenario(r, h100);
  std::string reason;
  const bool timed = cases.back().metric == "tokens_per_s_per_gpu";
  if (timed && !nanotron_network(r, s.hardware, reason)) {
    cases.back().reason = reason;
    cases.back().status = CaseStatus::skipped;
  }
  try {
    // A failed run's memory needs no step time: predict_memory sizes the peak rank alone.
    const Result result = success ? predict(s, {.cache = &cache, .exports = {}}) : predict_memory(s);
    if (!result.ok()) {
      fail_all(cases, result.message);
      return cases;
    }
    const auto& p = std::get<TrainingPrediction>(result.prediction);
    const int zero = r.dp > 1 ? r.zero_stage : 0;
    const double token_hidden = static_cast<double>(r.micro_batch_size) * r.seq_len * static_cast<double>(r.hidden);
    const NanotronMemory peak = nanotron_memory(p.memory, r.dp, zero, token_hidden);
    verdict.predicted = peak.device_bytes > p.memory.capacity_bytes ? 1.0 : 0.0;
    verdict.status = CaseStatus::compared;
    // The need and what the allocator's reservation is made of, for
    // scripts/fit_nanotron_allocator.py.
    verdict.description += fmt::format(
        ": needs {:.3f} GiB of {:.0f} ({:.3f} GiB reserved by PyTorch; allocated {:.3f} long-lived + {:.3f} transient, "
        "step {:.3f})",
        peak.device_bytes / kGiB, p.memory.capacity_bytes / kGiB, peak.reserved / kGiB,
        (peak.forward_backward_allocated - peak.transient) / kGiB, peak.transient / kGiB,
        peak.optimizer_step_allocated / kGiB);
    if (!success) return cases;
    // The columns are rank 0's: the first pipeline stage.
    const NanotronMemory first = nanotron_memory(p.stage_memory.front(), r.dp, zero, token_hidden);
    for (auto& c : cases) {
      if (c.metric == "peak_allocated_bytes") {
        c.measured = r.allocated_gib * kGiB;
        c.predicted = first.optimizer_step_allocated;
      } else if (c.metric == "peak_reserved_bytes") {
        c.measured = r.reserved_gib * kGiB;
        c.predicted = first.reserved;
      } else if (c.metric == "tokens_per_s_per_gpu") {
        if (!c.reason.empty()) continue;  // no measured network
        c.measured = r.tokens_per_s_per_gpu;
        c.predicted = p.tokens_per_s / p.num_gpus;
      } else {
        continue;
      }
      c.status = CaseStatus::compared;
    }
  } catch (const ConfigError& e) {  // a plan the models do not cover
    fail_all(cases, e.what());
  } catch (const InfeasibleError& e) {  // a plan the network cannot lay out
    fail_all(cases, e.what());
  }
  return cases;
}

// The benchmark's cluster: the shipped H100 file with the cluster's inter-node step.
HardwareSpec nanotron_device(const CaseInputs& in) {
  std::string reason;
  auto h100 = device_for("H100-SXM5-80GB", in.config_dir, in.overrides, reason);
  if (!h100) throw Error("nanotron_h100.csv: " + reason);
  // The cluster's inter-node step needs the file's second dimension (another --configs
  // folder may describe one; its throughput rows are then skipped, nanotron_network).
  if (h100->network.dimensions.size() == 2) {
    h100 = device_for("H100-SXM5-80GB", in.config_dir, nanotron_cluster_overrides(in.overrides), reason);
  }
  return *h100;
}

}  // namespace

std::vector<CaseResult> nanotron_cases(const CaseInputs& in, PredictionCache& cache) {
  std::vector<CaseResult> out;
  const std::string path = in.data_dir + "/nanotron_h100.csv";
  // Another ground-truth folder (--data) need not have the benchmark.
  if (!std::filesystem::exists(path)) return out;
  const HardwareSpec h100 = nanotron_device(in);
  for (const NanotronRow& r : read_nanotron_rows(path)) {
    if (!in.wanted("nanotron-" + r.size)) continue;
    for (auto& c : row_cases(r, h100, cache)) out.push_back(std::move(c));
  }
  return out;
}

std::optional<Scenario> nanotron_row_scenario(const CaseInputs& in, const std::string& row_id) {
  const std::string path = in.data_dir + "/nanotron_h100.csv";
  if (!std::filesystem::exists(path)) return std::nullopt;
  for (const NanotronRow& r : read_nanotron_rows(path)) {
    const CaseResult named = base(r, "training", "tokens_per_s_per_gpu");
    if (named.row_id != row_id) continue;
    Scenario s = nanotron_scenario(r, nanotron_device(in));
    std::string reason;
    if (!nanotron_network(r, s.hardware, reason)) {
      throw InfeasibleError(fmt::format("{} cannot be modelled: {}", row_id, reason));
    }
    s.model_file = fmt::format("{} (nanotron-{} {})", row_id, r.size, named.description);
    return s;
  }
  return std::nullopt;
}

}  // namespace rapidllm::validate
