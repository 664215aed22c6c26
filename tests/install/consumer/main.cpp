// Predicts the README's example (Llama-2-7B training on one DGX A100, 8-way data parallel
// with ZeRO-1) through the installed library and checks the numbers and the CSV schema.
#include <cstdio>
#include <string>
#include <variant>

#include "rapidllm/predict.hpp"
#include "rapidllm/report.hpp"
#include "rapidllm/scenario.hpp"
#include "rapidllm/version.hpp"

namespace {
int failures = 0;
void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "consumer: FAILED: %s\n", what);
    ++failures;
  }
}
}  // namespace

int main() {
  const std::string configs = RAPIDLLM_CONFIGS_DIR;
  const rapidllm::Scenario scenario =
      rapidllm::load_scenario(configs + "/hardware/A100_SXM4_80GB.yaml", configs + "/models/llama2-7b.yaml",
                              {"parallelism.train.dp=8", "parallelism.micro_batch_size=1", "sw_param.dp_zero_stage=1"});
  const rapidllm::Result result = rapidllm::predict(scenario);
  check(result.ok(), "the shipped example predicts");
  const auto* training = std::get_if<rapidllm::TrainingPrediction>(&result.prediction);
  check(training != nullptr, "a training prediction");
  if (training == nullptr) return 1;
  // README: about 15.2 s per step, 4.3k tokens/s per GPU, 64 GiB per GPU.
  check(training->num_gpus == 8, "8 GPUs");
  check(training->step_time_s > 14.6 && training->step_time_s < 15.6, "step time about 15.2 s");
  check(training->tokens_per_s / 8 > 4200 && training->tokens_per_s / 8 < 4500, "about 4.3k tokens/s per GPU");
  check(training->memory.fits(), "fits in 80 GB");
  const std::string csv = rapidllm::render_prediction(result, scenario, rapidllm::OutputFormat::csv);
  std::string header;
  for (const auto& c : rapidllm::csv_columns(rapidllm::CsvReport::prediction)) header += (header.empty() ? "" : ",") + c;
  check(csv.rfind(header + "\n", 0) == 0, "the CSV starts with the documented header");
  std::printf("rapidllm %s: %.3f s per step\n", rapidllm::kVersion, training->step_time_s);
  return failures == 0 ? 0 : 1;
}
