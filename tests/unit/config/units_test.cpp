#include <gtest/gtest.h>

#include "rapidllm/dtype.hpp"
#include "rapidllm/units.hpp"

namespace rapidllm {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TEST(Units, SizesUseBinaryMultiplesForBothSpellings) {
  EXPECT_DOUBLE_EQ(*parse_size_bytes("80 GB"), 80 * kGiB);  // RAPID-LLM: GB = 2^30
  EXPECT_DOUBLE_EQ(*parse_size_bytes("80 GiB"), 80 * kGiB);
  EXPECT_DOUBLE_EQ(*parse_size_bytes("30096 KB"), 30096 * 1024.0);
  EXPECT_DOUBLE_EQ(*parse_size_bytes("18 TB"), 18 * kGiB * 1024.0);
  EXPECT_DOUBLE_EQ(*parse_size_bytes("1e9"), 1e9);
  EXPECT_DOUBLE_EQ(*parse_size_bytes("0 GB"), 0.0);
}

TEST(Units, RapidLlmBandwidthWithoutPerSecondIsBinaryPerSecond) {
  EXPECT_DOUBLE_EQ(*parse_bandwidth_bytes_per_s("1986 GB"), 1986 * kGiB);
  EXPECT_DOUBLE_EQ(*parse_bandwidth_bytes_per_s("122 TB"), 122 * kGiB * 1024.0);
}

TEST(Units, ExplicitRatesAreDecimal) {
  EXPECT_DOUBLE_EQ(*parse_bandwidth_bytes_per_s("450 GB/s"), 450e9);
  EXPECT_DOUBLE_EQ(*parse_bandwidth_bytes_per_s("3.35 TB/s"), 3.35e12);
  EXPECT_DOUBLE_EQ(*parse_bandwidth_bytes_per_s("400 Gb/s"), 50e9);  // bits
  EXPECT_DOUBLE_EQ(*parse_bandwidth_bytes_per_s("200Gbps"), 25e9);
  EXPECT_DOUBLE_EQ(*parse_bandwidth_bytes_per_s("2 GiB/s"), 2 * kGiB);
  EXPECT_DOUBLE_EQ(*parse_bandwidth_bytes_per_s("5e10"), 5e10);
}

TEST(Units, DurationsAndFrequencies) {
  EXPECT_DOUBLE_EQ(*parse_duration_s("9e-6"), 9e-6);
  EXPECT_DOUBLE_EQ(*parse_duration_s("5 us"), 5e-6);
  EXPECT_DOUBLE_EQ(*parse_duration_s("100 ns"), 100e-9);
  EXPECT_DOUBLE_EQ(*parse_duration_s("2 ms"), 2e-3);
  EXPECT_DOUBLE_EQ(*parse_frequency_hz("1.41e9"), 1.41e9);
  EXPECT_DOUBLE_EQ(*parse_frequency_hz("1.98 GHz"), 1.98e9);
}

TEST(Units, RejectsMalformedQuantities) {
  EXPECT_FALSE(parse_size_bytes("80 GBs"));
  EXPECT_FALSE(parse_size_bytes("-1 GB"));
  EXPECT_FALSE(parse_size_bytes("GB"));
  EXPECT_FALSE(parse_size_bytes(""));
  EXPECT_FALSE(parse_bandwidth_bytes_per_s("fast"));
  EXPECT_FALSE(parse_bandwidth_bytes_per_s("-5 GB/s"));
  EXPECT_FALSE(parse_duration_s("5 parsecs"));
  EXPECT_FALSE(parse_number("1.0x"));
  EXPECT_FALSE(parse_number("nan"));
}

TEST(DTypes, NamesWidthsAndByteCounts) {
  EXPECT_EQ(parse_dtype("BF16"), DType::bf16);
  EXPECT_EQ(parse_dtype("float32"), DType::fp32);
  EXPECT_FALSE(parse_dtype("int4"));
  EXPECT_DOUBLE_EQ(dtype_bytes(DType::fp8), 1.0);
  EXPECT_DOUBLE_EQ(dtype_bytes(DType::fp32), 4.0);
  EXPECT_EQ(dtype_from_bytes(2.0), DType::bf16);
  EXPECT_FALSE(dtype_from_bytes(3.0));
}

}  // namespace
}  // namespace rapidllm
