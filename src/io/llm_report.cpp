#include "io/llm_report.hpp"

#include <fmt/format.h>

#include "io/text_table.hpp"

namespace rapidllm::io {

namespace {

nlohmann::json memory_json(const MemoryBreakdown& m) {
  nlohmann::json bytes = nlohmann::json::object();
  for (const auto& [name, b] : m.bytes) bytes[std::string(name)] = b;
  return bytes;
}

std::string memory_table(const MemoryBreakdown& m, const std::string& title) {
  TextTable t({fmt::format("memory per GPU{}", title), "bytes", "share"});
  for (const auto& [name, b] : m.bytes) {
    if (b > 0) t.add_row({std::string(name), human_bytes(b), fmt::format("{:.1f}%", 100.0 * b / m.total_bytes)});
  }
  t.add_row({"total", human_bytes(m.total_bytes),
             fmt::format("{} of {}", m.fits() ? "fits" : "DOES NOT FIT", human_bytes(m.capacity_bytes))});
  return t.render();
}

nlohmann::json energy_json(const EnergyReport& e) {
  return {{"compute_j", e.compute_j}, {"on_chip_memory_j", e.on_chip_j}, {"hbm_j", e.hbm_j},
          {"network_j", e.network_j}, {"static_j", e.static_j}};
}

void add_energy(nlohmann::json& out, const EnergyReport& e) {
  out["energy_j"] = e.energy_j;
  out["energy_breakdown"] = energy_json(e);
  out["average_power_w"] = e.average_power_w;
  out["energy_per_token_j"] = e.j_per_token;
  out["exceeds_max_power"] = e.exceeds_max_power;
}

std::string energy_line(const EnergyReport& e, const char* per) {
  return fmt::format("energy          {:.4g} J ({:.3g} J per {}), {:.0f} W per GPU on average{}\n", e.energy_j,
                     e.j_per_token, per, e.average_power_w, e.exceeds_max_power ? " (ABOVE max_power)" : "");
}

std::vector<double> stage_totals(const std::vector<MemoryBreakdown>& stages) {
  std::vector<double> out;
  for (const auto& s : stages) out.push_back(s.total_bytes);
  return out;
}

nlohmann::json breakdown_json(const Breakdown& b) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, s] : b) out[std::string(name)] = s;
  return out;
}

std::string breakdown_table(const Breakdown& b, double total) {
  TextTable t({"category", "time", "share"});
  for (const auto& [name, s] : b) t.add_row({std::string(name), human_seconds(s), fmt::format("{:.1f}%", 100.0 * s / total)});
  return t.render();
}

nlohmann::json execution_json(const ExecutionSummary& e) {
  nlohmann::json out{{"mode", e.mode}, {"network", e.network}, {"pipeline", e.pipeline}};
  if (e.pipeline == "simulated") {
    out.update({{"simulated_units", e.simulated_units},
                {"symmetry", e.symmetry},
                {"reductions", e.reductions},
                {"simulated_nodes", e.simulated_nodes},
                {"network_simulations", e.network_simulations}});
    // Training's pipeline depth; an inference batch is one micro-batch.
    if (!e.peak_in_flight_micro_batches.empty()) out["peak_in_flight_micro_batches"] = e.peak_in_flight_micro_batches;
  }
  return out;
}

// `label`: "evaluated" padded to the table's label column.
std::string execution_line(const ExecutionSummary& e, std::string_view label = "evaluated       ") {
  const std::string_view network = e.network == "analytical"      ? "analytical network"
                                   : e.network == "flow_isolated" ? "flow-simulated collectives, each alone"
                                                                  : "flow-simulated collectives sharing links";
  if (e.pipeline != "simulated") {
    return fmt::format("{}{}: pipeline formulas, {}\n", label, e.mode, network);
  }
  return fmt::format("{}{}: step simulated on {} unit(s){}, {}\n", label, e.mode, e.simulated_units,
                     e.symmetry ? " (symmetry)" : "", network);
}

}  // namespace

