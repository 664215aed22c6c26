// CI accuracy gate: runs the whole validation suite (validation/data against configs/) and
// fails when a (kind, source, metric) group's mean |error| rises above the maximum recorded
// in validation/thresholds.json, or fewer of its cases are compared than recorded. The
// thresholds are a baseline plus a margin; re-baseline deliberately with
// scripts/update_thresholds.py (see docs/validation.md).
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "validate/cases.hpp"

namespace rapidllm::validate {
namespace {

const std::string kThresholdsPath = RAPIDLLM_SOURCE_DIR "/validation/thresholds.json";

struct Threshold {
  std::string kind;
  std::string source;
  std::string metric;
  double max_mean_abs_error_pct = 0.0;
  int min_compared = 0;
};

// The thresholds in `text`, or nullopt with `error` saying what is wrong.
std::optional<std::vector<Threshold>> parse_thresholds(const std::string& text, std::string& error) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    error = "not valid JSON";
    return std::nullopt;
  }
  if (!doc.is_object() || !doc.contains("thresholds") || !doc["thresholds"].is_array()) {
    error = "expected an object with a 'thresholds' array";
    return std::nullopt;
  }
  if (doc["thresholds"].empty()) {
    error = "the 'thresholds' array is empty";
    return std::nullopt;
  }
  std::vector<Threshold> out;
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  std::size_t i = 0;
  for (const auto& e : doc["thresholds"]) {
    const std::string where = "thresholds[" + std::to_string(i++) + "]";
    if (!e.is_object()) {
      error = where + " is not an object";
      return std::nullopt;
    }
    for (const char* key : {"kind", "source", "metric"}) {
      if (!e.contains(key) || !e[key].is_string() || e[key].get<std::string>().empty()) {
        error = where + ": '" + key + "' must be a non-empty string";
        return std::nullopt;
      }
    }
    if (!e.contains("max_mean_abs_error_pct") || !e["max_mean_abs_error_pct"].is_number() ||
        e["max_mean_abs_error_pct"].get<double>() < 0.0) {
      error = where + ": 'max_mean_abs_error_pct' must be a number >= 0";
      return std::nullopt;
    }
    if (!e.contains("min_compared") || !e["min_compared"].is_number_integer() || e["min_compared"].get<int>() < 1) {
      error = where + ": 'min_compared' must be an integer >= 1";
      return std::nullopt;
    }
    Threshold t{e["kind"].get<std::string>(), e["source"].get<std::string>(), e["metric"].get<std::string>(),
                e["max_mean_abs_error_pct"].get<double>(), e["min_compared"].get<int>()};
    if (!seen.insert({t.kind, t.source, t.metric}).second) {
      error = where + ": a second entry for " + t.kind + "/" + t.source + "/" + t.metric;
      return std::nullopt;
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::optional<std::vector<Threshold>> read_thresholds(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read the file";
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse_thresholds(text.str(), error);
}

TEST(AccuracyGateThresholds, MalformedFilesAreRejected) {
  std::string error;
  EXPECT_FALSE(parse_thresholds("{", error));
  EXPECT_EQ(error, "not valid JSON");
  EXPECT_FALSE(parse_thresholds("[]", error));
  EXPECT_FALSE(parse_thresholds(R"({"thresholds": []})", error));
  EXPECT_FALSE(parse_thresholds(R"({"thresholds": [1]})", error));
  EXPECT_FALSE(parse_thresholds(
      R"({"thresholds": [{"kind": "training", "source": "dgxc", "max_mean_abs_error_pct": 5, "min_compared": 3}]})",
      error));
  EXPECT_NE(error.find("'metric'"), std::string::npos) << error;
  EXPECT_FALSE(parse_thresholds(
      R"({"thresholds": [{"kind": "training", "source": "dgxc", "metric": "step_time_s",
                          "max_mean_abs_error_pct": "5", "min_compared": 3}]})",
      error));
  EXPECT_FALSE(parse_thresholds(
      R"({"thresholds": [{"kind": "training", "source": "dgxc", "metric": "step_time_s",
                          "max_mean_abs_error_pct": 5, "min_compared": 0}]})",
      error));
  EXPECT_FALSE(parse_thresholds(
      R"({"thresholds": [{"kind": "t", "source": "s", "metric": "m", "max_mean_abs_error_pct": 5, "min_compared": 1},
                         {"kind": "t", "source": "s", "metric": "m", "max_mean_abs_error_pct": 6, "min_compared": 1}]})",
      error));
  EXPECT_NE(error.find("second entry"), std::string::npos) << error;
  EXPECT_FALSE(read_thresholds(RAPIDLLM_SOURCE_DIR "/validation/no-such-thresholds.json", error));

  const auto ok = parse_thresholds(
      R"({"thresholds": [{"kind": "training", "source": "dgxc", "metric": "step_time_s",
                          "max_mean_abs_error_pct": 12.3, "min_compared": 99}]})",
      error);
  ASSERT_TRUE(ok) << error;
  ASSERT_EQ(ok->size(), 1u);
  EXPECT_EQ((*ok)[0].source, "dgxc");
  EXPECT_DOUBLE_EQ((*ok)[0].max_mean_abs_error_pct, 12.3);
  EXPECT_EQ((*ok)[0].min_compared, 99);
}

