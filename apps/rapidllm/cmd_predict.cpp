// rapidllm predict --hardware HW.yaml --model MODEL.yaml [--set a.b=v ...]
#include <memory>

#include "cli_common.hpp"
#include "rapidllm/scenario.hpp"

namespace rapidllm::cli {

namespace {
struct PredictCommandOptions {
  std::string hardware;
  std::string model;
  std::vector<std::string> sets;
  OutputOptions output;
};
}  // namespace

void add_predict_command(CLI::App& app) {
  auto options = std::make_shared<PredictCommandOptions>();
  CLI::App* cmd = app.add_subcommand("predict", "predict time, memory and energy of a workload on a system");
  cmd->add_option("--hardware", options->hardware, "hardware YAML (RAPID-LLM schema)")->required();
  cmd->add_option("--model", options->model, "model YAML (RAPID-LLM schema)")->required();
  add_set_option(*cmd, options->sets);
  add_output_options(*cmd, options->output);
  cmd->callback([options] {
    write_prediction(load_scenario(options->hardware, options->model, options->sets), options->output);
  });
}

}  // namespace rapidllm::cli
