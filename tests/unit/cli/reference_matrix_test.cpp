// Every RAPID-LLM reference model file on every reference hardware file, through the CLI:
// each pair is a prediction (exit 0, JSON with a positive time) or a scenario that cannot
// run (exit 1, the physical reason on stderr). Never a config error (2), never a crash.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

// The YAML files of one reference folder, relative to the source tree, sorted.
std::vector<std::string> reference_files(const std::string& kind) {
  const std::string dir = "tests/data/rapid-llm-reference/" + kind;
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(RAPIDLLM_SOURCE_DIR) / dir)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(dir + "/" + e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The time a prediction of this run type reports (JSON keys of `predict --format json`).
const char* time_key(const std::string& run_type) {
  if (run_type == "training") return "step_time_s";
  if (run_type == "inference") return "total_time_s";
  return "time_s";  // gemm
}

TEST(ReferenceMatrix, EveryModelOnEveryHardwarePredictsOrSaysWhyItCannotRun) {
  const auto models = reference_files("model");
  const auto hardware = reference_files("hardware");
  ASSERT_GE(models.size(), 13u);
  ASSERT_GE(hardware.size(), 7u);
  int predicted = 0;
  int infeasible = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const auto& m : models) {
    for (const auto& h : hardware) {
      const std::string pair = fs::path(m).stem().string() + " on " + fs::path(h).stem().string();
      const auto r = rapidllm::testing::run_rapidllm("predict --hardware " + h + " --model " + m + " --format json");
      if (r.exit_code == 0) {
        ++predicted;
        ASSERT_TRUE(nlohmann::json::accept(r.out)) << pair << ": not JSON:\n" << r.out;
        const auto j = nlohmann::json::parse(r.out);
        ASSERT_TRUE(j.contains("run_type")) << pair;
        const char* key = time_key(j["run_type"].get<std::string>());
        ASSERT_TRUE(j.contains(key) && j[key].is_number()) << pair << ": no " << key;
        EXPECT_GT(j[key].get<double>(), 0.0) << pair << ": " << key;
        EXPECT_TRUE(j["peak_memory_bytes"].is_number()) << pair;
      } else if (r.exit_code == 1) {
        ++infeasible;
        EXPECT_NE(r.err.find("cannot run this scenario: "), std::string::npos) << pair << ": no reason:\n" << r.err;
        EXPECT_TRUE(r.out.empty()) << pair;
      } else {
        // 2 is a config error in a file RAPID-LLM reads; 128 + n or -1 is a crash (signal n).
        ADD_FAILURE() << pair << ": exit " << r.exit_code << "\n" << r.err;
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << predicted << " predictions and " << infeasible << " infeasible scenarios of "
            << models.size() * hardware.size() << " pairs in " << seconds << " s\n";
  EXPECT_GT(predicted, infeasible);
}

}  // namespace
