#include <nlohmann/json.hpp>

#include "api/json_text.hpp"
#include "io/gemm_report.hpp"
#include "io/llm_report.hpp"
#include "io/spec_json.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/report.hpp"

namespace rapidllm {

namespace {

// The header names the resolved configuration by its hash. A GEMM's includes the dtype it
// ran in: the same files at another --dtype are another configuration.
io::ReportHeader llm_header(const Scenario& scenario) {
  const nlohmann::json resolved = {{"hardware", io::hardware_json(scenario.hardware)},
                                   {"model", io::model_json(scenario.model)}};
  return {io::config_hash(resolved), scenario.hardware.source, scenario.model_file};
}

io::ReportHeader gemm_header(const Scenario& scenario, DType dtype) {
  const nlohmann::json resolved = {{"hardware", io::hardware_json(scenario.hardware)},
                                   {"model", io::model_json(scenario.model)},
                                   {"dtype", dtype_name(dtype)}};
  return {io::config_hash(resolved), scenario.hardware.source, scenario.model_file};
}

std::string render(const TrainingPrediction& p, const io::ReportHeader& header, OutputFormat format) {
  switch (format) {
    case OutputFormat::json: return detail::json_text(io::training_report_json(p, header));
    case OutputFormat::csv: return io::training_report_csv(p);
    case OutputFormat::table: break;
  }
  return io::training_report_table(p, header);
}

std::string render(const InferencePrediction& p, const io::ReportHeader& header, OutputFormat format) {
  switch (format) {
    case OutputFormat::json: return detail::json_text(io::inference_report_json(p, header));
    case OutputFormat::csv: return io::inference_report_csv(p);
    case OutputFormat::table: break;
  }
  return io::inference_report_table(p, header);
}

std::string render(const GemmPrediction& p, const io::ReportHeader& header, OutputFormat format) {
  switch (format) {
    case OutputFormat::json: return detail::json_text(io::gemm_report_json(p, header));
    case OutputFormat::csv: return io::gemm_report_csv(p);
    case OutputFormat::table: break;
  }
  return io::gemm_report_table(p, header);
}

}  // namespace

std::string render_prediction(const Result& result, const Scenario& scenario, OutputFormat format) {
  if (const auto* p = std::get_if<TrainingPrediction>(&result.prediction)) {
    return render(*p, llm_header(scenario), format);
  }
  if (const auto* p = std::get_if<InferencePrediction>(&result.prediction)) {
    return render(*p, llm_header(scenario), format);
  }
  if (const auto* p = std::get_if<GemmPrediction>(&result.prediction)) {
    return render(*p, gemm_header(scenario, p->dtype), format);
  }
  throw InfeasibleError(result.message);
}

}  // namespace rapidllm
