// Fuzzes the Hugging Face config.json importer: any text must convert (and the YAML it
// writes load back, which import_hf_config checks itself) or fail with a ConfigError.
#include "fuzz_common.hpp"
#include "rapidllm/hf_import.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  rapidllm::fuzz::quiet_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = rapidllm::fuzz::text_of(data, size);
  // The input stays plain JSON (so the shipped config.json files are seeds as they are);
  // its length's parity picks the run type, so both the training and the inference
  // (decode_len, batch 1) paths are reached.
  rapidllm::HfImportOptions options;
  options.run_type = size % 2 == 0 ? rapidllm::RunType::training : rapidllm::RunType::inference;
  rapidllm::fuzz::expect_clean([&] { (void)rapidllm::import_hf_config(text, "fuzz/config.json", options); });
  return 0;
}
