// Fuzzes --set overrides: each line of the input is one "key.path=value", applied to the
// shipped H100 hardware file and Llama 3.1 8B model file as `rapidllm predict` would.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "fuzz_common.hpp"
#include "rapidllm/config.hpp"

namespace {

std::string g_hardware;
std::string g_model;

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "fuzz_overrides: cannot read {}\n", path);
    std::exit(1);
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Several lines give several overrides, so that one override meeting another (a key set
// below a value the first one replaced) is fuzzed too. A few are enough for that. A final
// newline ends the last line rather than adding an empty override, so seed files written
// by an editor work as they are.
std::vector<std::string> split_lines(const std::string& text) {
  constexpr std::size_t kMaxOverrides = 4;
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size() && out.size() < kMaxOverrides) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  rapidllm::fuzz::quiet_logs();
  g_hardware = read_file(RAPIDLLM_FUZZ_HARDWARE);
  g_model = read_file(RAPIDLLM_FUZZ_MODEL);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> overrides = split_lines(rapidllm::fuzz::text_of(data, size));
  // Each loader refuses the other file's keys with a ConfigError, so both are tried.
  rapidllm::fuzz::expect_clean(
      [&] { (void)rapidllm::load_hardware_text(g_hardware, RAPIDLLM_FUZZ_HARDWARE, overrides); });
  rapidllm::fuzz::expect_clean([&] { (void)rapidllm::load_model_text(g_model, RAPIDLLM_FUZZ_MODEL, overrides); });
  return 0;
}
