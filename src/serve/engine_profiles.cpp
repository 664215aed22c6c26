// The serving engines' documented defaults. Uncalibrated: no constant here is fitted on a
// measurement (iteration_overhead_s stays 0 until a stack's calibration rows fit it).
#include <array>

#include "rapidllm/serve.hpp"

namespace rapidllm {

namespace {

ServeEngine vllm() {
  ServeEngine e;
  e.name = "vllm";
  // vLLM V1 (engine/arg_utils.py) on GPUs with >= 70 GiB, OpenAI server: max_num_seqs
  // 1024, max_num_batched_tokens 8192; chunked prefill on, decodes scheduled first;
  // 16-token blocks; gpu_memory_utilization 0.9 of the whole GPU; preemption by recompute.
  e.max_num_seqs = 1024;
  e.max_num_batched_tokens = 8192;
  e.chunked_prefill = true;
  e.policy = ServePolicy::decode_first;
  e.block_size = 16;
  e.kv_budget = KvBudget::fraction_of_total;
  e.kv_memory_fraction = 0.9;
  e.reserve_full_sequence = false;
  return e;
}

ServeEngine tensorrt_llm() {
  ServeEngine e;
  e.name = "tensorrt-llm";
  // TensorRT-LLM 1.0 (PyTorch backend): max_batch_size 2048, max_num_tokens 8192, in-flight
  // batching with chunked context, 32-token blocks, kv_cache_free_gpu_memory_fraction 0.9,
  // GUARANTEED_NO_EVICT capacity scheduling (a request is admitted with blocks for its
  // whole sequence).
  e.max_num_seqs = 2048;
  e.max_num_batched_tokens = 8192;
  e.chunked_prefill = true;
  e.policy = ServePolicy::decode_first;
  e.block_size = 32;
  e.kv_budget = KvBudget::fraction_of_free;
  e.kv_memory_fraction = 0.9;
  e.reserve_full_sequence = true;
  return e;
}

}  // namespace

std::optional<ServeEngine> serve_engine_profile(std::string_view name) {
  if (name == "vllm") return vllm();
  if (name == "tensorrt-llm") return tensorrt_llm();
  return std::nullopt;
}

std::vector<std::string> serve_engine_profile_names() { return {"vllm", "tensorrt-llm"}; }

}  // namespace rapidllm
