// Memoises GemmTileModel::estimate by shape: LLM graphs repeat the same few GEMM shapes
// across layers, micro-batches and sweep points, so the tile search runs once per shape.
// Not thread-safe: give each worker thread its own cache.
#pragma once

#include <cstddef>
#include <unordered_map>
#include <utility>

#include "compute/gemm_tile_model.hpp"

namespace rapidllm::compute {

struct GemmShapeHash {
  std::size_t operator()(const GemmShape& s) const noexcept;
};

class CachedGemmModel {
 public:
  explicit CachedGemmModel(GemmTileModel model) : model_(std::move(model)) {}

  // The estimate for a shape; the reference stays valid for the cache's lifetime.
  const GemmEstimate& estimate(const GemmShape& shape);

  [[nodiscard]] std::size_t size() const { return cache_.size(); }
  [[nodiscard]] const GemmTileModel& model() const { return model_; }

 private:
  GemmTileModel model_;
  std::unordered_map<GemmShape, GemmEstimate, GemmShapeHash> cache_;
};

}  // namespace rapidllm::compute