TEST(AccuracyGate, EverySourceStaysWithinItsRecordedThreshold) {
#if defined(__SANITIZE_ADDRESS__)
  // The gate compares numbers, which the release build checks. Under the sanitizers the
  // validate_all_rows golden already runs every row through the same code once; a second
  // full run here would cost the suite half a minute of its 20 (.ci/run, README).
  GTEST_SKIP() << "the accuracy gate runs in the release build";
#endif
  std::string error;
  const auto thresholds = read_thresholds(kThresholdsPath, error);
  ASSERT_TRUE(thresholds) << kThresholdsPath << ": " << error
                          << " (regenerate it with scripts/update_thresholds.py from `rapidllm validate --format json`)";

  const auto cases = all_cases({RAPIDLLM_SOURCE_DIR "/validation/data", RAPIDLLM_SOURCE_DIR "/configs", {}, {}});
  std::map<std::tuple<std::string, std::string, std::string>, SourceSummary> groups;
  for (const auto& s : summarize(cases)) groups[{s.kind, s.source, s.metric}] = s;

  for (const auto& t : *thresholds) {
    const std::string name = t.kind + "/" + t.source + "/" + t.metric;
    const auto it = groups.find({t.kind, t.source, t.metric});
    const SourceSummary s = it == groups.end() ? SourceSummary{} : it->second;
    std::cout << name << ": " << s.compared << " compared (min " << t.min_compared << "), mean |error| "
              << s.mean_abs_error_pct << "% (max " << t.max_mean_abs_error_pct << "%)\n";
    EXPECT_GE(s.compared, t.min_compared)
        << name << ": " << s.compared << " cases compared, the threshold file expects at least " << t.min_compared
        << " (rows now skipped or failed: " << s.skipped << " skipped, " << s.failed << " failed)";
    if (s.compared == 0) continue;
    EXPECT_LE(s.mean_abs_error_pct, t.max_mean_abs_error_pct)
        << "source " << t.source << ", metric " << t.metric << " (" << t.kind << "): mean |error| "
        << s.mean_abs_error_pct << "% is above the recorded threshold " << t.max_mean_abs_error_pct
        << "% over " << s.compared << " cases; if the change is intended, re-baseline with "
        << "scripts/update_thresholds.py and say why in the commit";
  }
  // Groups with compared cases and no threshold are not gated; say so, don't fail.
  for (const auto& [key, s] : groups) {
    bool gated = false;
    for (const auto& t : *thresholds) gated = gated || (t.kind == s.kind && t.source == s.source && t.metric == s.metric);
    if (!gated && s.compared > 0) {
      std::cout << "note: " << s.kind << "/" << s.source << "/" << s.metric << " (" << s.compared
                << " compared) has no threshold in validation/thresholds.json\n";
    }
  }
}

}  // namespace
}  // namespace rapidllm::validate
