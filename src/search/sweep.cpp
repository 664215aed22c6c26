// rapidllm::sweep: variants x plans, each point predicted through the facade on a pool of
// `jobs` threads (one PredictionCache each; point i on thread i % jobs, so the results do
// not depend on the thread count), then ranked, the Pareto front taken and the best
// points optionally re-predicted with the simulated step.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iterator>
#include <map>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_set>
#include <thread>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "parallel/pipeline_schedule.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"
#include "rapidllm/scenario.hpp"
#include "rapidllm/sweep.hpp"
#include "search/pareto.hpp"
#include "search/plan_space.hpp"

namespace rapidllm {

std::string placement_name(const Plan& plan) {
  if (!plan.placed) return "config";
  std::string out;
  for (Parallelism p : plan.order) {
    if (!out.empty()) out += '-';
    out += to_string(p);
  }
  return out;
}

std::optional<std::array<Parallelism, 5>> parse_placement(const std::string& name) {
  std::array<Parallelism, 5> order{};
  std::size_t n = 0;
  for (std::size_t start = 0; start <= name.size();) {
    const auto dash = name.find('-', start);
    const std::string part = name.substr(start, dash == std::string::npos ? std::string::npos : dash - start);
    std::optional<Parallelism> p;
    for (Parallelism q : {Parallelism::tp, Parallelism::cp, Parallelism::ep, Parallelism::pp, Parallelism::dp}) {
      if (part == to_string(q)) p = q;
    }
    if (!p || n == order.size() || std::find(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), *p) !=
                                        order.begin() + static_cast<std::ptrdiff_t>(n)) {
      return std::nullopt;
    }
    order[n++] = *p;
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
  if (n != order.size()) return std::nullopt;
  return order;
}

std::string_view to_string(PointStatus s) {
  switch (s) {
    case PointStatus::ok: return "ok";
    case PointStatus::does_not_fit: return "does_not_fit";
    case PointStatus::invalid: return "invalid";
    case PointStatus::infeasible: return "infeasible";
    case PointStatus::over_limit: return "over_limit";
  }
  return "?";
}

namespace {

struct Variant {
  std::vector<std::string> values;  // one per vary key
  Scenario scenario;
  // Shared by consecutive variants with the same plans (a hardware sweep: all of them).
  std::shared_ptr<const std::vector<Plan>> plans;
};

// Every combination of the varied values, the first key varying slowest.
std::vector<std::vector<std::string>> combinations(const std::vector<SweepVary>& vary) {
  std::vector<std::vector<std::string>> out{{}};
  for (const SweepVary& v : vary) {
    std::vector<std::vector<std::string>> next;
    for (const auto& prefix : out) {
      for (const std::string& value : v.values) {
        next.push_back(prefix);
        next.back().push_back(value);
      }
    }
    out = std::move(next);
  }
  return out;
}

// Records the point's memory; false (and status does_not_fit) when it exceeds the GPU's.
bool fits(SweepPoint& p, const MemoryBreakdown& m) {
  p.peak_memory_bytes = m.total_bytes;
  p.memory_capacity_bytes = m.capacity_bytes;
  if (m.total_bytes <= m.capacity_bytes) return true;
  p.status = PointStatus::does_not_fit;
  // GiB to one decimal from integer tenths: every pruned point carries this reason, and
  // fixed-precision float formatting cost nearly as much as the memory model that sized it.
  const auto tenths = [](double bytes) { return std::llround(bytes / 1073741824.0 * 10.0); };
  const long long need = tenths(m.total_bytes);
  const long long have = tenths(m.capacity_bytes);
  fmt::memory_buffer b;
  fmt::format_to(std::back_inserter(b), FMT_COMPILE("needs {}.{} GiB of {}.{} GiB per GPU"), need / 10, need % 10,
                 have / 10, have % 10);
  p.reason.assign(b.data(), b.size());
  return false;
}

void fill_metrics(const Result& r, const SweepOptions& options, SweepPoint& p) {
  if (!r.ok()) {
    p.status = PointStatus::infeasible;
    p.reason = r.message;
    return;
  }
  const MemoryBreakdown* memory = nullptr;
  if (const auto* t = std::get_if<TrainingPrediction>(&r.prediction)) {
    p.time_s = t->step_time_s;
    p.tokens_per_s = t->tokens_per_s;
    p.tokens_per_s_per_gpu = t->tokens_per_s / t->num_gpus;
    p.mfu = t->mfu;
    p.energy_j = t->energy.energy_j;
    memory = &t->memory;
  } else if (const auto* i = std::get_if<InferencePrediction>(&r.prediction)) {
    p.time_s = i->total_time_s;
    p.tokens_per_s = i->decode_tokens_per_s;
    p.tokens_per_s_per_gpu = i->decode_tokens_per_s / i->num_gpus;
    p.ttft_s = i->prefill_time_s;
    p.tpot_s = i->tpot.mean_s;
    p.tokens_per_s_per_user = i->tpot.mean_s > 0.0 ? 1.0 / i->tpot.mean_s : 0.0;
    p.energy_j = i->energy.energy_j;
    memory = &i->memory;
  }
  if (!fits(p, *memory)) return;
  if (options.max_ttft_s && p.ttft_s > *options.max_ttft_s) {
    p.status = PointStatus::over_limit;
    p.reason = fmt::format("time to first token {:.4g} s > {:.4g} s", p.ttft_s, *options.max_ttft_s);
  } else if (options.max_tpot_s && p.tpot_s > *options.max_tpot_s) {
    p.status = PointStatus::over_limit;
    p.reason = fmt::format("time per output token {:.4g} s > {:.4g} s", p.tpot_s, *options.max_tpot_s);
  }
}

// A plan's notes (predict's plan_notes) read the same for every point with its pipeline
// chunks and micro-batching: an uneven layer split depends on the chunk count, padded
// micro-batches on dp, ep and the micro-batch size, padded routed tokens on ep (and all on
// the variant's model: a worker starts afresh on each variant). Each worker says them once
// per such key instead of formatting them for every point (the command line prints each
// text once anyway).
class SaidNotes {
 public:
  bool first_time(const Plan& p) {
    const int chunks = p.pp * parallel::schedule_of(p.schedule).virtual_stages(p.vpp);
    return said_.insert({chunks, p.dp, p.ep, p.micro_batch_size}).second;
  }

