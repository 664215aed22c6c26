// Renders the facade's results exactly as the command line prints them: every report
// starts with the tool version, the schema version and the hash of the resolved
// configuration that produced it (reproducible outputs). JSON ends with a newline.
#pragma once

#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapidllm/config.hpp"
#include "rapidllm/output_format.hpp"
#include "rapidllm/predict.hpp"
#include "rapidllm/serve.hpp"
#include "rapidllm/sweep.hpp"

namespace rapidllm {

// A training, inference or GEMM prediction of `scenario`. An infeasible result has
// nothing to render: throws InfeasibleError with its message.
[[nodiscard]] std::string render_prediction(const Result& result, const Scenario& scenario, OutputFormat format);

// `overrides`: the --set overrides the hardware was loaded with, which JSON echoes.
[[nodiscard]] std::string render_collective(const CollectiveEstimate& estimate, const CollectiveRequest& request,
                                            const HardwareSpec& hardware, OutputFormat format,
                                            const std::vector<std::string>& overrides = {});

// A sweep: table = its best points and Pareto front with a summary; csv = one row per kept
// point with fixed columns; json = the summary, the best points, the front and every kept
// point.
[[nodiscard]] std::string render_sweep(const SweepResult& result, OutputFormat format);
// The sweep CSV a line at a time, to stream a big sweep (SweepOptions::on_point).
[[nodiscard]] std::string sweep_csv_header(const std::vector<std::string>& varied_keys);
[[nodiscard]] std::string sweep_csv_row(const SweepPoint& point, RunType run);
// A row sweep_csv_row wrote (without its newline) back into a point, exactly (numbers are
// written with 17 digits); nothing when the row is malformed. `varied_keys`: how many
// varied columns follow the index.
[[nodiscard]] std::optional<SweepPoint> parse_sweep_csv_row(const std::string& row, std::size_t varied_keys);

// A serving simulation of `scenario` under `options`: table = engine, KV cache, throughput,
// a latency table (TTFT, TPOT, ITL, E2E) and goodput under the SLOs given; json = every
// ServeResult field with the engine and workload that produced it (the request log when
// options.keep_requests); csv = one row per completed request (needs keep_requests).
[[nodiscard]] std::string render_serve(const ServeResult& result, const Scenario& scenario,
                                       const ServeOptions& options, OutputFormat format);
// serve_layouts' ranking of the ways to spend `gpus` GPUs: table, json or one csv row each.
[[nodiscard]] std::string render_serve_layouts(const std::vector<ServeLayout>& layouts, int gpus,
                                               const Scenario& scenario, const ServeOptions& options,
                                               OutputFormat format);
// The closed-form offline steady state (serve_steady_state): table, json or a one-row csv.
[[nodiscard]] std::string render_serve_steady_state(const SteadyState& state, const Scenario& scenario,
                                                    const ServeOptions& options, OutputFormat format);
// Every iteration of result.iteration_log (ServeOptions::record_iterations) as a
// Chrome/Perfetto trace (JSON; ui.perfetto.dev): one track per replica, one event per
// iteration named by its mix (prefill, decode, prefill+decode) with its token counts and
// the KV blocks in use when it started.
[[nodiscard]] std::string render_serve_trace(const ServeResult& result);
// Whether a serving workload draws random numbers (Poisson gaps, lengths from a range):
// only then do the reports show its seed and does `rapidllm serve` take --seed.
[[nodiscard]] bool serve_workload_is_random(const ServeWorkload& workload);
// The names serve reports and `rapidllm serve` options use for the enums of serve.hpp.
[[nodiscard]] std::string_view to_string(ServePolicy policy);  // decode-first, prefill-first
[[nodiscard]] std::string_view to_string(ServeRouter router);  // round-robin, least-loaded
[[nodiscard]] std::string_view to_string(ArrivalKind arrivals);  // poisson, concurrency, trace, offline
[[nodiscard]] std::string_view to_string(KvBudget budget);  // fraction-of-total, fraction-of-free

// The CSV reports (docs/output-schema.md documents every column of each). A report of one
// kind has exactly csv_columns(kind), in order, whatever the plan, model or run: a column
// that does not apply to a run is empty, never missing. prediction: `predict` of LLM
// training and inference (one row); gemm: `gemm` and GEMM model files (a row per pass and a
// total); collective; validation (a row per case); serve_requests, serve_layouts,
// serve_steady_state: `serve`'s three reports; sweep: one row per point, the --vary keys'
// columns inserted after `index`.
enum class CsvReport { prediction, gemm, collective, validation, serve_requests, serve_layouts, serve_steady_state, sweep };
[[nodiscard]] std::string_view to_string(CsvReport report);  // "prediction", "serve_requests", ...
[[nodiscard]] std::vector<std::string> csv_columns(CsvReport report);

// `rapidllm config list`: key path, file, type, unit, default and meaning of each setting.
[[nodiscard]] std::string render_settings(const std::vector<SettingInfo>& settings, OutputFormat format);

// Writes `text` to `path` whole (temp file + rename, so a failed run never leaves half a
// result behind), or to stdout when path is empty or "-". A symbolic link is followed; a
// device or a FIFO is written through, never replaced. Throws ConfigError for a path that
// cannot be written (a folder, a missing folder, no permission, a read-only file system),
// Error when the write fails on the way (disk full).
void write_output(const std::string& text, const std::string& path);
// The same checks before any work, so a long run does not end in an unwritable -o: throws
// ConfigError for a folder, a missing folder or one this user may not write to (root may
// write anywhere; write_output still refuses what the file system does).
void check_output(const std::string& path);

// The same for output written piece by piece (a streamed sweep): to stdout as it comes, or
// to `path` through a temp file renamed by commit() (a device or FIFO: directly);
// destroyed uncommitted (an error on the way), it removes the temp file, so no
// half-written result is left. Throws as write_output does.
class StreamedOutput {
 public:
  explicit StreamedOutput(const std::string& path);
  ~StreamedOutput();
  StreamedOutput(const StreamedOutput&) = delete;
  StreamedOutput& operator=(const StreamedOutput&) = delete;
  void write(const std::string& text);
  void commit();

 private:
  std::string path_;
  std::string target_;  // the file written (links followed)
  std::string temp_;    // FILE.partial for a regular file; empty when written through
  std::unique_ptr<std::ofstream> file_;
};

}  // namespace rapidllm
