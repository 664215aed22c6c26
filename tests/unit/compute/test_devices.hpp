// The A100-SXM4-80GB and H100-SXM5-80GB devices of the RAPID-LLM reference configs
// (shared/reference/hardware), built in C++ so the GEMM tests don't depend on the YAML
// loader. In those files 'MB', 'GB', 'TB' are binary (2^20, 2^30, 2^40); bandwidths are
// per second.
#pragma once

#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::test {

inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * kKiB;
inline constexpr double kGiB = 1024.0 * kMiB;
inline constexpr double kTiB = 1024.0 * kGiB;

inline MemoryLevel memory_level(const char* name, MemoryScope scope, double size_bytes,
                                double bandwidth_bytes_per_s, double latency_s = 0.0) {
  MemoryLevel level;
  level.name = name;
  level.scope = scope;
  level.size_bytes = size_bytes;
  level.bandwidth_bytes_per_s = bandwidth_bytes_per_s;
  level.latency_s = latency_s;
  level.util = 1.0;
  return level;
}

// A100: 1.41 GHz x 108 SMs x 4 tensor cores x 512 flop/cycle = 311.87 TFLOP/s bf16.
// Per SM: 27 MiB / 108 = 256 KiB registers, 20736 KiB / 108 = 192 KiB shared memory.
inline HardwareSpec a100() {
  HardwareSpec hw;
  hw.source = "test_devices.hpp:a100";
  hw.sw.kernel_launch_overhead_s = 9e-6;
  hw.core.frequency_hz = 1.41e9;
  hw.core.num_sms = 108;
  hw.core.tensor_cores_per_sm = 4;
  hw.core.flop_per_cycle_per_tensor_core = 512;
  hw.core.fma_d1 = 8;
  hw.core.fma_d2 = 4;
  hw.core.util = 1.0;
  hw.memory = {
      memory_level("SRAM-R", MemoryScope::mcu, 27 * kMiB, 122 * kTiB),
      memory_level("SRAM-L1", MemoryScope::mcu_bundle, 20736 * kKiB, 18 * kTiB),
      memory_level("SRAM-L2", MemoryScope::global, 40 * kMiB, 7050 * kGiB),
      memory_level("DRAM", MemoryScope::global, 80 * kGiB, 1986 * kGiB, 100e-9),
  };
  return hw;
}

// H100 SXM: 1.83 GHz x 132 SMs x 4 x 1024 flop/cycle = 989.42 TFLOP/s bf16.
// Per SM: 33 MiB / 132 = 256 KiB registers, 30096 KiB / 132 = 228 KiB shared memory.
inline HardwareSpec h100() {
  HardwareSpec hw;
  hw.source = "test_devices.hpp:h100";
  hw.sw.kernel_launch_overhead_s = 9e-6;
  hw.core.frequency_hz = 1.83e9;
  hw.core.num_sms = 132;
  hw.core.tensor_cores_per_sm = 4;
  hw.core.flop_per_cycle_per_tensor_core = 1024;
  hw.core.fma_d1 = 16;
  hw.core.fma_d2 = 8;
  hw.core.util = 1.0;
  hw.memory = {
      memory_level("SRAM-R", MemoryScope::mcu, 33 * kMiB, 122 * kTiB),
      memory_level("SRAM-L1", MemoryScope::mcu_bundle, 30096 * kKiB, 22392 * kGiB),
      memory_level("SRAM-L2", MemoryScope::global, 50 * kMiB, 8138 * kGiB),
      memory_level("DRAM", MemoryScope::global, 80 * kGiB, 3350 * kGiB, 100e-9),
  };
  return hw;
}

inline constexpr double kA100PeakBf16 = 1.41e9 * 108 * 4 * 512;
inline constexpr double kH100PeakBf16 = 1.83e9 * 132 * 4 * 1024;
inline constexpr double kLaunchS = 9e-6;
inline constexpr double kDramLatencyS = 100e-9;

}  // namespace rapidllm::test
