#include "rapidllm/predict.hpp"

#include <spdlog/spdlog.h>

#include "api/execution_plan.hpp"
#include "api/step_exports.hpp"
#include "api/prediction_cache_impl.hpp"
#include "exec/gemm_predictor.hpp"
#include "exec/inference_predictor.hpp"
#include "exec/training_predictor.hpp"
#include "rapidllm/error.hpp"
#include "rapidllm/software_stack.hpp"

namespace rapidllm {

namespace {

// The workload's prediction; throws InfeasibleError when the scenario cannot run.
decltype(Result::prediction) predict_workload(const Scenario& scenario, exec::CostCache* costs,
                                              const PredictOptions& options) {
  const StepExports& exports = options.exports;
  if (const auto* gemm = std::get_if<GemmModelSpec>(&scenario.model.workload)) {
    const HardwareSpec& hardware = scenario.hardware;
    if (hardware.sw.compute_efficiency_given || hardware.sw.attention_kernel_given) {
      spdlog::warn("sw_param.compute_efficiency and sw_param.attention_kernel are not applied to a GEMM workload: one "
                   "kernel on its own runs at the device's kernel-level rate (tech_param.core.util); the framework's "
                   "share and attention kernels apply to LLM steps");
    }
    return exec::predict_gemm(hardware, *gemm, scenario.gemm_dtype.value_or(hardware.sw.precision.tensor_format.dtype));
  }
  const auto& llm = std::get<LlmModelSpec>(scenario.model.workload);
  // A hardware file loaded on its own resolves framework "auto" for training; an inference
  // workload takes its own profile (a spec built by hand, with no profile applied, keeps
  // its values).
  std::optional<HardwareSpec> restacked;
  const SoftwareSpec& sw = scenario.hardware.sw;
  if (!stack_resolved_for(sw, llm.run_type)) {
    restacked = scenario.hardware;
    restacked->sw = effective_software(sw, llm.run_type);
  }
  const HardwareSpec& hardware = restacked ? *restacked : scenario.hardware;
  if (sw.attention_kernel_given && !llm.attention.use_flash_attention) {
    spdlog::warn("sw_param.attention_kernel is not used: model_param.attention.use_flashattention is false, so "
                 "attention runs unfused (batched GEMMs and a softmax through HBM); set it true for a fused kernel");
  }
  detail::note_execution_mode(hardware);
  detail::check_exports(exports, hardware);
  const exec::StepRunOptions mode = exec::step_run_options(hardware, llm.run_type);
  exec::Timeline timeline;
  exec::StepGraph graph;
  const bool exporting = !exports.trace_file.empty() || !exports.chakra_dir.empty();
  const auto exported = [&](exec::StepRunOptions& run) {
    if (!exports.trace_file.empty()) run.timeline = &timeline;
    if (exporting) run.graph = &graph;
  };
  decltype(Result::prediction) prediction;
  if (llm.run_type == RunType::training) {
    exec::TrainingRunOptions run;
    static_cast<exec::StepRunOptions&>(run) = mode;
    run.stage_memory = options.stage_memory;
    run.known_memory = options.known_memory;
    exported(run);
    prediction = exec::predict_training(hardware, llm, scenario.model_file, costs, run);
  } else {
    exec::StepRunOptions run = mode;
    exported(run);
    prediction = exec::predict_inference(hardware, llm, scenario.model_file, costs, run);
  }
  if (options.plan_notes) detail::note_batching(hardware, llm);
  if (exporting) detail::write_exports(exports, timeline, graph);
  return prediction;
}

}  // namespace

Result predict_memory(const Scenario& scenario) {
  const auto* llm = std::get_if<LlmModelSpec>(&scenario.model.workload);
  if (llm == nullptr || llm->run_type != RunType::training) {
    throw ConfigError(SourceLocation{scenario.model_file, 0, 0, {}}, "model_param.run_type",
                      "memory without timing is for training steps", "use predict() for this workload");
  }
  Result result;
  try {
    result.prediction = exec::training_memory(scenario.hardware, *llm, scenario.model_file);
  } catch (const InfeasibleError& e) {
    result.status = PredictStatus::infeasible;
    result.message = e.what();
  }
  return result;
}

Result predict(const Scenario& scenario, const PredictOptions& options) {
  Result result;
  try {
    result.prediction = predict_workload(scenario, options.cache != nullptr ? &options.cache->impl_->costs : nullptr,
                                         options);
  } catch (const InfeasibleError& e) {
    // A point that cannot run is a result, not a failure; ConfigError (a workload the
    // models do not cover) propagates.
    result.status = PredictStatus::infeasible;
    result.message = e.what();
  }
  return result;
}

}  // namespace rapidllm
