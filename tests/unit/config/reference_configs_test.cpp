// Every RAPID-LLM reference config must load unchanged, with the values that tool reads.
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include <gtest/gtest.h>

#include "rapidllm/config.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm {
namespace {

namespace fs = std::filesystem;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

const fs::path kRepoCopy = fs::path(RAPIDLLM_SOURCE_DIR) / "tests/data/rapid-llm-reference";
const fs::path kShared = fs::path(RAPIDLLM_SHARED_DIR) / "reference";

std::vector<fs::path> yaml_files(const std::string& sub) {
  std::vector<fs::path> out;
  for (const auto& root : {kRepoCopy, kShared}) {
    if (!fs::is_directory(root / sub)) continue;
    for (const auto& e : fs::directory_iterator(root / sub)) {
      if (e.path().extension() == ".yaml") out.push_back(e.path());
    }
  }
  return out;
}

std::string shipped(const std::string& rel) { return (fs::path(RAPIDLLM_SOURCE_DIR) / rel).string(); }

TEST(ReferenceConfigs, EveryHardwareFileLoads) {
  auto files = yaml_files("hardware");
  ASSERT_GE(files.size(), 7u);
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    HardwareSpec hw;
    ASSERT_NO_THROW(hw = load_hardware(f.string())) << f;
    EXPECT_EQ(hw.memory.size(), 4u);
    EXPECT_GT(hw.core.peak_flops_per_s(DType::bf16).value(), 1e14);
  }
}

TEST(ReferenceConfigs, EveryModelFileLoads) {
  auto files = yaml_files("model");
  ASSERT_GE(files.size(), 13u);
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    EXPECT_NO_THROW((void)load_model(f.string())) << f;
  }
}

