#include "api/prediction_cache_impl.hpp"

namespace rapidllm {

// Defined here, where Impl is complete.
PredictionCache::PredictionCache() : impl_(std::make_unique<Impl>()) {}
PredictionCache::~PredictionCache() = default;
PredictionCache::PredictionCache(PredictionCache&& other) noexcept = default;
PredictionCache& PredictionCache::operator=(PredictionCache&& other) noexcept = default;

}  // namespace rapidllm
