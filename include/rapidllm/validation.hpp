// `rapidllm validate`: every published measurement in the ground-truth files predicted
// from a shipped device config and compared, and the per-source error tables.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rapidllm/output_format.hpp"
#include "rapidllm/scenario.hpp"

namespace rapidllm {

namespace detail {
struct ValidationCases;
}  // namespace detail

class ValidationRun;

// The cases of the CSV files in data_dir (devices from configs_dir/hardware), only the
// sources whose short name contains source_filter when it is not empty. A row that cannot
// be modelled is kept as skipped or failed, with the reason. Throws Error when a file
// cannot be read. `overrides` ("key=value", hardware keys) apply to every device config; a
// value they set wins over the row's software-stack profile. Throws ConfigError for a bad one.
[[nodiscard]] ValidationRun run_validation(const std::string& data_dir, const std::string& configs_dir,
                                           const std::string& source_filter = "",
                                           const std::vector<std::string>& overrides = {});

// The scenario one training row is predicted on, for `rapidllm validate --explain ROW`: a
// training.csv row ("T0026") or a nanotron_h100.csv run ("NT0181"), from the same device
// config, profile and plan its case uses; predict() on it gives the case's prediction with
// its breakdown. Throws Error when no training row has that id (inference, collective and
// memory rows are compared through other paths) or the row cannot be modelled.
[[nodiscard]] Scenario validation_row_scenario(const std::string& data_dir, const std::string& configs_dir,
                                               const std::string& row_id,
                                               const std::vector<std::string>& overrides = {});

// The per-source summary, and with list_cases every case (table only; JSON and CSV always
// hold every case).
[[nodiscard]] std::string render_validation(const ValidationRun& run, OutputFormat format, bool list_cases);

// What one run compared; opaque, so the facade does not expose validate/'s types.
class ValidationRun {
 private:
  explicit ValidationRun(std::shared_ptr<const detail::ValidationCases> cases) : cases_(std::move(cases)) {}
  friend ValidationRun run_validation(const std::string& data_dir, const std::string& configs_dir,
                                      const std::string& source_filter, const std::vector<std::string>& overrides);
  friend std::string render_validation(const ValidationRun& run, OutputFormat format, bool list_cases);

  std::shared_ptr<const detail::ValidationCases> cases_;
};

}  // namespace rapidllm
