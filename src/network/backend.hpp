// One entry point for every network model: the closed-form analytical backend, the
// congestion-aware flow simulator, and the packet-level ns-3 reference (a separate GPL
// executable that rapidllm runs; see ns3_backend.hpp).
#pragma once

#include <string>
#include <vector>

#include "rapidllm/collective.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/network_backend.hpp"
#include "network/work_meter.hpp"

namespace rapidllm::network {

struct BackendOptions {
  // ns3 only: the rapidllm-ns3 executable; empty = ns3_executable() (env RAPIDLLM_NS3, else
  // the one built with rapidllm).
  std::string ns3_executable;
  // Hears how far a flow or ns-3 simulation has got (a progress bar); empty = nobody.
  ProgressFn progress;
};

// One collective over `group` (spans innermost first, as parallel::lay_out_ranks gives them)
// on the network `network` (its faulty links apply to the flow and ns3 backends): a one-off
// make_network(...)->collective(...).
[[nodiscard]] CollectiveEstimate run_collective(NetworkBackend backend, CollectiveOp op, double bytes,
                                                const std::vector<GroupSpan>& group, const NetworkSpec& network,
                                                const ExecutionBackendSpec& exec, const BackendOptions& options = {});

}  // namespace rapidllm::network
