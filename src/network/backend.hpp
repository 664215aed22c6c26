// One entry point for every network model: the closed-form analytical backend, the
// congestion-aware flow simulator, and the packet-level ns-3 reference (a separate GPL
// executable that rapidllm runs; see ns3_backend.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapidllm/collective.hpp"
#include "rapidllm/hardware_spec.hpp"

namespace rapidllm::network {

enum class NetworkBackend { analytical, flow, ns3 };

// "analytical" | "flow" | "ns3"; nullopt for anything else.
[[nodiscard]] std::optional<NetworkBackend> parse_backend(std::string_view name);
[[nodiscard]] std::string_view to_string(NetworkBackend backend);

struct BackendOptions {
  // ns3 only: the rapidllm-ns3 executable; empty = ns3_executable() (env RAPIDLLM_NS3, else
  // the one built with rapidllm).
  std::string ns3_executable;
};

// One collective over `group` (spans innermost first, as lay_out_ranks gives them) on the
// network `network` (its faulty links apply to the flow and ns3 backends).
[[nodiscard]] CollectiveEstimate run_collective(NetworkBackend backend, CollectiveOp op, double bytes,
                                                const std::vector<GroupSpan>& group, const NetworkSpec& network,
                                                const ExecutionBackendSpec& exec, const BackendOptions& options = {});

}  // namespace rapidllm::network
