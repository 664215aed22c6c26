// Inputs the fuzz targets (fuzz/) found crashing or misbehaving, saved under
// fuzz/regressions/<target>/: each must now be refused with a clear ConfigError.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rapidllm/config.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/hf_import.hpp"
#include "rapidllm/units.hpp"

namespace rapidllm {
namespace {

using ::testing::HasSubstr;

const std::filesystem::path kRegressions = std::filesystem::path(RAPIDLLM_SOURCE_DIR) / "fuzz/regressions";
const std::string kH100 = std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/H100_SXM5_80GB.yaml";

std::string regression(const std::string& target, const std::string& name) {
  std::ifstream in(kRegressions / target / name, std::ios::binary);
  EXPECT_TRUE(in) << target << "/" << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

ConfigError hardware_error(const std::vector<std::string>& overrides) {
  try {
    (void)load_hardware(kH100, overrides);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ConfigError";
  return ConfigError({}, "", "", "");
}

// "1e308 PiB" is a finite number times 2^50: the product was +inf, accepted as a size (and
// as a bandwidth or frequency with a unit), so a memory could be infinitely large.
TEST(FuzzRegressions, QuantityOverflowingToInfinityIsRefused) {
  const std::string text = regression("fuzz_units", "size-overflows-to-inf");
  EXPECT_FALSE(parse_size_bytes(text));
  EXPECT_FALSE(parse_bandwidth_bytes_per_s(text));
  EXPECT_FALSE(parse_bandwidth_bytes_per_s("1e308 TB/s"));
  EXPECT_FALSE(parse_bandwidth_bytes_per_s("1e308 Tb/s"));
  EXPECT_FALSE(parse_frequency_hz("1e308 GHz"));
  ConfigError e = hardware_error({"tech_param.DRAM.size=" + text});
  EXPECT_EQ(e.key_path(), "tech_param.DRAM.size");
  EXPECT_THAT(e.problem(), HasSubstr("expected a size"));
}

// A faulty link's rank of 1e38 passed as an integer (it is whole and non-negative) and was
// converted to int: undefined behaviour, caught by UBSan.
TEST(FuzzRegressions, FaultyLinkRankBeyondIntIsRefused) {
  std::string text = regression("fuzz_overrides", "faulty_link_rank_1e38");
  while (!text.empty() && text.back() == '\n') text.pop_back();
  ConfigError e = hardware_error({text});
  EXPECT_EQ(e.key_path(), "network.faulty_links");
  EXPECT_THAT(e.problem(), HasSubstr("non-negative integers up to 2147483647"));
}

// A number past the doubles ("131078888888e888...") made nlohmann throw out_of_range, not
// parse_error, and the importer let it escape (std::terminate in the CLI).
TEST(FuzzRegressions, HfNumberOverflowingADoubleIsAConfigError) {
  const std::string text = regression("fuzz_hf_import", "number-overflows-double.json");
  try {
    (void)import_hf_config(text, "config.json");
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.problem(), HasSubstr("invalid JSON"));
    EXPECT_THAT(e.problem(), HasSubstr("number overflow"));
    EXPECT_EQ(e.where().line, 12);  // the line of the overflowing number
    EXPECT_GT(e.where().column, 1);
  }
}

// An integer past 2^63 - 1 is held unsigned by nlohmann; read as int64 it wrapped negative
// and was refused as "must be at least 1, got -1".
TEST(FuzzRegressions, HfIntegerPastInt64IsTooLarge) {
  const std::string text = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 18446744073709551615})";
  try {
    (void)import_hf_config(text, "config.json");
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key_path(), "hidden_size");
    EXPECT_THAT(e.problem(), HasSubstr("too large"));
  }
}

}  // namespace
}  // namespace rapidllm
