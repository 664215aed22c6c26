#include <set>

#include <gtest/gtest.h>

#include "config/settings_registry.hpp"
#include "rapidllm/units.hpp"

namespace rapidllm::config {
namespace {

TEST(SettingsRegistry, PathsAreUniqueAndDocumented) {
  std::set<std::string_view> seen;
  for (const auto& s : all_settings()) {
    EXPECT_TRUE(seen.insert(s.path).second) << s.path;
    EXPECT_FALSE(s.doc.empty()) << s.path;
  }
}

// `config list` marks a key without a default as required: one the loader can do without
// (its doc says what "absent" means) must declare that default (null) instead.
TEST(SettingsRegistry, KeysThatMayBeAbsentAreNotListedAsRequired) {
  for (const Setting& s : all_settings()) {
    if (s.default_value) continue;
    EXPECT_EQ(s.doc.find("absent"), std::string_view::npos) << s.path << " is listed as required";
  }
}

TEST(SettingsRegistry, ChoiceDefaultsAreAmongTheChoices) {
  for (const auto& s : all_settings()) {
    if (s.kind != ValueKind::choice || !s.default_value) continue;
    bool found = false;
    for (auto c : s.choices) found = found || c == *s.default_value;
    EXPECT_TRUE(found) << s.path << " default " << *s.default_value;
  }
}

// The loader turns the validated choice into the enum with parse_pipeline_schedule: the two
// lists must hold the same names.
TEST(SettingsRegistry, PipelineScheduleChoicesAreExactlyTheEnumNames) {
  for (const auto& s : all_settings()) {
    if (s.path != "parallelism.pp_schedule") continue;
    ASSERT_EQ(s.choices.size(), 5u);
    for (auto c : s.choices) {
      const auto parsed = parse_pipeline_schedule(c);
      ASSERT_TRUE(parsed.has_value()) << c;
      EXPECT_EQ(to_string(*parsed), c);
    }
  }
  EXPECT_FALSE(parse_pipeline_schedule("looped").has_value());
  EXPECT_FALSE(parse_collective_op("all_scatter").has_value());
  EXPECT_EQ(parse_collective_op("send_recv"), CollectiveOp::send_recv);
}

TEST(SettingsRegistry, NumericDefaultsLieInTheirRange) {
  for (const auto& s : all_settings()) {
    if ((s.kind != ValueKind::integer && s.kind != ValueKind::real) || !s.default_value) continue;
    auto v = parse_number(*s.default_value);
    if (!v) {
      EXPECT_TRUE(s.nullable) << s.path;
      continue;
    }
    EXPECT_GE(*v, s.min) << s.path;
    EXPECT_LE(*v, s.max) << s.path;
  }
}

TEST(SettingsRegistry, ChildLookupResolvesWildcards) {
  EXPECT_EQ(child_pattern("tech_param", "core"), "tech_param.core");
  EXPECT_EQ(child_pattern("tech_param", "HBM3"), "tech_param.<memory>");
  EXPECT_EQ(child_pattern("parallelism", "bogus"), std::nullopt);
  EXPECT_TRUE(is_section("network.dimensions[]"));
  EXPECT_FALSE(is_section("parallelism.tp"));
}

}  // namespace
}  // namespace rapidllm::config
