#include <nlohmann/json.hpp>

#include "api/json_text.hpp"
#include "io/gemm_report.hpp"
#include "io/llm_report.hpp"
#include "io/plan_fields.hpp"
#include "io/prediction_csv.hpp"
#include "io/spec_json.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/report.hpp"
#include "api/stack_echo.hpp"

namespace rapidllm {

namespace {

// The header names the resolved configuration by its hash and echoes the overrides that
// made it. A GEMM's hash includes the dtype it ran in: the same files at another --dtype
// are another configuration.
io::ReportHeader llm_header(const Scenario& scenario) {
  const nlohmann::json resolved = {{"hardware", io::hardware_json(scenario.hardware)},
                                   {"model", io::model_json(scenario.model)}};
  return {io::config_hash(resolved), scenario.hardware.source, scenario.model_file, scenario.overrides,
          detail::stack_echo(scenario.hardware.sw, std::get<LlmModelSpec>(scenario.model.workload).run_type)};
}

io::ReportHeader gemm_header(const Scenario& scenario, DType dtype) {
  const nlohmann::json resolved = {{"hardware", io::hardware_json(scenario.hardware)},
                                   {"model", io::model_json(scenario.model)},
                                   {"dtype", dtype_name(dtype)}};
  return {io::config_hash(resolved), scenario.hardware.source, scenario.model_file, scenario.overrides, std::nullopt};
}

const LlmModelSpec& llm_model(const Scenario& scenario) { return std::get<LlmModelSpec>(scenario.model.workload); }

std::string render(const TrainingPrediction& p, const Scenario& scenario, OutputFormat format) {
  const io::ReportHeader header = llm_header(scenario);
  switch (format) {
    case OutputFormat::json: {
      nlohmann::json out = io::training_report_json(p, header);
      out["plan"] = io::plan_json(scenario.hardware, RunType::training, p.micro_batch_size);
      return detail::json_text(out);
    }
    case OutputFormat::csv: return io::training_csv(p, {header, scenario.hardware, llm_model(scenario)});
    case OutputFormat::table: break;
  }
  return io::training_report_table(p, header);
}

std::string render(const InferencePrediction& p, const Scenario& scenario, OutputFormat format) {
  const io::ReportHeader header = llm_header(scenario);
  switch (format) {
    case OutputFormat::json: {
      nlohmann::json out = io::inference_report_json(p, header);
      out["plan"] = io::plan_json(scenario.hardware, RunType::inference, 0);
      return detail::json_text(out);
    }
    case OutputFormat::csv: return io::inference_csv(p, {header, scenario.hardware, llm_model(scenario)});
    case OutputFormat::table: break;
  }
  return io::inference_report_table(p, header);
}

std::string render(const GemmPrediction& p, const Scenario& scenario, OutputFormat format) {
  const io::ReportHeader header = gemm_header(scenario, p.dtype);
  switch (format) {
    case OutputFormat::json: return detail::json_text(io::gemm_report_json(p, header));
    case OutputFormat::csv: return io::gemm_report_csv(p, header);
    case OutputFormat::table: break;
  }
  return io::gemm_report_table(p, header);
}

}  // namespace

std::string render_prediction(const Result& result, const Scenario& scenario, OutputFormat format) {
  if (const auto* p = std::get_if<TrainingPrediction>(&result.prediction)) return render(*p, scenario, format);
  if (const auto* p = std::get_if<InferencePrediction>(&result.prediction)) return render(*p, scenario, format);
  if (const auto* p = std::get_if<GemmPrediction>(&result.prediction)) return render(*p, scenario, format);
  throw InfeasibleError(result.message);
}

}  // namespace rapidllm
