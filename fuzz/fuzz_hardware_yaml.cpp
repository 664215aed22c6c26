// Fuzzes the hardware YAML loader: any text must load or fail with a ConfigError.
#include "fuzz_common.hpp"
#include "rapidllm/config.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  rapidllm::fuzz::quiet_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = rapidllm::fuzz::text_of(data, size);
  rapidllm::fuzz::expect_clean([&] { (void)rapidllm::load_hardware_text(text, "fuzz-hardware.yaml"); });
  return 0;
}
