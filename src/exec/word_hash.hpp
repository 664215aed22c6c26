// FNV-1a over 64-bit words rather than bytes, with a shift to spread the high bits: the
// cache keys hashed on every prediction (kernel fingerprints, layer memo buckets) are
// made of words.
#pragma once

#include <bit>
#include <cstdint>
#include <string>

namespace rapidllm::exec {

class WordHash {
 public:
  void add(std::uint64_t w) {
    h_ ^= w;
    h_ *= 1099511628211ULL;
    h_ ^= h_ >> 29;
  }
  void add(double v) { add(std::bit_cast<std::uint64_t>(v)); }
  void add(int v) { add(static_cast<std::uint64_t>(static_cast<std::uint32_t>(v))); }
  void add(const std::string& s) {
    for (char c : s) add(static_cast<std::uint64_t>(static_cast<unsigned char>(c)));
    add(static_cast<std::uint64_t>(s.size()));
  }
  [[nodiscard]] std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 14695981039346656037ULL;
};

}  // namespace rapidllm::exec