 private:
  using Key = std::array<int, 4>;
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::size_t h = 0;
      for (int v : k) h = h * 1000003U ^ std::hash<int>{}(v);
      return h;
    }
  };
  std::unordered_set<Key, KeyHash> said_;
};

// The state one worker keeps across its points.
struct Worker {
  PredictionCache cache;
  SaidNotes notes;
};

// One point: the cheap rules first, then the prediction with the plan written into `s`
// (every plan field is written, so the previous point's plan leaves no trace).
void evaluate(Scenario& s, const SweepOptions& options, Worker& worker, SweepPoint& p,
              std::atomic<std::int64_t>& evaluated) {
  const auto& model = std::get<LlmModelSpec>(s.model.workload);
  if (auto rule = search::broken_rule(p.plan, model)) {
    p.status = PointStatus::invalid;
    p.reason = std::move(*rule);
    return;
  }
  search::apply_plan(p.plan, model.run_type, s.hardware);
  try {
    // Training: memory first, a plan that does not fit is not timed.
    const bool training = model.run_type == RunType::training;
    const Result memory = training ? predict_memory(s) : Result{};
    if (training) {
      if (!memory.ok()) {
        p.status = PointStatus::infeasible;
        p.reason = memory.message;
        return;
      }
      if (!fits(p, std::get<TrainingPrediction>(memory.prediction).memory)) return;
    }
    evaluated.fetch_add(1, std::memory_order_relaxed);
    const auto* sized = std::get_if<TrainingPrediction>(&memory.prediction);
    const PredictOptions predict_options{.cache = &worker.cache,
                                         .exports = {},
                                         .stage_memory = false,
                                         .known_memory = sized != nullptr ? &sized->memory : nullptr,
                                         .plan_notes = worker.notes.first_time(p.plan)};
    fill_metrics(predict(s, predict_options), options, p);
  } catch (const Error& e) {  // a combination the config cannot describe
    p.status = PointStatus::invalid;
    p.reason = e.what();
  }
}