TEST(ReferenceConfigs, A100ValuesInSiUnits) {
  HardwareSpec hw = load_hardware((kRepoCopy / "hardware/a100_80GB.yaml").string());
  // 1.41 GHz x 108 SMs x 4 tensor cores x 512 FLOP/clk = 311.9 TFLOP/s (A100 dense BF16).
  EXPECT_DOUBLE_EQ(*hw.core.peak_flops_per_s(DType::bf16), 1.41e9 * 108 * 4 * 512);
  EXPECT_FALSE(hw.core.peak_flops_per_s(DType::fp32).has_value());  // not described there
  EXPECT_DOUBLE_EQ(hw.dram().size_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(hw.dram().bandwidth_bytes_per_s, 1986 * kGiB);
  EXPECT_EQ(hw.memory[0].name, "SRAM-R");
  EXPECT_EQ(hw.memory[1].scope, MemoryScope::mcu_bundle);
  EXPECT_DOUBLE_EQ(hw.memory[1].size_bytes, 20736 * 1024.0);
  EXPECT_DOUBLE_EQ(hw.memory[1].bandwidth_bytes_per_s, 18 * kGiB * 1024.0);
  EXPECT_DOUBLE_EQ(hw.sw.kernel_launch_overhead_s, 9e-6);
  EXPECT_DOUBLE_EQ(hw.sw.precision.gradients.bytes, 4.0);     // fp32
  EXPECT_DOUBLE_EQ(hw.sw.precision.parameters.bytes, 2.0);    // as_tensor_format = bf16
  EXPECT_EQ(hw.sw.dp_microbatch, DpMicrobatchSync::last_mb);
  EXPECT_FALSE(hw.sw.h2d_bandwidth_bytes_per_s.has_value());  // -1 = disabled
  EXPECT_EQ(hw.parallelism.tp, 2);
  ASSERT_EQ(hw.network.dimensions.size(), 3u);
  EXPECT_EQ(hw.network.dimensions[0].topology, TopologyType::ring);
  EXPECT_DOUBLE_EQ(hw.network.dimensions[0].bandwidth_bytes_per_s[0], 50 * kGiB);
  EXPECT_EQ(hw.network.dimension_for(Parallelism::dp)->id, "dim1");
  EXPECT_EQ(hw.network.dimension_for(Parallelism::tp)->id, "dim0");
  EXPECT_EQ(hw.execution.mode, ExecutionMode::analytical);
}

TEST(ReferenceConfigs, SuperPodAndTwoDimensionalShapes) {
  HardwareSpec pod = load_hardware((kRepoCopy / "hardware/H100_SXM5_80GB_superpod.yaml").string());
  const NetworkDimension& d1 = pod.network.dimensions[1];
  EXPECT_EQ(d1.topology, TopologyType::superpod);
  ASSERT_TRUE(d1.superpod.has_value());
  EXPECT_EQ(d1.superpod->leaf_size, 32);
  ASSERT_EQ(d1.bandwidth_bytes_per_s.size(), 2u);
  EXPECT_DOUBLE_EQ(d1.bandwidth_bytes_per_s[1], 100 * kGiB);
  EXPECT_EQ(pod.execution.mode, ExecutionMode::full_astrasim_hierarchical);
  EXPECT_EQ(pod.network.dimensions[0].topology, TopologyType::fully_connected);  // "FC"

  HardwareSpec mesh = load_hardware((kRepoCopy / "hardware/H100_SXM5_80GB_2d.yaml").string());
  EXPECT_EQ(mesh.network.dimensions[0].topology, TopologyType::mesh2d);
  EXPECT_EQ(mesh.network.dimensions[0].size, (std::vector<int>{8, 8}));
  EXPECT_EQ(mesh.execution.mode, ExecutionMode::full_astrasim_flattened);
}

TEST(ReferenceConfigs, ModelFieldsAndRapidLlmKvHeadRule) {
  ModelSpec gemm = load_model((kRepoCopy / "model/GEMM.yaml").string());
  const auto& g = std::get<GemmModelSpec>(gemm.workload);
  EXPECT_EQ(g.m, 4096);
  EXPECT_EQ(g.k, 524288);
  EXPECT_EQ(g.n, 2048);
  EXPECT_TRUE(g.backward);
  EXPECT_EQ(g.shard_axis, ShardAxis::row);

  // Llama2-7B_inf.yaml says mha with kv_heads: 8; RAPID-LLM reads kv_heads only for gqa.
  ModelSpec l2 = load_model((kRepoCopy / "model/Llama2-7B_inf.yaml").string());
  const auto& llm = std::get<LlmModelSpec>(l2.workload);
  EXPECT_EQ(llm.attention.kv_heads, 32);
  EXPECT_EQ(llm.run_type, RunType::inference);
  EXPECT_EQ(llm.decode_len, 1024);

  ModelSpec l3 = load_model((kRepoCopy / "model/Llama3.1-70B.yaml").string());
  const auto& l70 = std::get<LlmModelSpec>(l3.workload);
  EXPECT_EQ(l70.attention.kv_heads, 8);
  EXPECT_EQ(l70.attention.tile_size, 128);
  EXPECT_EQ(l70.intermediate_size, 28672);

  ModelSpec ds = load_model((kRepoCopy / "model/DeepSeekV3.yaml").string());
  const auto& dsv3 = std::get<LlmModelSpec>(ds.workload);
  EXPECT_EQ(dsv3.attention.type, AttentionType::mla);
  EXPECT_EQ(dsv3.attention.kv_lora_rank, 512);
  EXPECT_EQ(dsv3.moe.num_experts, 256);
  EXPECT_EQ(dsv3.moe.top_k, 8);
}

TEST(ShippedConfigs, DeviceFilesLoadWithTheirDatasheetPeaks) {
  HardwareSpec a100 = load_hardware(shipped("configs/hardware/A100_SXM4_80GB.yaml"));
  // NVIDIA A100 datasheet: 312 TFLOP/s dense BF16, 2039 GB/s HBM2e, 108 SMs.
  EXPECT_NEAR(*a100.core.peak_flops_per_s(DType::bf16), 312e12, 0.5e12);
  EXPECT_NEAR(a100.dram().bandwidth_bytes_per_s, 2039e9, 1e9);
  EXPECT_EQ(a100.core.num_sms, 108);
  HardwareSpec h100 = load_hardware(shipped("configs/hardware/H100_SXM5_80GB.yaml"));
  // NVIDIA H100 SXM datasheet: 989.4 TFLOP/s dense BF16, 1979 dense FP8, 3.35 TB/s HBM3.
  EXPECT_NEAR(*h100.core.peak_flops_per_s(DType::bf16), 989.4e12, 1e12);
  EXPECT_NEAR(*h100.core.peak_flops_per_s(DType::fp8), 1978.9e12, 2e12);
  EXPECT_NEAR(h100.dram().bandwidth_bytes_per_s, 3.35e12, 1e9);
  EXPECT_EQ(h100.core.num_sms, 132);
  HardwareSpec h200 = load_hardware(shipped("configs/hardware/H200_SXM_141GB.yaml"));
  // NVIDIA H200 SXM datasheet: H100's compute, 141 GB HBM3e at 4.8 TB/s.
  EXPECT_DOUBLE_EQ(*h200.core.peak_flops_per_s(DType::bf16), *h100.core.peak_flops_per_s(DType::bf16));
  EXPECT_DOUBLE_EQ(h200.dram().size_bytes, 141e9);
  EXPECT_DOUBLE_EQ(h200.dram().bandwidth_bytes_per_s, 4.8e12);
}

// Blackwell systems against their datasheets: dense BF16 and FP8 peaks per GPU, HBM
// capacity and bandwidth, NVLink 5 per direction, the NVLink domain and the NIC.
TEST(ShippedConfigs, BlackwellSystemsHoldTheirDatasheetFigures) {
  struct Expected {
    const char* file;
    double bf16, hbm_bytes, hbm_bw, nic_bits;
    int sms;
    int nvlink_domain;
  };
  for (const Expected& e : {Expected{"B200_HGX_180GB", 2.25e15, 180e9, 7.7e12, 400e9, 148, 8},
                            Expected{"GB200_NVL72", 2.5e15, 186e9, 8e12, 400e9, 148, 64},
                            Expected{"GB300_NVL72", 2.5e15, 288e9, 8e12, 800e9, 160, 64}}) {
    const HardwareSpec hw = load_hardware(shipped(std::string("configs/hardware/") + e.file + ".yaml"));
    EXPECT_NEAR(*hw.core.peak_flops_per_s(DType::bf16), e.bf16, 0.001 * e.bf16) << e.file;
    EXPECT_NEAR(*hw.core.peak_flops_per_s(DType::fp8), 2.0 * e.bf16, 0.002 * e.bf16) << e.file;
    EXPECT_EQ(hw.core.num_sms, e.sms) << e.file;
    EXPECT_DOUBLE_EQ(hw.dram().size_bytes, e.hbm_bytes) << e.file;
    EXPECT_DOUBLE_EQ(hw.dram().bandwidth_bytes_per_s, e.hbm_bw) << e.file;
    ASSERT_EQ(hw.network.dimensions.size(), 2u) << e.file;
    EXPECT_EQ(hw.network.dimensions[0].size, std::vector<int>{e.nvlink_domain}) << e.file;
    EXPECT_EQ(hw.network.dimensions[0].bandwidth_bytes_per_s, std::vector<double>{900e9}) << e.file;  // 1.8 TB/s both ways
    EXPECT_EQ(hw.network.dimensions[1].bandwidth_bytes_per_s, std::vector<double>{e.nic_bits / 8.0}) << e.file;
  }
}

// The MI300X platform against AMD's data sheet: dense BF16 / FP8 peaks, HBM3, 304 CUs, the
// Infinity Fabric mesh (7 links of 64 GB/s per direction to the 7 peers), one 400 Gb/s NIC
// per GPU.
TEST(ShippedConfigs, Mi300xPlatformHoldsItsDatasheetFigures) {
  const HardwareSpec hw = load_hardware(shipped("configs/hardware/MI300X_OAM_192GB.yaml"));
  EXPECT_NEAR(*hw.core.peak_flops_per_s(DType::bf16), 1307.4e12, 0.5e12);
  EXPECT_NEAR(*hw.core.peak_flops_per_s(DType::fp8), 2614.9e12, 1e12);
  EXPECT_EQ(hw.core.num_sms, 304);
  EXPECT_DOUBLE_EQ(hw.dram().size_bytes, 192e9);
  EXPECT_DOUBLE_EQ(hw.dram().bandwidth_bytes_per_s, 5.3e12);
  ASSERT_EQ(hw.network.dimensions.size(), 2u);
  const NetworkDimension& xgmi = hw.network.dimensions[0];
  EXPECT_EQ(xgmi.topology, TopologyType::fully_connected);
  EXPECT_EQ(xgmi.size, std::vector<int>{8});
  EXPECT_EQ(xgmi.bandwidth_bytes_per_s, std::vector<double>{7 * 64e9});
  EXPECT_EQ(hw.network.dimensions[1].bandwidth_bytes_per_s, std::vector<double>{400e9 / 8.0});
}

// A config that keeps another device's fitted constant tags it `# [H100 name]`
// (scripts/calibrate.py rewrites such copies with every refit): each copy must equal the
// value tagged `# [CAL name]` in that device's file.
std::map<std::string, std::string> tagged_values(const std::string& path, const std::string& tag) {
  static const std::regex kLine(R"(^\s*[\w-]+:\s*([0-9.eE+-]+)\s*(?:us)?\s*#\s*\[(\w+) (\w+)\].*$)");
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, kLine) && m[2] == tag) out[m[3]] = m[1];
  }
  return out;
}

