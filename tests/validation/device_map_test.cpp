// The GPU names of the ground-truth rows -> shipped device configs (validate/device_map.cpp).
#include "validate/device_map.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rapidllm::validate {
namespace {

const std::string kConfigs = RAPIDLLM_SOURCE_DIR "/configs";

TEST(DeviceMap, H200IsTheH100DieWithTheH200Memory) {
  std::string reason;
  const auto h100 = device_for("H100-SXM5-80GB (HBM3)", kConfigs, reason);
  const auto h200 = device_for("H200-SXM-141GB", kConfigs, reason);
  ASSERT_TRUE(h100 && h200) << reason;
  // Datasheet: 141 GB of HBM3e at 4.8 TB/s; compute and NVLink are the H100's.
  EXPECT_DOUBLE_EQ(h200->dram().size_bytes, 141e9);
  EXPECT_DOUBLE_EQ(h200->dram().bandwidth_bytes_per_s, 4.8e12);
  EXPECT_DOUBLE_EQ(h200->core.util, h100->core.util);
  EXPECT_DOUBLE_EQ(h200->network.dimensions.front().util, h100->network.dimensions.front().util);
}

TEST(DeviceMap, AnUnshippedGpuIsSkippedWithItsName) {
  std::string reason;
  EXPECT_FALSE(device_for("V100-SXM3-32GB (DGX-2)", kConfigs, reason));
  EXPECT_NE(reason.find("V100-SXM3-32GB"), std::string::npos);
}

// The rows' Blackwell names: the rack systems (whose names mention their B200 die) before
// the HGX node.
TEST(DeviceMap, BlackwellRowsGetTheirSystem) {
  std::string reason;
  const auto gb200 = device_for("GB200 (B200 die, 186GB)", kConfigs, reason);
  const auto gb300 = device_for("GB300 (B300, 288GB)", kConfigs, reason);
  const auto b200 = device_for("B200-180GB", kConfigs, reason);
  ASSERT_TRUE(gb200 && gb300 && b200) << reason;
  EXPECT_DOUBLE_EQ(gb200->dram().size_bytes, 186e9);
  EXPECT_DOUBLE_EQ(gb300->dram().size_bytes, 288e9);
  EXPECT_DOUBLE_EQ(b200->dram().size_bytes, 180e9);
  EXPECT_EQ(gb200->network.dimensions.front().size, std::vector<int>{64});  // an NVLink domain of 64
  EXPECT_EQ(b200->network.dimensions.front().size, std::vector<int>{8});
}

}  // namespace
}  // namespace rapidllm::validate