// Higher throughput first (per GPU for inference: the GPU count is fixed, the replicas
// are not), then the earlier point.
bool better(const SweepPoint& a, const SweepPoint& b) {
  if (a.tokens_per_s_per_gpu != b.tokens_per_s_per_gpu) return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
  return a.index < b.index;
}

// Keeps the best `top` ok points, best first.
void add_to_best(std::vector<SweepPoint>& best, const SweepPoint& p, int top) {
  if (top <= 0) return;
  if (static_cast<int>(best.size()) == top && !better(p, best.back())) return;
  best.insert(std::upper_bound(best.begin(), best.end(), p, better), p);
  if (static_cast<int>(best.size()) > top) best.pop_back();
}

// Points are evaluated a chunk at a time by every worker and handed on in order.
constexpr std::int64_t kChunk = 4096;

}  // namespace

SweepResult sweep(const std::string& hardware_path, const std::string& model_path,
                  const std::vector<std::string>& overrides, const SweepOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (options.gpus < 1) throw ConfigError(SourceLocation{}, "--gpus", "the GPU count must be >= 1", "e.g. --gpus 512");
  if (options.shard_count < 1 || options.shard_index < 0 || options.shard_index >= options.shard_count) {
    throw ConfigError(SourceLocation{}, "--shard", fmt::format("shard {}/{} does not exist", options.shard_index,
                                                               options.shard_count),
                      "give i/N with 0 <= i < N");
  }
  SweepResult out;
  for (const SweepVary& v : options.vary) out.varied_keys.push_back(v.key);
  double variant_count = 1.0;
  for (const SweepVary& v : options.vary) variant_count *= static_cast<double>(v.values.size());
  if (variant_count > static_cast<double>(kMaxSweepVariants)) {
    throw ConfigError(SourceLocation{}, "--vary",
                      fmt::format("{:.4g} hardware/model variants, more than the {} a sweep loads", variant_count,
                                  kMaxSweepVariants),
                      "fewer points per --vary range, or several sweeps over parts of it");
  }
  std::vector<Variant> variants;
  // first[v]: the index of variant v's first point.
  std::vector<std::int64_t> first{0};
  for (auto& values : combinations(options.vary)) {
    std::vector<std::string> sets = overrides;
    for (std::size_t k = 0; k < values.size(); ++k) sets.push_back(options.vary[k].key + "=" + values[k]);
    Variant v{std::move(values), load_scenario(hardware_path, model_path, sets), {}};
    const auto* model = std::get_if<LlmModelSpec>(&v.scenario.model.workload);
    if (model == nullptr) {
      throw ConfigError(SourceLocation{model_path, 0, 0, {}}, "model_param.mode", "a sweep needs an LLM model",
                        "GEMM workloads have no parallel plan to search");
    }
    out.run_type = model->run_type;
    auto plans = search::enumerate_plans(search::complete_axes(options.axes, *model, options.gpus), options.gpus);
    v.plans = !variants.empty() && *variants.back().plans == plans
                  ? variants.back().plans
                  : std::make_shared<const std::vector<Plan>>(std::move(plans));
    first.push_back(first.back() + static_cast<std::int64_t>(v.plans->size()));
    variants.push_back(std::move(v));
  }
  const std::int64_t all = first.back();
  const std::int64_t shard = options.shard_index;
  const std::int64_t step = options.shard_count;
  out.total = all > shard ? (all - shard + step - 1) / step : 0;
  const auto variant_of = [&](std::int64_t index) {
    return static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), index) - first.begin() - 1);
  };

  const int jobs = std::max(1, options.jobs);
  std::vector<Worker> workers(static_cast<std::size_t>(jobs));
  // Each worker plays its current variant's scenario with the plan written in: one copy
  // per variant it reaches, not one per point.
  struct Current {
    std::size_t variant = SIZE_MAX;
    std::optional<Scenario> scenario;
    bool placed = false;  // its network dimensions were re-ordered by a plan's placement
  };
  std::vector<Current> current(static_cast<std::size_t>(jobs));
  std::atomic<std::int64_t> evaluated{0};
  std::map<std::int64_t, const SweepPoint*> known;
  for (const SweepPoint& p : options.known) known.emplace(p.index, &p);
  std::vector<SweepPoint> chunk;
  if (options.keep_points) out.points.reserve(static_cast<std::size_t>(out.total));
  for (std::int64_t begin = 0; begin < out.total; begin += kChunk) {
    const std::int64_t n = std::min(kChunk, out.total - begin);
    chunk.clear();
    chunk.resize(static_cast<std::size_t>(n));  // built in place, not copied from a blank point
    const auto work = [&](int worker) {
      for (std::int64_t j = worker; j < n; j += jobs) {
        SweepPoint& p = chunk[static_cast<std::size_t>(j)];
        p.index = shard + (begin + j) * step;
        if (const auto k = known.find(p.index); k != known.end()) {
          p = *k->second;
          continue;
        }
        const std::size_t vi = variant_of(p.index);
        const Variant& v = variants[vi];
        p.varied = v.values;
        p.plan = (*v.plans)[static_cast<std::size_t>(p.index - first[vi])];
        Current& c = current[static_cast<std::size_t>(worker)];
        if (c.variant != vi) {
          c.scenario = v.scenario;
          c.variant = vi;
          c.placed = false;
          workers[static_cast<std::size_t>(worker)].notes = SaidNotes{};
        }
        if (c.placed) c.scenario->hardware.network.dimensions = v.scenario.hardware.network.dimensions;
        c.placed = p.plan.placed;
        evaluate(*c.scenario, options, workers[static_cast<std::size_t>(worker)], p, evaluated);
      }
    };
    std::vector<std::thread> pool;
    for (int w = 1; w < jobs; ++w) pool.emplace_back(work, w);
    work(0);
    for (auto& t : pool) t.join();
    for (SweepPoint& p : chunk) {
      if (options.on_point) options.on_point(p, out.run_type);
      ++out.by_status[p.status];
      if (p.status == PointStatus::ok) {
        add_to_best(out.best, p, options.top);
        search::add_to_front(out.pareto, p, out.run_type);
      }
      if (options.keep_points) out.points.push_back(std::move(p));
    }
    if (options.progress) options.progress(begin + n, out.total);
  }
  out.evaluated = evaluated.load();

  refine_best(out, hardware_path, model_path, overrides, options);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

