// The network keys rapidllm adds to the RAPID-LLM hardware schema.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "network/analytical_collectives.hpp"
#include "rapidllm/config.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm {
namespace {

const std::string kH100 = std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/H100_SXM5_80GB.yaml";

TEST(NetworkConfig, InNetworkReductionIsReadAndMakesAutoAllReduceNvls) {
  const HardwareSpec plain = load_hardware(kH100, {});
  EXPECT_FALSE(plain.network.dimensions[0].in_network_reduction);
  const HardwareSpec nvls = load_hardware(kH100, {"network.dimensions[0].topology.in_network_reduction=true"});
  ASSERT_TRUE(nvls.network.dimensions[0].in_network_reduction);
  EXPECT_EQ(network::resolve_algorithm(CollectiveOp::all_reduce, 8, nvls.network.dimensions[0], nvls.execution),
            CollectiveAlgorithm::nvls);
}

TEST(NetworkConfig, InNetworkReductionHasItsOwnEfficiencyAndLatency) {
  const HardwareSpec h = load_hardware(kH100, {"network.dimensions[0].topology.in_network_reduction=true",
                                               "network.dimensions[0].topology.in_network_reduction_util=0.6",
                                               "network.dimensions[0].topology.in_network_reduction_latency=20us"});
  ASSERT_TRUE(h.network.dimensions[0].in_network_reduction_util.has_value());
  EXPECT_DOUBLE_EQ(*h.network.dimensions[0].in_network_reduction_util, 0.6);
  EXPECT_DOUBLE_EQ(*h.network.dimensions[0].in_network_reduction_latency_s, 20e-6);
  EXPECT_FALSE(load_hardware(kH100, {}).network.dimensions[0].in_network_reduction_util.has_value());
}

TEST(NetworkConfig, NvlsIsAnAlgorithmNameAndOnlySwitchesReduce) {
  const HardwareSpec h = load_hardware(kH100, {"execution_backend.model=astra",
                                               "execution_backend.astra.collectives.all_reduce=nvls"});
  EXPECT_EQ(h.execution.collectives.at(CollectiveOp::all_reduce), CollectiveAlgorithm::nvls);
  EXPECT_THROW((void)load_hardware(kH100, {"network.dimensions[1].topology.type=Ring",
                                           "network.dimensions[1].topology.in_network_reduction=true"}),
               ConfigError);
}

}  // namespace
}  // namespace rapidllm
