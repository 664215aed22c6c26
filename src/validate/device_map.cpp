#include "validate/device_map.hpp"

#include <cctype>

#include <fmt/format.h>

#include "parallel/placement.hpp"
#include "rapidllm/config.hpp"
#include "rapidllm/software_stack.hpp"

namespace rapidllm::validate {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
bool has(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }
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
  std::string text;
  for (const char c : framework) text += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Most specific first: "NeMo inference (TensorRT-LLM backend)" is TensorRT-LLM, the 2020
  // Megatron-LM tables are not Megatron-Core.
  const char* stack = has(text, "tensorrt-llm") || has(text, "nvidia nim") ? "tensorrt-llm"
                      : has(text, "lmdeploy")                          ? "lmdeploy"
                      : has(text, "megatron-lm v")                     ? "megatron-lm-2020"
                      : has(text, "nemo 24") || has(text, "megatron-core r0.") ? "nemo-24"
                      : has(text, "composer") || has(text, "llm-foundry") ? "composer-fsdp"
                      : has(text, "torchtitan")                        ? "torchtitan"
                      : has(text, "maxtext")                           ? "maxtext"
                      : has(text, "paxml")                             ? "paxml"
                      : has(text, "nanotron pre-pp-fix")               ? "nanotron-pre-pp-fix"
                      : has(text, "nanotron")                          ? "nanotron"
                      : has(text, "nemo") || has(text, "megatron")     ? "megatron-core"
                                                                       : "auto";
  hw.sw.framework = stack;
  apply_software_stack(hw.sw, run_type);
}

void use_framework_rank_order(HardwareSpec& hw) {
  parallel::order_parallelisms(hw.network,
                               {Parallelism::tp, Parallelism::cp, Parallelism::ep, Parallelism::dp, Parallelism::pp});
}

}  // namespace rapidllm::validate