void refine_best(SweepResult& result, const std::string& hardware_path, const std::string& model_path,
                 const std::vector<std::string>& overrides, const SweepOptions& options) {
  const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(std::max(0, options.refine)), result.best.size());
  PredictionCache cache;
  for (std::size_t r = 0; r < n; ++r) {
    SweepPoint& p = result.best[r];
    std::vector<std::string> sets = overrides;
    for (std::size_t k = 0; k < p.varied.size(); ++k) sets.push_back(options.vary[k].key + "=" + p.varied[k]);
    Scenario s = load_scenario(hardware_path, model_path, sets);
    search::apply_plan(p.plan, result.run_type, s.hardware);
    s.hardware.execution.mode = ExecutionMode::full_astrasim_hierarchical;
    const Result refined = predict(s, {.cache = &cache, .exports = {}});
    if (const auto* t = std::get_if<TrainingPrediction>(&refined.prediction)) p.refined_time_s = t->step_time_s;
    if (const auto* i = std::get_if<InferencePrediction>(&refined.prediction)) p.refined_time_s = i->total_time_s;
    for (auto* list : {&result.pareto, &result.points}) {
      for (auto& q : *list) {
        if (q.index == p.index) q.refined_time_s = p.refined_time_s;
      }
    }
  }
}

SweepResult merge_sweep(std::vector<SweepPoint> points, RunType run, std::vector<std::string> varied_keys,
                        std::int64_t evaluated, int top) {
  SweepResult out;
  out.run_type = run;
  out.varied_keys = std::move(varied_keys);
  out.evaluated = evaluated;
  std::sort(points.begin(), points.end(), [](const SweepPoint& a, const SweepPoint& b) { return a.index < b.index; });
  out.total = static_cast<std::int64_t>(points.size());
  for (const SweepPoint& p : points) {
    ++out.by_status[p.status];
    if (p.status == PointStatus::ok) {
      add_to_best(out.best, p, top);
      search::add_to_front(out.pareto, p, run);
    }
  }
  out.points = std::move(points);
  return out;
}

}  // namespace rapidllm
