#include "api/execution_plan.hpp"
#include "network/backend.hpp"
#include "parallel/placement.hpp"
#include "rapidllm/predict.hpp"

namespace rapidllm {

CollectiveEstimate run_collective(const HardwareSpec& hardware, const CollectiveRequest& request,
                                  const SimulationProgress& progress) {
  const auto spans = parallel::lay_out_ranks(hardware.network, request.ranks, request.dimension);
  detail::note_network_settings(hardware, request.backend != NetworkBackend::analytical);
  network::BackendOptions options;
  options.progress = progress;
  return network::run_collective(request.backend, request.op, request.bytes, spans, hardware.network,
                                 hardware.execution, options);
}

}  // namespace rapidllm
