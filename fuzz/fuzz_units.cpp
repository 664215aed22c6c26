// Fuzzes the unit parsers (sizes, bandwidths, durations, frequencies, plain numbers) and
// the precision names. A parser may refuse the text; what it accepts must be a usable SI
// value: finite, and never negative for a physical quantity.
#include <cmath>
#include <cstdlib>
#include <optional>

#include "fuzz_common.hpp"
#include "rapidllm/dtype.hpp"
#include "rapidllm/units.hpp"

namespace {

void check_quantity(const std::optional<double>& v) {
  if (v && (!std::isfinite(*v) || *v < 0.0)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  rapidllm::fuzz::quiet_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = rapidllm::fuzz::text_of(data, size);
  check_quantity(rapidllm::parse_size_bytes(text));
  check_quantity(rapidllm::parse_bandwidth_bytes_per_s(text));
  check_quantity(rapidllm::parse_duration_s(text));
  check_quantity(rapidllm::parse_frequency_hz(text));
  if (auto n = rapidllm::parse_number(text)) {
    if (!std::isfinite(*n)) std::abort();
    (void)rapidllm::dtype_from_bytes(*n);  // a precision written as a byte count
  }
  if (auto d = rapidllm::parse_dtype(text)) {
    if (!(rapidllm::dtype_bytes(*d) > 0.0) || rapidllm::dtype_name(*d) == "?") std::abort();
  }
  return 0;
}
