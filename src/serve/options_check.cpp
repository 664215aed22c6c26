#include "serve/options_check.hpp"

#include <fmt/format.h>

namespace rapidllm::serving {

ConfigError option_error(const std::string& flag, const std::string& problem, const std::string& hint) {
  return ConfigError(SourceLocation{"serve options", 0, 0, {}}, flag, problem, hint);
}

void check_engine(const ServeEngine& engine, std::int64_t longest_prompt, std::int64_t longest_request) {
  const auto bad = [](const char* flag, const std::string& problem) {
    return option_error(flag, problem, "see `rapidllm serve --help` for the ranges");
  };
  if (engine.max_num_seqs < 1) throw bad("--max-num-seqs", "must be >= 1");
  if (engine.max_num_batched_tokens < 1) throw bad("--max-num-batched-tokens", "must be >= 1");
  if (engine.block_size < 1) throw bad("--block-size", "must be >= 1");
  if (!(engine.kv_memory_fraction > 0.0 && engine.kv_memory_fraction <= 1.0)) {
    throw bad("--kv-memory-fraction", "must lie in (0, 1]");
  }
  if (!(engine.iteration_overhead_s >= 0.0)) throw bad("--iteration-overhead", "must be >= 0");
  if (engine.chunked_prefill) return;
  // Without chunks a prompt runs in one iteration; so does a preempted request's prompt
  // and output so far, which an engine that allocates as it goes may have to recompute
  // (vLLM asks max_num_batched_tokens >= max_model_len then).
  const std::int64_t longest = engine.reserve_full_sequence ? longest_prompt : longest_request;
  if (longest > engine.max_num_batched_tokens) {
    throw bad("--max-num-batched-tokens",
              fmt::format("{} of up to {} tokens exceed the {}-token budget and chunked prefill is off",
                          engine.reserve_full_sequence ? "prompts" : "requests (a preempted one is prefilled again)",
                          longest, engine.max_num_batched_tokens));
  }
}

}  // namespace rapidllm::serving
