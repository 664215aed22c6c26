// What every config fuzz target shares: quiet logging, and the rule that a ConfigError is
// the expected answer to bad input while anything else escaping is a bug for libFuzzer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <spdlog/spdlog.h>

#include "rapidllm/error.hpp"

namespace rapidllm::fuzz {

// Loader warnings (spdlog::warn) would be printed for every input and slow fuzzing down.
inline void quiet_logs() { spdlog::set_level(spdlog::level::off); }

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Runs `load`; a ConfigError (bad input, clearly reported) is a fine outcome. Any other
// exception propagates out of LLVMFuzzerTestOneInput, and libFuzzer reports the crash.
template <typename Load>
void expect_clean(Load&& load) {
  try {
    load();
  } catch (const ConfigError&) {
  }
}

}  // namespace rapidllm::fuzz
