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
  // The shipped DGX H100 NVSwitch reduces in the switch (NVLS); the InfiniBand fabric does not.
  const HardwareSpec h = load_hardware(kH100, {});
  ASSERT_TRUE(h.network.dimensions[0].in_network_reduction);
  EXPECT_FALSE(h.network.dimensions[1].in_network_reduction);
  EXPECT_EQ(network::resolve_algorithm(CollectiveOp::all_reduce, 8, h.network.dimensions[0], h.execution),
            CollectiveAlgorithm::nvls);
  const HardwareSpec off = load_hardware(kH100, {"network.dimensions[0].topology.in_network_reduction=false"});
  EXPECT_EQ(network::resolve_algorithm(CollectiveOp::all_reduce, 8, off.network.dimensions[0], off.execution),
            CollectiveAlgorithm::ring);
}

TEST(NetworkConfig, InNetworkReductionHasItsOwnEfficiencyAndLatency) {
  const HardwareSpec h = load_hardware(kH100, {"network.dimensions[1].topology.in_network_reduction=true",
                                               "network.dimensions[1].topology.in_network_reduction_util=0.6",
                                               "network.dimensions[1].topology.in_network_reduction_latency=20us"});
  ASSERT_TRUE(h.network.dimensions[1].in_network_reduction_util.has_value());
  EXPECT_DOUBLE_EQ(*h.network.dimensions[1].in_network_reduction_util, 0.6);
  EXPECT_DOUBLE_EQ(*h.network.dimensions[1].in_network_reduction_latency_s, 20e-6);
  EXPECT_FALSE(load_hardware(kH100, {}).network.dimensions[1].in_network_reduction_util.has_value());
}

TEST(NetworkConfig, ProtocolsAreReadInNcclOrderAndOverridable) {
  const HardwareSpec h = load_hardware(kH100, {"network.dimensions[0].topology.protocols.LL128.bandwidth_fraction=0.8",
                                               "network.dimensions[1].topology.protocols.Simple.step_latency=7us"});
  const auto& nv = h.network.dimensions[0].protocols;
  ASSERT_EQ(nv.size(), 3U);
  EXPECT_EQ(nv[0].protocol, NcclProtocol::ll);
  EXPECT_EQ(nv[1].protocol, NcclProtocol::ll128);
  EXPECT_DOUBLE_EQ(nv[1].bandwidth_fraction, 0.8);
  EXPECT_EQ(nv[2].protocol, NcclProtocol::simple);
  // A protocol added by override gets the defaults: no fixed latency, the whole bandwidth.
  const auto& ib = h.network.dimensions[1].protocols;
  ASSERT_EQ(ib.size(), 1U);
  EXPECT_EQ(ib[0].protocol, NcclProtocol::simple);
  EXPECT_DOUBLE_EQ(ib[0].step_latency_s, 7e-6);
  EXPECT_DOUBLE_EQ(ib[0].latency_s, 0.0);
  EXPECT_DOUBLE_EQ(ib[0].bandwidth_fraction, 1.0);
}

TEST(NetworkConfig, AProtocolWithoutItsStepLatencyIsAnError) {
  try {
    (void)load_hardware(kH100, {"network.dimensions[1].topology.protocols.LL.latency=5us"});
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("protocols.LL.step_latency"));
  }
  EXPECT_THROW((void)load_hardware(kH100, {"network.dimensions[0].topology.protocols.LL.bandwidth_fraction=1.5"}),
               ConfigError);
  EXPECT_THROW((void)load_hardware(kH100, {"network.dimensions[0].topology.protocols.LL256.latency=1us"}),
               ConfigError);
}

TEST(NetworkConfig, NvlsIsAnAlgorithmNameAndOnlySwitchesReduce) {
  const HardwareSpec h = load_hardware(kH100, {"execution_backend.model=astra",
                                               "execution_backend.astra.collectives.all_reduce=nvls"});
  EXPECT_EQ(h.execution.collectives.at(CollectiveOp::all_reduce), CollectiveAlgorithm::nvls);
  EXPECT_THROW((void)load_hardware(kH100, {"network.dimensions[1].topology.type=Ring",
                                           "network.dimensions[1].topology.in_network_reduction=true"}),
               ConfigError);
}

TEST(NetworkConfig, GpusPerNicIsReadAndChecked) {
  EXPECT_EQ(load_hardware(kH100, {}).network.dimensions[1].gpus_per_nic, 1);
  EXPECT_EQ(load_hardware(kH100, {"network.dimensions[1].topology.gpus_per_nic=2"}).network.dimensions[1].gpus_per_nic,
            2);
  EXPECT_THROW((void)load_hardware(kH100, {"network.dimensions[1].topology.gpus_per_nic=0"}), ConfigError);
}

}  // namespace
}  // namespace rapidllm
