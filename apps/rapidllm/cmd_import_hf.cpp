// rapidllm import-hf CONFIG.json [--run-type training|inference] [--global-batch-size N]
//   [--seq-len N] [--decode-len N] [--no-flashattention] [-o model.yaml]
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "cli_common.hpp"
#include "rapidllm/hf_import.hpp"
#include "rapidllm/parameter_count.hpp"

namespace rapidllm::cli {

namespace {
struct ImportHfOptions {
  std::string config;
  std::string run_type = "training";
  std::optional<std::int64_t> global_batch_size;
  std::optional<std::int64_t> seq_len;
  std::optional<std::int64_t> decode_len;
  bool no_flashattention = false;
  std::string output;
};
}  // namespace

void add_import_hf_command(CLI::App& app) {
  auto o = std::make_shared<ImportHfOptions>();
  CLI::App* cmd = app.add_subcommand(
      "import-hf", "convert a Hugging Face config.json into a rapidllm model YAML (architecture facts only)");
  cmd->add_option("config", o->config, "the model's config.json")->required();
  cmd->add_option("--run-type", o->run_type, "training or inference")
      ->check(CLI::IsMember({"training", "inference"}))
      ->capture_default_str();
  cmd->add_option("--global-batch-size", o->global_batch_size,
                  "sequences per global batch (default 128 for training, 1 for inference)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seq-len", o->seq_len, "tokens per sequence (default min(max_position_embeddings, 8192))")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--decode-len", o->decode_len, "tokens generated per sequence, inference only (default 1024)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--no-flashattention", o->no_flashattention, "model materialised attention scores");
  cmd->add_option("-o,--output", o->output, "write the YAML to FILE (whole or not at all) instead of stdout");
  cmd->callback([o] {
    HfImportOptions options;
    options.run_type = o->run_type == "inference" ? RunType::inference : RunType::training;
    options.global_batch_size = o->global_batch_size;
    options.seq_len = o->seq_len;
    options.decode_len = o->decode_len;
    options.use_flashattention = !o->no_flashattention;
    const HfImportResult result = import_hf_config_file(o->config, options);
    for (const auto& w : result.warnings) spdlog::warn("{}", w);
    const ParameterCounts params = parameter_counts(result.model);
    write_output(result.yaml, o->output);
    spdlog::info("{} parameters: {:.3f}e9 total, {:.3f}e9 active per token", result.architecture, params.total / 1e9,
                 params.active / 1e9);
  });
}

}  // namespace rapidllm::cli
