#include "compute/gemm_cache.hpp"

#include <cstdint>

namespace rapidllm::compute {
namespace {

// splitmix64 finaliser: a full-avalanche mix, so shapes that differ in one small field
// (k = 4096 vs 4097) land in unrelated buckets.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

}  // namespace

std::size_t GemmShapeHash::operator()(const GemmShape& s) const noexcept {
  std::uint64_t h = mix(static_cast<std::uint64_t>(s.m));
  h = mix(h ^ static_cast<std::uint64_t>(s.n));
  h = mix(h ^ static_cast<std::uint64_t>(s.k));
  h = mix(h ^ static_cast<std::uint64_t>(s.batch));
  return static_cast<std::size_t>(h);
}

const GemmEstimate& CachedGemmModel::estimate(const GemmShape& shape) {
  auto it = cache_.find(shape);
  if (it == cache_.end()) {
    // Estimate first: a shape that throws leaves no entry behind.
    it = cache_.emplace(shape, model_.estimate(shape)).first;
  }
  return it->second;
}

}  // namespace rapidllm::compute
