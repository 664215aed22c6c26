// Pinned CLI outputs (tests/golden/README.md): every case folder's `cmd` is run and its
// output compared with `expected.json`, so a restructuring provably keeps the numbers.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double kRelativeTolerance = 1e-12;

fs::path golden_dir() { return fs::path(RAPIDLLM_SOURCE_DIR) / "tests" / "golden"; }

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(golden_dir())) {
    if (entry.is_directory() && fs::exists(entry.path() / "cmd")) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Every difference between `actual` and `expected`, with its JSON path.
void compare(const json& actual, const json& expected, const std::string& path, std::vector<std::string>& diffs) {
  if (expected.is_number() && actual.is_number()) {
    const double a = actual.get<double>();
    const double e = expected.get<double>();
    if (std::abs(a - e) > kRelativeTolerance * std::max(std::abs(a), std::abs(e))) {
      diffs.push_back(path + ": " + actual.dump() + " != expected " + expected.dump());
    }
    return;
  }
  if (expected.type() != actual.type()) {
    diffs.push_back(path + ": " + actual.dump() + " != expected " + expected.dump());
    return;
  }
  if (expected.is_object()) {
    for (const auto& [key, value] : expected.items()) {
      if (key == "version") continue;  // the release, not the model
      if (!actual.contains(key)) {
        diffs.push_back(path + "." + key + ": missing");
      } else {
        compare(actual[key], value, path + "." + key, diffs);
      }
    }
    for (const auto& [key, value] : actual.items()) {
      if (!expected.contains(key)) diffs.push_back(path + "." + key + ": not in expected.json");
    }
  } else if (expected.is_array()) {
    if (expected.size() != actual.size()) {
      diffs.push_back(path + ": " + std::to_string(actual.size()) + " items, expected " +
                      std::to_string(expected.size()));
      return;
    }
    for (std::size_t i = 0; i < expected.size(); ++i) {
      compare(actual[i], expected[i], path + "[" + std::to_string(i) + "]", diffs);
    }
  } else if (expected != actual) {
    diffs.push_back(path + ": " + actual.dump() + " != expected " + expected.dump());
  }
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, OutputMatchesExpected) {
  const fs::path dir = golden_dir() / GetParam();
  const std::string args = trimmed(rapidllm::testing::slurp(dir / "cmd"));
  const json expected = json::parse(rapidllm::testing::slurp(dir / "expected.json"));
  const rapidllm::testing::CliRun run = rapidllm::testing::run_rapidllm(args);
  json actual;
  if (run.exit_code == 0) {
    ASSERT_TRUE(json::accept(run.out)) << "rapidllm " << args << " printed no JSON:\n" << run.out << run.err;
    actual = json::parse(run.out);
  } else {
    actual = json{{"exit_code", run.exit_code}, {"stderr", run.err}};
  }
  std::vector<std::string> diffs;
  compare(actual, expected, "$", diffs);
  std::string report;
  for (std::size_t i = 0; i < diffs.size() && i < 40; ++i) report += "  " + diffs[i] + "\n";
  EXPECT_TRUE(diffs.empty()) << "rapidllm " << args << "\n" << diffs.size() << " differences:\n" << report;
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

// The comparison itself must be able to fail.
TEST(GoldenCompare, FindsAMovedNumberAMissingKeyAndAChangedString) {
  const json expected = {{"a", 1.0}, {"b", "x"}, {"c", {1, 2}}, {"version", "0.1"}};
  std::vector<std::string> diffs;
  compare(json{{"a", 1.0 + 1e-9}, {"b", "y"}, {"c", {1}}, {"version", "9"}}, expected, "$", diffs);
  EXPECT_EQ(diffs.size(), 3u);
  diffs.clear();
  compare(json{{"a", 1.0 + 1e-15}, {"b", "x"}, {"c", {1, 2}}, {"version", "9"}}, expected, "$", diffs);
  EXPECT_TRUE(diffs.empty());
}

}  // namespace
