#include "gemm_runner.hpp"

#include <spdlog/spdlog.h>

#include "exec/gemm_predictor.hpp"
#include "io/gemm_report.hpp"
#include "io/spec_json.hpp"

namespace rapidllm::cli {

void note_execution_backend(const HardwareSpec& hardware) {
  if (hardware.execution.mode != ExecutionMode::analytical) {
    spdlog::warn("execution_backend asks for '{}'; this build times communication with the analytical network "
                 "model (no congestion)",
                 to_string(hardware.execution.mode));
  }
}

std::string run_gemm(const HardwareSpec& hardware, const ModelSpec& model, DType dtype, const std::string& model_file,
                     const OutputOptions& output) {
  note_execution_backend(hardware);
  const auto& gemm = std::get<GemmModelSpec>(model.workload);
  GemmPrediction p = exec::predict_gemm(hardware, gemm, dtype);
  nlohmann::json resolved = {{"hardware", io::hardware_json(hardware)}, {"model", io::model_json(model)},
                             {"dtype", dtype_name(dtype)}};
  io::ReportHeader header{io::config_hash(resolved), hardware.source, model_file};
  switch (format_of(output)) {
    case io::Format::json: return json_text(io::gemm_report_json(p, header));
    case io::Format::csv: return io::gemm_report_csv(p);
    case io::Format::table: break;
  }
  return io::gemm_report_table(p, header);
}

}  // namespace rapidllm::cli
