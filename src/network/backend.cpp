#include "network/backend.hpp"

#include "network/network_api.hpp"

namespace rapidllm {

std::optional<NetworkBackend> parse_network_backend(std::string_view name) {
  if (name == "analytical") return NetworkBackend::analytical;
  if (name == "flow") return NetworkBackend::flow;
  if (name == "ns3") return NetworkBackend::ns3;
  return std::nullopt;
}

std::string_view to_string(NetworkBackend backend) {
  switch (backend) {
    case NetworkBackend::analytical: return "analytical";
    case NetworkBackend::flow: return "flow";
    case NetworkBackend::ns3: return "ns3";
  }
  return "?";
}

}  // namespace rapidllm

namespace rapidllm::network {

CollectiveEstimate run_collective(NetworkBackend backend, CollectiveOp op, double bytes,
                                  const std::vector<GroupSpan>& group, const NetworkSpec& network,
                                  const ExecutionBackendSpec& exec, const BackendOptions& options) {
  return make_network(backend, network, exec, options.ns3_executable, options.progress)->collective(op, bytes, group);
}

}  // namespace rapidllm::network
