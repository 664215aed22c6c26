// The rapidllm command line. Results go to stdout (or -o FILE), logs to stderr.
// Exit codes: 0 ok, 1 the model could not produce a result, 2 usage or configuration error.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli_common.hpp"
#include "once_per_run_sink.hpp"
#ifdef RAPIDLLM_WITH_MPI
#include "sweep_mpi.hpp"
#endif
#include "rapidllm/error.hpp"
#include "rapidllm/suggest.hpp"
#include "rapidllm/version.hpp"

namespace {
constexpr int kExitModelFailure = 1;
constexpr int kExitUsage = 2;

// The first word when it should name a subcommand and names none: CLI11 would say only
// that a subcommand is required, or that the word was not expected.
std::optional<std::string> unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  const std::string word = argv[1];
  std::vector<std::string_view> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == word) return std::nullopt;
    names.push_back(sub->get_name());
  }
  const auto best = rapidllm::closest_match(word, names);
  return fmt::format("unknown command '{}'\n  hint: {}", word,
                     best ? fmt::format("did you mean '{}'?", *best)
                          : fmt::format("the commands are {}", fmt::join(names, ", ")));
}
}  // namespace

int main(int argc, char** argv) {
#ifdef RAPIDLLM_WITH_MPI
  const rapidllm::cli::MpiSession mpi(argc, argv);
#endif
  {
    auto stderr_sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    auto once = std::make_shared<rapidllm::cli::OncePerRunSink>(std::move(stderr_sink));
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("rapidllm", std::move(once)));
  }
  spdlog::set_pattern("rapidllm: %l: %v");

  CLI::App app{"rapidllm: predict LLM training and inference time, memory and energy on GPU clusters"};
  app.set_version_flag("--version", rapidllm::kVersion);
  app.require_subcommand(1);
  rapidllm::cli::add_predict_command(app);
  rapidllm::cli::add_gemm_command(app);
  rapidllm::cli::add_collective_command(app);
  rapidllm::cli::add_config_command(app);
  rapidllm::cli::add_validate_command(app);
  rapidllm::cli::add_import_hf_command(app);
  rapidllm::cli::add_sweep_command(app);
  rapidllm::cli::add_serve_command(app);

  // CLI11's own usage errors, worded as rapidllm's.
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    return "rapidllm: error: " + CLI::FailureMessage::simple(failed, e);
  });
  if (auto unknown = unknown_subcommand(app, argc, argv)) {
    std::cerr << "rapidllm: error: " << *unknown << "\n";
    return kExitUsage;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  } catch (const rapidllm::ConfigError& e) {
    std::cerr << "rapidllm: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const rapidllm::InfeasibleError& e) {
    std::cerr << "rapidllm: cannot run this scenario: " << e.what() << "\n";
    return kExitModelFailure;
  } catch (const rapidllm::Error& e) {
    std::cerr << "rapidllm: error: " << e.what() << "\n";
    return kExitModelFailure;
  }
  return 0;
}
