// Reuses kernel costing across predictions on the same device: a sweep over parallelism
// or batch sizes asks for the same GEMM shapes (and whole layers: PartsMemo) again and
// again, and the tile search is the expensive part of a prediction. Costers are keyed by
// a fingerprint of every hardware field the kernel and energy models read, so a sweep
// that changes (say) HBM bandwidth gets a fresh coster.
// Not thread-safe: one per worker thread.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "compute/op_coster.hpp"
#include "exec/parts_memo.hpp"

namespace rapidllm::exec {

class CostCache {
 public:
  [[nodiscard]] compute::OpCoster& coster(const HardwareSpec& hardware, DType dtype, DType matmul_dtype);
  [[nodiscard]] std::size_t devices() const { return costers_.size(); }
  // Whole layers' costs, reused across predictions that build the same parts.
  [[nodiscard]] PartsMemo& parts() { return parts_; }

 private:
  std::unordered_map<std::uint64_t, std::unique_ptr<compute::OpCoster>> costers_;
  PartsMemo parts_;
};

[[nodiscard]] std::uint64_t kernel_fingerprint(const HardwareSpec& hardware, DType dtype, DType matmul_dtype);

}  // namespace rapidllm::exec
