#include "io/prediction_csv.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "exec/breakdown_categories.hpp"
#include "io/csv_row.hpp"
#include "io/plan_fields.hpp"
#include "memory/memory_categories.hpp"

namespace rapidllm::io {

namespace {

// The three breakdowns' column prefixes: the JSON keys that hold them.
constexpr std::string_view kTraining = "breakdown";
constexpr std::string_view kPrefill = "prefill_breakdown";
constexpr std::string_view kDecode = "decode_breakdown";

std::string time_column(std::string_view breakdown, std::string_view category) {
  return fmt::format("{}.{}_s", breakdown, category);
}

std::string memory_column(std::string_view category) { return fmt::format("memory_breakdown.{}_bytes", category); }

std::vector<std::string> make_columns() {
  std::vector<std::string> c(kHeaderColumns.begin(), kHeaderColumns.end());
  for (const char* name : {"model_file", "run_type", "num_gpus"}) c.emplace_back(name);
  for (const auto name : kPlanFields) c.emplace_back(name);
  for (const char* name :
       {"seq_len", "global_batch_size", "micro_batches", "gradient_accumulation_steps", "batch_size", "prompt_len",
        "decode_len", "time_s", "step_time_s", "ttft_s", "tpot_s", "tpot_min_s", "tpot_max_s", "decode_time_s",
        "total_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "tokens_per_s_per_user", "prefill_tokens_per_s",
        "decode_tokens_per_s", "mfu", "model_flops_per_step", "pipeline_bubble_fraction", "peak_memory_bytes",
        "memory_capacity_bytes", "fits_in_memory", "peak_memory_stage"}) {
    c.emplace_back(name);
  }
  for (const auto category : memory::kMemoryCategories) c.push_back(memory_column(category));
  for (const char* name : {"energy_j", "energy_breakdown.compute_j", "energy_breakdown.on_chip_memory_j",
                           "energy_breakdown.hbm_j", "energy_breakdown.network_j", "energy_breakdown.static_j",
                           "average_power_w", "energy_per_token_j", "exceeds_max_power"}) {
    c.emplace_back(name);
  }
  for (const auto breakdown : {kTraining, kPrefill, kDecode}) {
    for (const auto category : exec::breakdown_categories()) c.push_back(time_column(breakdown, category));
  }
  return c;
}

void add_common(CsvRow& row, const PredictionCsvContext& c, RunType run, int num_gpus, int micro_batch_size) {
  add_header_cells(row, c.header);
  row.text("model_file", c.header.model_file);
  row.text("run_type", std::string(to_string(run)));
  row.integer("num_gpus", num_gpus);
  const auto plan = plan_values(c.hardware, run, micro_batch_size);
  for (std::size_t i = 0; i < kPlanFields.size(); ++i) row.json(std::string(kPlanFields[i]), plan[i]);
  row.integer("global_batch_size", c.model.global_batch_size);
}

void add_memory(CsvRow& row, const MemoryBreakdown& m) {
  row.number("peak_memory_bytes", m.total_bytes);
  row.number("memory_capacity_bytes", m.capacity_bytes);
  row.flag("fits_in_memory", m.fits());
  // Categories this run kind has no bytes in (a KV cache in training) are zero, not empty:
  // the GPU holds none.
  for (const auto category : memory::kMemoryCategories) {
    double bytes = 0.0;
    for (const auto& [name, b] : m.bytes) {
      if (name == category) bytes += b;
    }
    row.number(memory_column(category), bytes);
  }
}

void add_energy(CsvRow& row, const EnergyReport& e) {
  row.number("energy_j", e.energy_j);
  row.number("energy_breakdown.compute_j", e.compute_j);
  row.number("energy_breakdown.on_chip_memory_j", e.on_chip_j);
  row.number("energy_breakdown.hbm_j", e.hbm_j);
  row.number("energy_breakdown.network_j", e.network_j);
  row.number("energy_breakdown.static_j", e.static_j);
  row.number("average_power_w", e.average_power_w);
  row.number("energy_per_token_j", e.j_per_token);
  row.flag("exceeds_max_power", e.exceeds_max_power);
}

void add_breakdown(CsvRow& row, std::string_view prefix, const Breakdown& b) {
  for (const auto category : exec::breakdown_categories()) {
    double seconds = 0.0;
    for (const auto& [name, s] : b) {
      if (name == category) seconds += s;
    }
    row.number(time_column(prefix, category), seconds);
  }
  // A category outside the fixed list would be dropped and the row would no longer sum to
  // the time: a programmer error (exec/breakdown_categories.hpp lists every one).
  const auto& known = exec::breakdown_categories();
  for (const auto& entry : b) {
    if (std::find(known.begin(), known.end(), entry.first) == known.end()) {
      throw std::logic_error(fmt::format("breakdown category {} is not in exec::breakdown_categories()", entry.first));
    }
  }
}

}  // namespace

const std::vector<std::string>& prediction_csv_columns() {
  static const std::vector<std::string> columns = make_columns();
  return columns;
}

std::string training_csv(const TrainingPrediction& p, const PredictionCsvContext& c) {
  CsvRow row(prediction_csv_columns());
  add_common(row, c, RunType::training, p.num_gpus, p.micro_batch_size);
  row.integer("seq_len", c.model.seq_len);
  row.integer("micro_batches", p.micro_batches);
  row.integer("gradient_accumulation_steps", p.gradient_accumulation);
  row.number("time_s", p.step_time_s);
  row.number("step_time_s", p.step_time_s);
  row.number("tokens_per_s", p.tokens_per_s);
  row.number("tokens_per_s_per_gpu", p.tokens_per_s / p.num_gpus);
  row.number("mfu", p.mfu);
  row.number("model_flops_per_step", p.model_flops_per_step);
  row.number("pipeline_bubble_fraction", p.pipeline_bubble_fraction);
  add_memory(row, p.memory);
  row.integer("peak_memory_stage", p.memory.stage);
  add_energy(row, p.energy);
  add_breakdown(row, kTraining, p.breakdown);
  return csv_text(prediction_csv_columns(), {row});
}

std::string inference_csv(const InferencePrediction& p, const PredictionCsvContext& c) {
  CsvRow row(prediction_csv_columns());
  add_common(row, c, RunType::inference, p.num_gpus, 0);
  row.integer("batch_size", p.batch_size);
  row.integer("prompt_len", p.prompt_len);
  row.integer("decode_len", p.decode_len);
  row.number("time_s", p.total_time_s);
  row.number("ttft_s", p.prefill_time_s);
  row.number("tpot_s", p.tpot.mean_s);
  row.number("tpot_min_s", p.tpot.min_s);
  row.number("tpot_max_s", p.tpot.max_s);
  row.number("decode_time_s", p.decode_time_s);
  row.number("total_time_s", p.total_time_s);
  // Inference throughput is generated tokens, as in the sweep.
  row.number("tokens_per_s", p.decode_tokens_per_s);
  row.number("tokens_per_s_per_gpu", p.decode_tokens_per_s / p.num_gpus);
  row.number("tokens_per_s_per_user", p.tpot.mean_s > 0.0 ? 1.0 / p.tpot.mean_s : 0.0);
  row.number("prefill_tokens_per_s", p.prefill_tokens_per_s);
  row.number("decode_tokens_per_s", p.decode_tokens_per_s);
  add_memory(row, p.memory);
  add_energy(row, p.energy);
  add_breakdown(row, kPrefill, p.prefill_breakdown);
  add_breakdown(row, kDecode, p.decode_breakdown);
  return csv_text(prediction_csv_columns(), {row});
}

}  // namespace rapidllm::io
