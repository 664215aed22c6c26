// The test devices equal the RAPID-LLM reference configs as the YAML loader reads them,
// so the hand computations in the other tests hold for the shipped hardware files too.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "compute/gemm_tile_model.hpp"
#include "rapidllm/config.hpp"
#include "test_devices.hpp"

namespace rapidllm::compute {
namespace {

void expect_same_predictions(const std::string& file, const HardwareSpec& fixture) {
  const std::string path = std::string(RAPIDLLM_SHARED_DIR) + "/reference/hardware/" + file;
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no reference config at " << path;
  const HardwareSpec loaded = load_hardware(path);
  ASSERT_EQ(loaded.memory.size(), fixture.memory.size());
  for (std::size_t i = 0; i < fixture.memory.size(); ++i) {
    EXPECT_EQ(loaded.memory[i].name, fixture.memory[i].name);
    EXPECT_DOUBLE_EQ(loaded.memory[i].size_bytes, fixture.memory[i].size_bytes);
    EXPECT_DOUBLE_EQ(loaded.memory[i].bandwidth_bytes_per_s, fixture.memory[i].bandwidth_bytes_per_s);
  }
  const GemmTileModel from_yaml(loaded, DType::bf16);
  const GemmTileModel from_fixture(fixture, DType::bf16);
  for (const GemmShape& s : {GemmShape{8192, 8192, 8192, 1}, GemmShape{1, 8192, 8192, 1},
                             GemmShape{256, 256, 65536, 1}}) {
    EXPECT_DOUBLE_EQ(from_yaml.estimate(s).time_s, from_fixture.estimate(s).time_s);
  }
}

TEST(GemmReferenceConfig, A100YamlMatchesTestDevice) {
  expect_same_predictions("a100_80GB.yaml", test::a100());
}

TEST(GemmReferenceConfig, H100YamlMatchesTestDevice) {
  expect_same_predictions("H100_SXM5_80GB.yaml", test::h100());
}

}  // namespace
}  // namespace rapidllm::compute
