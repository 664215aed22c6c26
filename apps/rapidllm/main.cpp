// The rapidllm command line. Results go to stdout (or -o FILE), logs to stderr.
// Exit codes: 0 ok, 1 the model could not produce a result, 2 usage or configuration error.
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli_common.hpp"
#ifdef RAPIDLLM_WITH_MPI
#include "sweep_mpi.hpp"
#endif
#include "rapidllm/error.hpp"
#include "rapidllm/version.hpp"

namespace {
constexpr int kExitModelFailure = 1;
constexpr int kExitUsage = 2;
}  // namespace

int main(int argc, char** argv) {
#ifdef RAPIDLLM_WITH_MPI
  const rapidllm::cli::MpiSession mpi(argc, argv);
#endif
  spdlog::set_default_logger(spdlog::stderr_color_st("rapidllm"));
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
