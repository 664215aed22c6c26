// Errors about serving options (named by their command-line flag) and the engine checks
// both the simulation and the steady state make before any costing.
#pragma once

#include <cstdint>
#include <string>

#include "rapidllm/error.hpp"
#include "rapidllm/serve.hpp"

namespace rapidllm::serving {

[[nodiscard]] ConfigError option_error(const std::string& flag, const std::string& problem, const std::string& hint);

// Throws option_error for an engine setting out of range, or for prompts (or, when a
// preempted request must be prefilled again in one piece, whole requests) longer than
// the token budget with chunked prefill off.
void check_engine(const ServeEngine& engine, std::int64_t longest_prompt, std::int64_t longest_request);

}  // namespace rapidllm::serving