nlohmann::json training_report_json(const TrainingPrediction& p, const ReportHeader& header) {
  nlohmann::json out = header_json(header);
  out.update({{"run_type", "training"},
              {"num_gpus", p.num_gpus},
              {"step_time_s", p.step_time_s},
              {"tokens_per_s", p.tokens_per_s},
              {"tokens_per_s_per_gpu", p.tokens_per_s / p.num_gpus},
              {"mfu", p.mfu},
              {"mfu_formula", p.mfu_formula},
              {"model_flops_per_step", p.model_flops_per_step},
              {"micro_batches", p.micro_batches},
              {"micro_batch_size", p.micro_batch_size},
              {"gradient_accumulation_steps", p.gradient_accumulation},
              {"pipeline_bubble_fraction", p.pipeline_bubble_fraction},
              {"breakdown", breakdown_json(p.breakdown)},
              {"peak_memory_bytes", p.memory.total_bytes},
              {"fits_in_memory", p.memory.fits()},
              {"memory_capacity_bytes", p.memory.capacity_bytes},
              {"peak_memory_stage", p.memory.stage},
              {"memory_breakdown", memory_json(p.memory)},
              {"stage_peak_memory_bytes", stage_totals(p.stage_memory)},
              {"execution", execution_json(p.execution)}});
  add_energy(out, p.energy);
  return out;
}

std::string training_report_table(const TrainingPrediction& p, const ReportHeader& header) {
  std::string out = header_line(header);
  out += fmt::format("training step on {} GPUs: {} micro-batches of {} sequences{}\n\n", p.num_gpus, p.micro_batches,
                     p.micro_batch_size,
                     p.gradient_accumulation > 1 ? fmt::format(", {} accumulation steps", p.gradient_accumulation) : "");
  out += fmt::format("step time       {}\n", human_seconds(p.step_time_s));
  out += fmt::format("throughput      {} ({} per GPU)\n", human_rate(p.tokens_per_s, "tokens"),
                     human_rate(p.tokens_per_s / p.num_gpus, "tokens"));
  out += fmt::format("MFU             {:.1f}%\n", 100.0 * p.mfu);
  out += fmt::format("pipeline bubble {:.1f}% of each flush\n", 100.0 * p.pipeline_bubble_fraction);
  out += execution_line(p.execution);
  out += energy_line(p.energy, "token");
  out += '\n';
  out += breakdown_table(p.breakdown, p.step_time_s);
  out += '\n';
  out += memory_table(p.memory, fmt::format(" (stage {})", p.memory.stage));
  return out;
}

nlohmann::json inference_report_json(const InferencePrediction& p, const ReportHeader& header) {
  nlohmann::json out = header_json(header);
  out.update({{"run_type", "inference"},
              {"num_gpus", p.num_gpus},
              {"batch_size", p.batch_size},
              {"replicas", p.replicas},
              {"prompt_len", p.prompt_len},
              {"decode_len", p.decode_len},
              {"prefill_time_s", p.prefill_time_s},
              {"ttft_s", p.prefill_time_s},
              {"decode_time_s", p.decode_time_s},
              {"tpot_s", p.tpot.mean_s},
              {"tpot_min_s", p.tpot.min_s},
              {"tpot_max_s", p.tpot.max_s},
              {"total_time_s", p.total_time_s},
              {"decode_tokens_per_s", p.decode_tokens_per_s},
              {"prefill_tokens_per_s", p.prefill_tokens_per_s},
              {"prefill_breakdown", breakdown_json(p.prefill_breakdown)},
              {"peak_memory_bytes", p.memory.total_bytes},
              {"fits_in_memory", p.memory.fits()},
              {"memory_capacity_bytes", p.memory.capacity_bytes},
              {"memory_breakdown", memory_json(p.memory)},
              {"decode_breakdown", breakdown_json(p.decode_breakdown)},
              {"execution", execution_json(p.execution)}});
  add_energy(out, p.energy);
  return out;
}

std::string inference_report_table(const InferencePrediction& p, const ReportHeader& header) {
  std::string out = header_line(header);
  out += fmt::format("inference on {} GPUs: {} replica(s), batch {}, prompt {} + {} generated tokens\n\n", p.num_gpus,
                     p.replicas, p.batch_size, p.prompt_len, p.decode_len);
  out += fmt::format("time to first token  {}\n", human_seconds(p.prefill_time_s));
  out += fmt::format("per output token     {} mean ({} first, {} last)\n", human_seconds(p.tpot.mean_s),
                     human_seconds(p.tpot.min_s), human_seconds(p.tpot.max_s));
  out += fmt::format("decode               {} for {} tokens, {}\n", human_seconds(p.decode_time_s), p.decode_len,
                     human_rate(p.decode_tokens_per_s, "tokens"));
  out += fmt::format("total                {}\n", human_seconds(p.total_time_s));
  out += execution_line(p.execution, "evaluated            ");
  out += energy_line(p.energy, "generated token");
  out += "\nprefill\n";
  out += breakdown_table(p.prefill_breakdown, p.prefill_time_s);
  if (p.decode_time_s > 0) out += "\ndecode\n" + breakdown_table(p.decode_breakdown, p.decode_time_s);
  out += '\n';
  out += memory_table(p.memory, "");
  return out;
}

}  // namespace rapidllm::io
