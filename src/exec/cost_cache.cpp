#include "exec/cost_cache.hpp"

#include <cstring>

namespace rapidllm::exec {

namespace {

class Fnv1a {
 public:
  void add(double v) { add_bytes(&v, sizeof v); }
  void add(int v) { add_bytes(&v, sizeof v); }
  void add(const std::string& s) { add_bytes(s.data(), s.size()); }
  [[nodiscard]] std::uint64_t value() const { return h_; }

 private:
  void add_bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
      h_ ^= p[i];
      h_ *= 1099511628211ULL;
    }
  }
  std::uint64_t h_ = 14695981039346656037ULL;
};

}  // namespace

std::uint64_t kernel_fingerprint(const HardwareSpec& hw, DType dtype, DType matmul_dtype) {
  Fnv1a f;
  f.add(static_cast<int>(dtype));
  f.add(static_cast<int>(matmul_dtype));
  const CoreSpec& c = hw.core;
  for (double v : {c.frequency_hz, c.flop_per_cycle_per_tensor_core, c.util, c.sfu_ops_per_cycle_per_sm,
                   c.fp32_ops_per_cycle_per_sm}) {
    f.add(v);
  }
  for (int v : {c.num_sms, c.tensor_cores_per_sm, c.fma_d1, c.fma_d2, c.mma_threads, c.max_cluster_size}) f.add(v);
  for (const auto* m : {&c.dtype_flop_scale, &c.dtype_util}) {
    for (const auto& [d, s] : *m) {
      f.add(static_cast<int>(d));
      f.add(s);
    }
  }
  for (const MemoryLevel& m : hw.memory) {
    f.add(m.name);
    for (double v : {m.size_bytes, m.bandwidth_bytes_per_s, m.latency_s, m.util}) f.add(v);
  }
  f.add(hw.sw.kernel_launch_overhead_s);
  f.add(hw.sw.attention_softmax_overlap);
  return f.value();
}

compute::OpCoster& CostCache::coster(const HardwareSpec& hw, DType dtype, DType matmul_dtype) {
  auto& slot = costers_[kernel_fingerprint(hw, dtype, matmul_dtype)];
  if (!slot) slot = std::make_unique<compute::OpCoster>(hw, dtype, matmul_dtype);
  return *slot;
}

}  // namespace rapidllm::exec
