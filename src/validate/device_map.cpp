#include "validate/device_map.hpp"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "parallel/placement.hpp"
#include "rapidllm/config.hpp"
#include "rapidllm/software_stack.hpp"
#include "validate/row_stack.hpp"

namespace rapidllm::validate {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
bool has(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }

// "500W power limit" in a row's GPU description: the cap its boards ran under.
std::optional<double> stated_power_limit_w(const std::string& gpu) {
  static const std::regex limit(R"((\d+)\s*W power limit)");
  std::smatch m;
  if (!std::regex_search(gpu, m, limit)) return std::nullopt;
  return std::stod(m[1].str());
}
}  // namespace

std::optional<HardwareSpec> device_for(const std::string& gpu, const std::string& config_dir,
                                       const std::vector<std::string>& overrides, std::string& reason) {
  const auto load = [&](const char* name) {
    return load_hardware(config_dir + "/hardware/" + name + ".yaml", overrides);
  };
  if (has(gpu, "H100") && !has(gpu, "PCIe") && !has(gpu, "NVL")) {
    HardwareSpec hw = load("H100_SXM5_80GB");
    if (has(gpu, "96GB")) {
      // Grand Teton H100: 96 GB HBM at 2.4 TB/s (the row's own description).
      hw.memory.back().size_bytes = 96 * kGiB;
      hw.memory.back().bandwidth_bytes_per_s = 2.4e12;
    }
    if (const auto cap = stated_power_limit_w(gpu)) hw.core.power_limit_w = std::min(*cap, hw.core.max_power_w);
    return hw;
  }
  if (has(gpu, "H800")) {
    // The H100's export variant (NVIDIA H800 SXM5 data sheet): the same die, clocks and HBM,
    // NVLink cut to 400 GB/s bidirectional, 200 GB/s each way (DeepSeek-V3's report measured
    // 160 GB/s on it).
    HardwareSpec hw = load("H100_SXM5_80GB");
    for (double& b : hw.network.dimensions.front().bandwidth_bytes_per_s) b = 200e9;
    return hw;
  }
  if (has(gpu, "H200-SXM")) return load("H200_SXM_141GB");
  // Blackwell: the rack systems first (a GB200 row names its B200 die too).
  if (has(gpu, "GB200")) return load("GB200_NVL72");
  if (has(gpu, "GB300")) return load("GB300_NVL72");
  if (has(gpu, "B200")) return load("B200_HGX_180GB");
  // MI300X only: the MI325X (256 GB HBM3e, 1,000 W) and MI355X are other parts.
  if (has(gpu, "MI300X")) return load("MI300X_OAM_192GB");
  if (has(gpu, "A100-SXM4")) {
    HardwareSpec hw = load("A100_SXM4_80GB");
    if (has(gpu, "40GB") && !has(gpu, "80GB")) {
      // A100 40GB SXM datasheet: 40 GB HBM2 at 1,555 GB/s.
      hw.memory.back().size_bytes = 40 * kGiB;
      hw.memory.back().bandwidth_bytes_per_s = 1555e9;
    }
    return hw;
  }
  reason = fmt::format("no shipped device config for '{}'", gpu.substr(0, 40));
  return std::nullopt;
}

void use_row_stack(HardwareSpec& hw, const std::string& framework, RunType run_type) {
  hw.sw.framework = row_stack_name(framework);
  apply_software_stack(hw.sw, run_type);
  // Megatron-LM's own scripts and NeMo's releases before Megatron-Core r0.8 run Megatron's
  // cross-entropy one PyTorch op per step; NeMo 24.07's configs compile it (the profile's).
  if (runs_unfused_megatron_cross_entropy(framework) && !hw.sw.cross_entropy_given) {
    hw.sw.cross_entropy = CrossEntropyKernel::megatron_unfused;
  }
}

void use_framework_rank_order(HardwareSpec& hw) {
  parallel::order_parallelisms(hw.network,
                               {Parallelism::tp, Parallelism::cp, Parallelism::ep, Parallelism::dp, Parallelism::pp});
}

}  // namespace rapidllm::validate
