// rapidllm config list [--file hardware|model] [--format table|json|csv]
#include <memory>

#include "cli_common.hpp"
#include "rapidllm/config.hpp"

namespace rapidllm::cli {

namespace {
struct ConfigListOptions {
  std::string file;  // empty = both
  OutputOptions output;
};
}  // namespace

void add_config_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("config", "inspect the configuration schema");
  cmd->require_subcommand(1);
  auto o = std::make_shared<ConfigListOptions>();
  CLI::App* list = cmd->add_subcommand("list", "every setting: key path, type, unit, default, meaning");
  list->add_option("--file", o->file, "only the settings of one file kind")->check(CLI::IsMember({"hardware", "model"}));
  add_output_options(*list, o->output);
  list->callback([o] {
    std::vector<SettingInfo> settings;
    for (auto& s : list_settings()) {
      if (o->file.empty() || (o->file == "hardware") == (s.file == ConfigFile::hardware)) settings.push_back(std::move(s));
    }
    write_output(render_settings(settings, format_of(o->output)), o->output.path);
  });
}

}  // namespace rapidllm::cli