TEST(ShippedConfigs, CopiedConstantsEqualTheirSource) {
  std::map<std::string, int> copies;
  for (const auto& [tag, file] : {std::pair{"H100", "H100_SXM5_80GB"}, {"B200", "B200_HGX_180GB"}}) {
    const auto source = tagged_values(shipped(std::string("configs/hardware/") + file + ".yaml"), "CAL");
    ASSERT_FALSE(source.empty()) << file;
    for (const auto& entry : std::filesystem::directory_iterator(shipped("configs/hardware"))) {
      for (const auto& [name, value] : tagged_values(entry.path().string(), tag)) {
        ASSERT_TRUE(source.count(name)) << entry.path() << ": no [CAL " << name << "] in the " << tag << " file";
        EXPECT_EQ(value, source.at(name)) << entry.path() << ": " << name;
        ++copies[tag];
      }
    }
  }
  // H200 keeps H100's protocol and 16-bit GEMM constants (its FP8 GEMM rate and its HBM are
  // its own measurements); B200, GB200 and GB300 its NVLS latency and LL/LL128 constants
  // (their NVLS share is Blackwell's, measured on a GB200: [MNNVL]); A100 its LL/LL128
  // latencies (its own sweep starts at 1 MiB).
  EXPECT_EQ(copies["H100"], 6 + 3 * 3 + 2);
  // GB200 and GB300 take B200's fitted NVLink 5 ring share.
  EXPECT_EQ(copies["B200"], 2);
}

}  // namespace
}  // namespace rapidllm
