// Reports of one collective estimate (nccl-tests vocabulary: size, algbw, busbw).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/report_header.hpp"
#include "rapidllm/collective.hpp"

namespace rapidllm::io {

// One phase: dimension, op, algorithm, protocol, ranks, bytes, time_s.
[[nodiscard]] nlohmann::json collective_phase_json(const CollectivePhase& p);
[[nodiscard]] nlohmann::json collective_report_json(const CollectiveEstimate& e, const std::string& backend,
                                                    const ReportHeader& header);
[[nodiscard]] std::string collective_report_table(const CollectiveEstimate& e, const std::string& backend,
                                                  const ReportHeader& header);
// One row with collective_csv_columns() (docs/output-schema.md); `dimension` empty when the
// ranks span the dimensions.
[[nodiscard]] const std::vector<std::string>& collective_csv_columns();
[[nodiscard]] std::string collective_report_csv(const CollectiveEstimate& e, const std::string& backend,
                                                const std::string& dimension, const ReportHeader& header);

}  // namespace rapidllm::io
