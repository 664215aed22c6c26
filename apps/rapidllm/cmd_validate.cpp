// rapidllm validate [--data DIR] [--configs DIR] [--source NAME] [--set a.b=v ...] [--cases]
//                  [--explain ROW] [--format table|json|csv]
#include <filesystem>
#include <memory>

#include "cli_common.hpp"
#include "rapidllm/validation.hpp"

namespace rapidllm::cli {

namespace {
struct ValidateOptions {
  std::string data;
  std::string configs;
  std::string source;
  bool cases = false;
  std::string explain;
  std::vector<std::string> sets;
  OutputOptions output;
};

// The repository's folders: from the working directory when run there, else from the
// installed data beside an installed binary (<prefix>/bin/../share/rapidllm), else from
// the source tree this binary was built from.
std::string repo_path(const std::string& rel) {
  namespace fs = std::filesystem;
  if (fs::exists(rel)) return rel;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path() / RAPIDLLM_DATA_FROM_BIN / rel;
    if (fs::exists(installed, ec)) return installed.lexically_normal().string();
  }
  return std::string(RAPIDLLM_SOURCE_DIR) + "/" + rel;
}
}  // namespace

void add_validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand("validate", "compare predictions with published measurements");
  cmd->add_option("--data", o->data, "folder of the ground-truth CSV files (default: validation/data)");
  cmd->add_option("--configs", o->configs, "folder of the device configs (default: configs)");
  cmd->add_option("--source", o->source, "only sources whose short name contains this (e.g. dgxc, lmdeploy)");
  cmd->add_flag("--cases", o->cases, "list every compared case in the table, not only the summary");
  cmd->add_option("--explain", o->explain,
                  "predict one training row (e.g. T0026, NT0181) and report it as `predict` does: the step's "
                  "breakdown, memory and energy on the scenario its case is built from");
  // What-if over the whole ground truth (e.g. --set sw_param.compute_efficiency=0.7): hardware
  // keys, applied to every device config after each row's software-stack profile is chosen.
  add_set_option(*cmd, o->sets);
  add_output_options(*cmd, o->output);
  cmd->callback([o] {
    const std::string data = o->data.empty() ? repo_path("validation/data") : o->data;
    const std::string configs = o->configs.empty() ? repo_path("configs") : o->configs;
    if (!o->explain.empty()) {
      write_prediction(validation_row_scenario(data, configs, o->explain, o->sets), o->output, {}, false);
      return;
    }
    const ValidationRun run = run_validation(data, configs, o->source, o->sets);
    write_output(render_validation(run, format_of(o->output), o->cases), o->output.path);
  });
}

}  // namespace rapidllm::cli
