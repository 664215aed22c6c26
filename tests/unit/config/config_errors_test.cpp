// Each class of bad input is a ConfigError naming the key path and the place it came from.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rapidllm/config.hpp"
#include "rapidllm/error.hpp"
#include "temp_yaml.hpp"

namespace rapidllm {
namespace {

using ::testing::HasSubstr;
using testing::TempYaml;

// A small valid hardware file; line numbers below refer to it.
const std::string kHardware = R"(sw_param:
  kernel_launch_overhead: 5 us
tech_param:
  core:
    operating_frequency: 1.41e9
    num_bundles: 108
    nominal_flop_rate_per_mcu: 512
    nominal_energy_per_flop: 1.8e-13
    num_mcu_per_bundle: 4
    FMA_d1: 8
    FMA_d2: 4
  DRAM: {size: 80 GiB, bandwidth: 2039 GB/s, latency: 100 ns}
  SRAM-L2: {size: 40 MiB, bandwidth: 7050 GB}
  SRAM-L1: {size: 20736 KiB, bandwidth: 18 TB}
  SRAM-R: {size: 27 MiB, bandwidth: 122 TB}
memory_hierarchy:
  l0: {type: SRAM-R, scope: mcu}
  l1: {type: SRAM-L1, scope: mcu-bundle}
  l2: {type: SRAM-L2, scope: global}
  l3: {type: DRAM, scope: global}
parallelism:
  tp: 8
network:
  dimensions:
    - id: nvswitch
      topology: {type: Switch, bandwidth: 300 GB/s, latency: 2 us}
      parallelisms: [tp]
)";

ConfigError load_error(const std::string& text, const std::vector<std::string>& overrides = {}) {
  TempYaml file(text);
  try {
    (void)load_hardware(file.path(), overrides);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ConfigError";
  return ConfigError({}, "", "", "");
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return text.replace(pos, from.size(), to);
}

TEST(ConfigErrors, TheBaseFileIsValid) {
  TempYaml file(kHardware);
  HardwareSpec hw = load_hardware(file.path());
  EXPECT_DOUBLE_EQ(hw.dram().bandwidth_bytes_per_s, 2039e9);
  EXPECT_DOUBLE_EQ(hw.sw.kernel_launch_overhead_s, 5e-6);
  EXPECT_EQ(hw.parallelism.pp_schedule, PipelineSchedule::one_f_one_b);  // declared default
}

TEST(ConfigErrors, UnknownKeySuggestsTheClosestOne) {
  ConfigError e = load_error(replace(kHardware, "num_bundles", "num_bundle"));
  EXPECT_EQ(e.key_path(), "tech_param.core.num_bundle");
  EXPECT_EQ(e.where().line, 6);
  EXPECT_EQ(e.problem(), "unknown key");
  EXPECT_THAT(e.hint(), HasSubstr("did you mean 'num_bundles'?"));
  EXPECT_THAT(std::string(e.what()), HasSubstr(":6:"));
}

TEST(ConfigErrors, UnknownKeyWithoutCloseMatchListsValidKeys) {
  ConfigError e = load_error(kHardware + "bogus_section: 1\n");
  EXPECT_EQ(e.key_path(), "bogus_section");
  EXPECT_THAT(e.hint(), HasSubstr("valid keys here:"));
  EXPECT_THAT(e.hint(), HasSubstr("tech_param"));
}

TEST(ConfigErrors, TypoOfAFixedKeyIsNotTakenForAMemoryName) {
  ConfigError e = load_error(replace(kHardware, "  core:", "  cor:"));
  EXPECT_EQ(e.key_path(), "tech_param.cor");
  EXPECT_THAT(e.hint(), HasSubstr("did you mean 'core'?"));
}

TEST(ConfigErrors, WrongTypeNamesKeyAndExpectation) {
  ConfigError e = load_error(replace(kHardware, "num_bundles: 108", "num_bundles: many"));
  EXPECT_EQ(e.key_path(), "tech_param.core.num_bundles");
  EXPECT_EQ(e.where().line, 6);
  EXPECT_THAT(e.problem(), HasSubstr("expected an integer"));
  EXPECT_THAT(e.problem(), HasSubstr("'many'"));
}

// A power cap the device cannot be held to: above its TDP, or on a file that describes no
// power at all.
TEST(ConfigErrors, PowerLimitOutsideTheBoardsRangeIsRefused) {
  const ConfigError undescribed = load_error(kHardware, {"tech_param.core.power_limit=300"});
  EXPECT_EQ(undescribed.key_path(), "tech_param.core.power_limit");
  EXPECT_THAT(undescribed.problem(), HasSubstr("static_power < power_limit <= max_power"));
  EXPECT_THAT(undescribed.hint(), HasSubstr("set tech_param.core.max_power and static_power"));
  const ConfigError above = load_error(
      kHardware, {"tech_param.core.max_power=400", "tech_param.core.static_power=60", "tech_param.core.power_limit=450"});
  EXPECT_EQ(above.key_path(), "tech_param.core.power_limit");
  EXPECT_THAT(above.problem(), HasSubstr("450 W"));
  TempYaml file(kHardware);
  const HardwareSpec within = load_hardware(
      file.path(), {"tech_param.core.max_power=400", "tech_param.core.static_power=60", "tech_param.core.power_limit=300"});
  EXPECT_DOUBLE_EQ(within.core.power_limit_w, 300.0);
}

// `key: null` is neither the default nor silently fine: the error names the key at its own
// line (it used to point at the parent's), and says how to get the default.
TEST(ConfigErrors, NullIsAnErrorAtItsOwnLine) {
  ConfigError e = load_error(replace(kHardware, "    FMA_d2: 4\n", "    FMA_d2: 4\n    util: null\n"));
  EXPECT_EQ(e.key_path(), "tech_param.core.util");
  EXPECT_EQ(e.where().line, 12);
  EXPECT_EQ(e.problem(), "a value is required here (got null)");
  EXPECT_THAT(e.hint(), HasSubstr("delete the key to use its default (1.0)"));
  ConfigError required = load_error(replace(kHardware, "num_bundles: 108", "num_bundles:"));
  EXPECT_EQ(required.key_path(), "tech_param.core.num_bundles");
  EXPECT_EQ(required.where().line, 6);
}

TEST(ConfigErrors, OutOfRangeValue) {
  ConfigError e = load_error(replace(kHardware, "tp: 8", "tp: 0"));
  EXPECT_EQ(e.key_path(), "parallelism.tp");
  EXPECT_THAT(e.problem(), HasSubstr("between 1 and"));
}

TEST(ConfigErrors, UtilAbovePhysicalIsRejected) {
  ConfigError e = load_error(replace(kHardware, "latency: 2 us}", "latency: 2 us, util: 1.2}"));
  EXPECT_EQ(e.key_path(), "network.dimensions[0].topology.util");
  EXPECT_THAT(e.problem(), HasSubstr("between"));
}

TEST(ConfigErrors, MissingRequiredKeyPointsAtItsSection) {
  ConfigError e = load_error(replace(kHardware, "    num_bundles: 108\n", ""));
  EXPECT_EQ(e.key_path(), "tech_param.core.num_bundles");
  EXPECT_EQ(e.problem(), "missing required key");
  EXPECT_EQ(e.where().line, 5);  // the first line of the core mapping
  EXPECT_THAT(e.hint(), HasSubstr("num_bundles:"));
}

// A fused-attention kernel family is one published share or measured per pass, not both;
// measured, it needs both passes' shares.
TEST(ConfigErrors, AnAttentionKernelFamilyIsDescribedOnce) {
  ConfigError twice = load_error(kHardware, {"tech_param.core.attention_util.flash2=0.5",
                                             "tech_param.core.fused_attention.flash2.forward_util=0.4"});
  EXPECT_EQ(twice.key_path(), "tech_param.core.attention_util.flash2");
  EXPECT_THAT(twice.problem(), HasSubstr("described twice"));
  ConfigError half = load_error(kHardware, {"tech_param.core.fused_attention.flash3.backward_util=0.6"});
  EXPECT_EQ(half.key_path(), "tech_param.core.fused_attention.flash3.forward_util");
  EXPECT_THAT(half.hint(), HasSubstr("forward_util and backward_util"));
  TempYaml file(kHardware);
  const HardwareSpec hw = load_hardware(file.path(), {"tech_param.core.fused_attention.flash3.forward_util=0.8",
                                                      "tech_param.core.fused_attention.flash3.backward_util=0.6"});
  const FusedAttentionFacts f = hw.core.attention_facts(AttentionKernel::flash3, DType::bf16);
  EXPECT_DOUBLE_EQ(f.forward_util, 0.8);
  EXPECT_DOUBLE_EQ(f.backward_util, 0.6);
  EXPECT_FALSE(f.softmax_overlap.has_value());
  EXPECT_DOUBLE_EQ(f.backward_cta_fill, 0.0);
}

TEST(ConfigErrors, BadUnit) {
  ConfigError e = load_error(replace(kHardware, "bandwidth: 2039 GB/s", "bandwidth: 2039 GB/h"));
  EXPECT_EQ(e.key_path(), "tech_param.DRAM.bandwidth");
  EXPECT_THAT(e.hint(), HasSubstr("GB/s"));
}

TEST(ConfigErrors, BadChoiceSuggestsAValue) {
  ConfigError e = load_error(replace(kHardware, "type: Switch", "type: Swtich"));
  EXPECT_EQ(e.key_path(), "network.dimensions[0].topology.type");
  EXPECT_THAT(e.hint(), HasSubstr("did you mean 'Switch'?"));
}

TEST(ConfigErrors, InvalidYamlGivesTheLine) {
  ConfigError e = load_error(replace(kHardware, "  tp: 8", "  tp: [8"));
  EXPECT_THAT(e.problem(), HasSubstr("invalid YAML"));
  EXPECT_GE(e.where().line, 22);
}

TEST(ConfigErrors, MissingFile) {
  try {
    (void)load_hardware("/nonexistent/hw.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.problem(), HasSubstr("no such file"));
    EXPECT_THAT(e.hint(), HasSubstr("--hardware"));
  }
}

TEST(ConfigErrors, DuplicateKey) {
  ConfigError e = load_error(replace(kHardware, "  tp: 8\n", "  tp: 8\n  tp: 4\n"));
  EXPECT_EQ(e.key_path(), "parallelism.tp");
  EXPECT_THAT(e.problem(), HasSubstr("twice"));
}

TEST(ConfigErrors, SectionGivenAScalar) {
  ConfigError e = load_error(replace(kHardware, "parallelism:\n  tp: 8", "parallelism: 8"));
  EXPECT_EQ(e.key_path(), "parallelism");
  EXPECT_THAT(e.problem(), HasSubstr("expected a mapping"));
}

TEST(ConfigErrors, ModelSectionInHardwareFile) {
  ConfigError e = load_error(kHardware + "model_param:\n  mode: GEMM\n");
  EXPECT_EQ(e.key_path(), "model_param");
  EXPECT_THAT(e.problem(), HasSubstr("belongs in a model file"));
}

TEST(ConfigErrors, MemoryLevelNamingAnUndescribedMemory) {
  ConfigError e = load_error(replace(kHardware, "{type: DRAM,", "{type: DRAMM,"));
  EXPECT_EQ(e.key_path(), "memory_hierarchy.l3.type");
  EXPECT_THAT(e.hint(), HasSubstr("did you mean 'DRAM'?"));
}

TEST(ConfigErrors, ParallelismMappedTwice) {
  ConfigError e = load_error(kHardware +
                             "    - id: ib\n      topology: {type: Ring, bandwidth: 50 GB/s, latency: 5 us}\n"
                             "      parallelisms: [dp, tp]\n");
  EXPECT_EQ(e.key_path(), "network.dimensions[1].parallelisms");
  EXPECT_THAT(e.problem(), HasSubstr("already mapped to dimension 'nvswitch'"));
}

TEST(ConfigErrors, FaultyLinkWeightOutOfRange) {
  ConfigError e = load_error(replace(kHardware, "network:\n", "network:\n  faulty_links: [[0, 1, 1.5]]\n"));
  EXPECT_EQ(e.key_path(), "network.faulty_links");
  EXPECT_THAT(e.problem(), HasSubstr("weight must be between 0"));
}

TEST(ConfigErrors, ModelErrorsNameTheirKeys) {
  TempYaml gqa("model_param:\n  mode: LLM\n  run_type: training\n  model_type: llama\n  global_batch_size: 8\n"
               "  seq_len: 2048\n  hidden_dim: 4096\n  intermediate_size: 11008\n  vocab_size: 32000\n"
               "  num_layers: 32\n  attention: {attention_type: gqa, num_heads: 32, kv_heads: 5}\n");
  try {
    (void)load_model(gqa.path());
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key_path(), "model_param.attention.kv_heads");
    EXPECT_THAT(e.problem(), HasSubstr("not a multiple"));
  }
  TempYaml mixed("model_param:\n  mode: LLM\n  M: 5\n");
  try {
    (void)load_model(mixed.path());
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key_path(), "model_param.M");
    EXPECT_THAT(e.problem(), HasSubstr("mode: GEMM"));
  }
}

}  // namespace
}  // namespace rapidllm
