// rapidllm predict --hardware HW.yaml --model MODEL.yaml [--set a.b=v ...]
#include <memory>

#include "cli_common.hpp"
#include "exec/inference_predictor.hpp"
#include "exec/training_predictor.hpp"
#include "gemm_runner.hpp"
#include "io/llm_report.hpp"
#include "io/output.hpp"
#include "io/spec_json.hpp"
#include "rapidllm/config.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::cli {

namespace {
struct PredictOptions {
  std::string hardware;
  std::string model;
  std::vector<std::string> sets;
  OutputOptions output;
};
}  // namespace

void add_predict_command(CLI::App& app) {
  auto options = std::make_shared<PredictOptions>();
  CLI::App* cmd = app.add_subcommand("predict", "predict time, memory and energy of a workload on a system");
  cmd->add_option("--hardware", options->hardware, "hardware YAML (RAPID-LLM schema)")->required();
  cmd->add_option("--model", options->model, "model YAML (RAPID-LLM schema)")->required();
  add_set_option(*cmd, options->sets);
  add_output_options(*cmd, options->output);
  cmd->callback([options] {
    LoadedInputs in = load_inputs(options->hardware, options->model, options->sets);
    const auto* llm = std::get_if<LlmModelSpec>(&in.model.workload);
    if (llm == nullptr) {
      const DType dtype = in.hardware.sw.precision.tensor_format.dtype;
      io::write_output(run_gemm(in.hardware, in.model, dtype, options->model, options->output), options->output.path);
      return;
    }
    note_execution_backend(in.hardware);
    const nlohmann::json resolved = {{"hardware", io::hardware_json(in.hardware)}, {"model", io::model_json(in.model)}};
    const io::ReportHeader header{io::config_hash(resolved), in.hardware.source, options->model};
    const io::Format format = format_of(options->output);
    std::string text;
    if (llm->run_type == RunType::training) {
      const TrainingPrediction p = exec::predict_training(in.hardware, *llm, options->model);
      text = format == io::Format::json  ? json_text(io::training_report_json(p, header))
             : format == io::Format::csv ? io::training_report_csv(p)
                                         : io::training_report_table(p, header);
    } else {
      const InferencePrediction p = exec::predict_inference(in.hardware, *llm, options->model);
      text = format == io::Format::json  ? json_text(io::inference_report_json(p, header))
             : format == io::Format::csv ? io::inference_report_csv(p)
                                         : io::inference_report_table(p, header);
    }
    io::write_output(text, options->output.path);
  });
}

}  // namespace rapidllm::cli
