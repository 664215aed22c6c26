// Every category a per-GPU memory breakdown can hold (training and inference), as one
// fixed list: reports that want a column per category take it from here, so their columns
// are the same for every run. The predictors name their categories with these constants.
#pragma once

#include <array>
#include <string_view>

namespace rapidllm::memory {

inline constexpr std::string_view kWeights = "weights";
inline constexpr std::string_view kGradients = "gradients";              // training
inline constexpr std::string_view kOptimizerStates = "optimizer_states";  // training
inline constexpr std::string_view kKvCache = "kv_cache";                  // inference
inline constexpr std::string_view kActivations = "activations";
inline constexpr std::string_view kTemporaries = "temporaries";
inline constexpr std::string_view kZero3GatheredParameters = "zero3_gathered_parameters";  // training
inline constexpr std::string_view kCommunicationBuffers = "communication_buffers";
inline constexpr std::string_view kFrameworkOffset = "framework_offset";

inline constexpr std::array<std::string_view, 9> kMemoryCategories{
    kWeights,     kGradients,   kOptimizerStates,         kKvCache,           kActivations,
    kTemporaries, kZero3GatheredParameters, kCommunicationBuffers, kFrameworkOffset};

}  // namespace rapidllm::memory
