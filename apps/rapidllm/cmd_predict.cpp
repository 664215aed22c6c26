// rapidllm predict --hardware HW.yaml --model MODEL.yaml [--set a.b=v ...]
#include <memory>

#include "cli_common.hpp"
#include "gemm_runner.hpp"
#include "io/output.hpp"
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
    if (std::holds_alternative<LlmModelSpec>(in.model.workload)) {
      throw ConfigError(SourceLocation{options->model, 0, 0, {}}, "model_param.mode",
                        "LLM predictions are not available in this version; it predicts mode: GEMM",
                        "use a GEMM model file (mode: GEMM) or `rapidllm gemm`");
    }
    const DType dtype = in.hardware.sw.precision.tensor_format.dtype;
    io::write_output(run_gemm(in.hardware, in.model, dtype, options->model, options->output), options->output.path);
  });
}

}  // namespace rapidllm::cli
