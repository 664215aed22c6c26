// rapidllm predict --hardware HW.yaml --model MODEL.yaml [--set a.b=v ...]
#include <memory>

#include "cli_common.hpp"
#include "rapidllm/predict.hpp"
#include "rapidllm/scenario.hpp"

namespace rapidllm::cli {

namespace {
struct PredictCommandOptions {
  std::string hardware;
  std::string model;
  std::vector<std::string> sets;
  std::string max_events;
  OutputOptions output;
  StepExports exports;
  bool fail_if_oom = false;
};
}  // namespace

void add_predict_command(CLI::App& app) {
  auto options = std::make_shared<PredictCommandOptions>();
  CLI::App* cmd = app.add_subcommand("predict", "predict time, memory and energy of a workload on a system");
  cmd->add_option("--hardware", options->hardware, "hardware YAML (RAPID-LLM schema)")->required();
  cmd->add_option("--model", options->model, "model YAML (RAPID-LLM schema)")->required();
  add_set_option(*cmd, options->sets);
  add_max_events_option(*cmd, options->max_events);
  add_output_options(*cmd, options->output);
  cmd->add_option("--trace", options->exports.trace_file,
                  "write the simulated step as a Chrome/Perfetto trace (JSON; open in ui.perfetto.dev); needs "
                  "execution_backend.astra.mode full_astrasim_hierarchical or full_astrasim_flattened");
  cmd->add_option("--trace-ranks", options->exports.trace_ranks, "ranks the trace and the Chakra files cover, e.g. 0-7,64 (default: all)");
  cmd->add_option("--chakra", options->exports.chakra_dir,
                  "write one Chakra execution trace per rank of the training step to DIR (rapidllm.<rank>.et)");
  cmd->add_flag("--fail-if-oom", options->fail_if_oom,
               "exit 1 (after writing the report) when the workload does not fit in GPU memory; without it, a warning");
  cmd->callback([options] {
    apply_max_events(options->max_events, options->sets);
    write_prediction(load_scenario(options->hardware, options->model, options->sets), options->output,
                     options->exports, options->fail_if_oom);
  });
}

}  // namespace rapidllm::cli
