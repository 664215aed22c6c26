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
#include <vector>

#include "compute/op_coster.hpp"
#include "exec/parts_memo.hpp"
#include "parallel/placement.hpp"

namespace rapidllm::exec {

class CostCache {
 public:
  [[nodiscard]] compute::OpCoster& coster(const HardwareSpec& hardware, DType dtype, DType matmul_dtype);
  [[nodiscard]] std::size_t devices() const { return costers_.size(); }
  // Whole layers' costs, reused across predictions that build the same parts.
  [[nodiscard]] PartsMemo& parts() { return parts_; }
  // The placement of `degrees` on `network`, built once per layout: a sweep's plans share a
  // few dozen degree combinations. A Placement reads only the dimensions' sizes and
  // parallelisms and points into the dimensions' storage, so an entry matches only the
  // same storage (its address and length) holding the same sizes and parallelisms: what a
  // fresh construction would give. Throws as Placement's constructor does.
  [[nodiscard]] std::shared_ptr<const parallel::Placement> placement(const NetworkSpec& network,
                                                                     const parallel::Degrees& degrees);

 private:
  struct PlacementEntry {
    const NetworkDimension* storage = nullptr;
    parallel::Degrees degrees;
    std::vector<std::pair<std::vector<int>, std::vector<Parallelism>>> layout;  // per dimension
    std::shared_ptr<const parallel::Placement> placement;
  };
  std::unordered_map<std::uint64_t, std::unique_ptr<compute::OpCoster>> costers_;
  PartsMemo parts_;
  std::unordered_multimap<std::uint64_t, PlacementEntry> placements_;  // by storage and degrees
};

[[nodiscard]] std::uint64_t kernel_fingerprint(const HardwareSpec& hardware, DType dtype, DType matmul_dtype);

}  // namespace rapidllm::exec
