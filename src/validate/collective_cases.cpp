// collectives.csv rows -> the analytical collective model on the shipped device's
// network, compared on nccl-tests bus bandwidth, with what the row's benchmark harness adds
// to the collective's time (benchmark_harness.hpp).
#include <fmt/format.h>

#include "rapidllm/collective.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"
#include "validate/benchmark_harness.hpp"
#include "validate/cases.hpp"
#include "validate/csv_table.hpp"
#include "validate/device_map.hpp"

namespace rapidllm::validate {

std::vector<CaseResult> collective_cases(const CaseInputs& in) {
  std::vector<CaseResult> out;
  for (const auto& r : read_csv(in.data_dir + "/collectives.csv")) {
    if (!in.wanted(source_name(r.text("source")))) continue;
    CaseResult c;
    c.row_id = r.text("row_id");
    c.source = source_name(r.text("source"));
    c.kind = "collective";
    c.metric = "busbw_bytes_per_s";
    c.description = fmt::format("{} {} B on {} x {}", r.text("collective").substr(0, 10), r.text("size_bytes"),
                                r.text("num_gpus"), r.text("gpu").substr(0, 14));
    const auto busbw = r.number("busbw_GBps");
    const auto size = r.number("size_bytes");
    const auto gpus = r.number("num_gpus");
    const auto time_us = r.number("time_us");
    const bool timed = size && gpus && time_us && *size > 0 && *time_us > 0;
    if (!size || !gpus || (!timed && !(busbw && *busbw > 0))) {
      c.reason = "no message size or bus bandwidth published";
      out.push_back(c);
      continue;
    }
    // nccl-tests prints busbw rounded to 0.01 GB/s (0.00 below ~8 KB on 8 GPUs); where the
    // time is published, busbw = bus factor x size / time is the unrounded same quantity.
    c.measured = timed ? bus_bandwidth_factor(CollectiveOp::all_reduce, static_cast<int>(*gpus)) * *size / (*time_us * 1e-6)
                       : *busbw * 1e9;  // nccl-tests GB/s = 1e9 B/s
    if (r.text("collective").rfind("all_reduce", 0) != 0) {
      c.reason = "only all-reduce rows are compared";
      out.push_back(c);
      continue;
    }
    const auto harness = harness_of(r.text("tool"));
    if (!harness) {
      c.reason = fmt::format("tool '{}' is neither nccl-tests nor a torch.distributed benchmark", r.text("tool"));
      out.push_back(c);
      continue;
    }
    std::string reason;
    auto hw = device_for(r.text("gpu"), in.config_dir, in.overrides, reason);
    // The shipped systems join their nodes with InfiniBand: a row measured across nodes on
    // another fabric (AWS EFA's SRD, RoCE) ran on a network no config describes.
    const std::string fabric = r.text("inter_node");
    if (hw && r.number("num_nodes").value_or(1.0) > 1.0 && fabric.find("IB") == std::string::npos &&
        fabric.find("InfiniBand") == std::string::npos) {
      reason = fmt::format("across nodes on '{}': the shipped configs' inter-node network is InfiniBand",
                           fabric.substr(0, 30));
      hw.reset();
    }
    if (!hw) {
      c.reason = reason;
      out.push_back(c);
      continue;
    }
    // A row that forced NCCL's algorithm (NCCL_ALGO=Ring / NVLS) is predicted with it.
    const std::string algo = r.text("algo");
    if (algo.rfind("Ring", 0) == 0) hw->execution.collectives[CollectiveOp::all_reduce] = CollectiveAlgorithm::ring;
    if (algo.rfind("NVLS", 0) == 0 && hw->network.dimensions.front().in_network_reduction) {
      hw->execution.collectives[CollectiveOp::all_reduce] = CollectiveAlgorithm::nvls;
    }
    try {
      const CollectiveRequest request{.op = CollectiveOp::all_reduce,
                                      .bytes = *size,
                                      .ranks = static_cast<int>(*gpus),
                                      .dimension = std::nullopt,
                                      .backend = NetworkBackend::analytical};
      const double time_s = run_collective(*hw, request).time_s + harness_overhead_s(*harness);
      c.predicted = bus_bandwidth_factor(CollectiveOp::all_reduce, request.ranks) * *size / time_s;
      c.status = CaseStatus::compared;
    } catch (const InfeasibleError& e) {  // a collective the device's network cannot run
      c.status = CaseStatus::failed;
      c.reason = e.what();
    }
    out.push_back(c);
  }
  return out;
}

std::vector<CaseResult> all_cases(const CaseInputs& in) {
  PredictionCache cache;
  std::vector<CaseResult> cases = training_cases(in, cache);
  for (auto& c : inference_cases(in, cache)) cases.push_back(std::move(c));
  for (auto& c : collective_cases(in)) cases.push_back(std::move(c));
  for (auto& c : memory_cases(in, cache)) cases.push_back(std::move(c));
  for (auto& c : nanotron_cases(in, cache)) cases.push_back(std::move(c));
  return cases;
}

}  // namespace rapidllm::validate
