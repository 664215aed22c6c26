// The network models a collective (or a prediction's communication) can be timed with.
// Nothing outside network/ knows how each one works; callers only name one.
#pragma once

#include <optional>
#include <string_view>

namespace rapidllm {

// analytical: closed-form alpha-beta per phase (the fast path); flow: congestion-aware flow
// simulation over the cluster topology (faulty links apply); ns3: the packet-level ns-3
// reference, a separate GPL executable that rapidllm runs.
enum class NetworkBackend { analytical, flow, ns3 };

// "analytical" | "flow" | "ns3"; nullopt for anything else.
[[nodiscard]] std::optional<NetworkBackend> parse_network_backend(std::string_view name);
[[nodiscard]] std::string_view to_string(NetworkBackend backend);

}  // namespace rapidllm
