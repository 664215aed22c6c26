// Unit-bearing quantities as they appear in configs and on the command line.
// Everything returned is SI: bytes, bytes/s, seconds, hertz.
//
// Two spellings are accepted (README.md "Units"):
//  * RAPID-LLM's: KB/MB/GB/TB are binary multiples (2^10..2^40) in sizes *and* bandwidths,
//    and a bandwidth written without "/s" ("1986 GB") means per second.
//  * rapidllm's explicit one: KiB/MiB/GiB/TiB are binary; a bandwidth written with "/s"
//    uses decimal SI prefixes ("450 GB/s" = 450e9 B/s, "3.35 TB/s"); "Gb/s" and "Gbps" are
//    decimal bits per second.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rapidllm {

// Each parser returns std::nullopt when the text is not a valid quantity of that kind;
// callers turn that into a ConfigError naming the key.
std::optional<double> parse_size_bytes(std::string_view text);
std::optional<double> parse_bandwidth_bytes_per_s(std::string_view text);
std::optional<double> parse_duration_s(std::string_view text);
std::optional<double> parse_frequency_hz(std::string_view text);
// A plain number (no unit), in the full floating-point syntax ("9e-6", "1.0", "42").
std::optional<double> parse_number(std::string_view text);

}  // namespace rapidllm
