// The prediction entry points of the public facade: one scenario's time, memory and energy,
// and one collective on a hardware's network. A scenario that cannot run (attention heads
// not divisible by TP, more ranks than the network holds) comes back as a Result with
// status `infeasible`, not as an exception: a sweep or a validation table keeps it as a row.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "rapidllm/collective.hpp"
#include "rapidllm/gemm_prediction.hpp"
#include "rapidllm/hardware_spec.hpp"
#include "rapidllm/llm_prediction.hpp"
#include "rapidllm/network_backend.hpp"
#include "rapidllm/scenario.hpp"

namespace rapidllm {

enum class PredictStatus { ok, infeasible };

struct Result {
  PredictStatus status = PredictStatus::ok;
  std::string message;  // why the scenario cannot run; empty when ok
  // What the workload predicts (LLM training, LLM inference, GEMM); monostate when infeasible.
  std::variant<std::monostate, TrainingPrediction, InferencePrediction, GemmPrediction> prediction;

  [[nodiscard]] bool ok() const { return status == PredictStatus::ok; }
};

struct PredictOptions;

// Kernel costs kept across predictions: the GEMM tile search is the expensive part of a
// prediction, and predictions on one device ask for the same shapes again and again. Keyed
// by every hardware field the kernel models read, so one cache serves any mix of scenarios.
// Not thread-safe: one per thread. A moved-from cache may only be assigned or destroyed.
class PredictionCache {
 public:
  PredictionCache();
  ~PredictionCache();
  PredictionCache(PredictionCache&& other) noexcept;
  PredictionCache& operator=(PredictionCache&& other) noexcept;
  PredictionCache(const PredictionCache&) = delete;
  PredictionCache& operator=(const PredictionCache&) = delete;

 private:
  friend Result predict(const Scenario& scenario, const PredictOptions& options);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Files a training prediction can also write. The trace needs a step-simulating execution
// mode (execution_backend.astra.mode: full_astrasim_hierarchical or full_astrasim_flattened);
// the Chakra traces are the step's per-rank operator graphs in any mode.
struct StepExports {
  std::string trace_file;   // Chrome/Perfetto JSON timeline (opens in ui.perfetto.dev); empty = none
  std::string trace_ranks;  // which ranks the trace shows, e.g. "0-7,64"; empty = every rank
  std::string chakra_dir;   // one Chakra execution trace per rank: <dir>/rapidllm.<rank>.et; empty = none
};

struct PredictOptions {
  PredictionCache* cache = nullptr;  // nullptr = a cache of this prediction's own
  StepExports exports;
  // Training: size every pipeline rank's memory (TrainingPrediction::stage_memory). false
  // leaves stage_memory empty and sizes only the ranks that can be the peak (`memory` is
  // the same): what a plan search wants, where pp can be 64.
  bool stage_memory = true;
  // Training: the memory predict_memory() gave for this very scenario, taken as is instead
  // of sized again (stage_memory stays empty): a plan search prunes with predict_memory
  // first and times only the plans that fit.
  const MemoryBreakdown* known_memory = nullptr;
  // Warn about the plan's own choices: layers that do not split evenly over the pipeline
  // chunks, micro-batches padded past the batch, routed tokens padded over the experts. A
  // plan search turns this off where the same words were already said.
  bool plan_notes = true;
};

// GEMM workloads run in scenario.gemm_dtype; LLM workloads predict one training step or
// one inference run, as model.run_type says. Throws ConfigError for a model the config
// cannot describe consistently and for exports the workload or mode cannot give (nothing
// is written then).
[[nodiscard]] Result predict(const Scenario& scenario, const PredictOptions& options = {});

// A training scenario's per-GPU memory on its peak stage without timing the step, as
// predict() would report it: what a plan search prunes with before timing. The Result's
// TrainingPrediction has only num_gpus, the micro-batching and `memory` filled (not
// stage_memory). Needs no kernel costs (nor a cache). Throws ConfigError for a workload that is
// not LLM training.
[[nodiscard]] Result predict_memory(const Scenario& scenario);

struct CollectiveRequest {
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0.0;  // nccl-tests size: the per-rank buffer
  int ranks = 1;
  // All ranks in this network dimension; absent = across the dimensions, innermost first.
  std::optional<std::string> dimension;
  NetworkBackend backend = NetworkBackend::analytical;
};

// How far a flow or ns-3 simulation has got: done of total, in the units of its work estimate
// (ns-3: bytes delivered), every few thousand units.
using SimulationProgress = std::function<void(double done, double total)>;

// One collective on the hardware's network (nccl-tests size, algbw, busbw). Throws
// InfeasibleError when the ranks do not fit the network or do not divide evenly over it, and
// ConfigError when a flow or ns3 simulation would pass hardware.execution.max_events or this
// machine's memory (estimated before anything is built; the message gives the estimate).
// `progress` (may be empty) hears how far a flow or ns3 simulation has got.
[[nodiscard]] CollectiveEstimate run_collective(const HardwareSpec& hardware, const CollectiveRequest& request,
                                                const SimulationProgress& progress = {});

}  // namespace rapidllm
