// nanotron_h100.csv rows -> scenarios: the benchmark's runs of Llama-style models on H100
// nodes (8 GPUs each) under nanotron, read into rapidllm's terms.
//
// The mapping (docs/validation.md, "nanotron"):
// - Model: `llama` (SwiGLU, RMSNorm, RoPE: the rows' hidden_act silu), FlashAttention,
//   hidden / layers / heads from the row. OOM rows leave most architecture columns blank:
//   kv heads, MLP width and tied embeddings then come from the Success rows of the same
//   model size (the `name`'s first field, e.g. "1.34G"), kv heads from a "_gqaN" tag in
//   the name first; vocab_size is filled on every row.
// - Plan: dp / tp / pp / mbs / batch_accum / zero_stage from the row's columns (the config
//   nanotron logged; two names disagree with them, the columns win), global batch
//   dp x mbs x batch_accum sequences of seq_len tokens; tp_mode REDUCE_SCATTER = sequence
//   parallel; pp_engine OneForwardOneBackward = 1F1B (blank on failed rows: nanotron's
//   default, 1F1B), AllForwardAllBackward = GPipe; no activation recompute (nanotron's
//   recompute_layer defaults to off); the nanotron stack's precisions (nanotron_stack.hpp);
//   the nanotron profile, or nanotron-pre-pp-fix for the runs with after_pp_fix = False.
// - Placement: nanotron numbers ranks (pp, dp, cp, tp) with tp fastest
//   (parallel/context.py), so the groups are laid out tp, cp, dp, pp innermost first.
// - Network, for throughput rows: the shipped H100 file's NVSwitch and InfiniBand
//   dimensions with their bandwidths re-scaled so that a 1 GiB fp32 all-reduce over the
//   node's 8 GPUs gives the row's `AR Intra-node (GB/s)` and one over all its GPUs its
//   `AllReduce (GB/s)` (nanotron's measure_bandwidth: 256 Mi fp32 elements, bus bandwidth
//   2(n-1)/n x bytes / time). The all-gather and reduce-scatter columns are not used. They
//   time torch.distributed's list-of-tensors calls, which ZeRO-1's gradient reduce-scatter
//   and parameter gather also make (distributed.py reduce_scatter_coalesced /
//   all_gather_coalesced). Timing those two at the measured rates was tried and made the
//   throughput error worse (docs/validation.md, "Network for throughput").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rapidllm/scenario.hpp"
#include "validate/csv_table.hpp"

namespace rapidllm::validate {

enum class NanotronStatus { success, oom, other };

struct NanotronRow {
  int index = 0;          // 0-based data row in the CSV (even: fitted, odd: held out)
  std::string size;       // the name's size label, "1.34G"
  NanotronStatus status = NanotronStatus::other;
  int nodes = 0;
  int dp = 1, tp = 1, pp = 1, micro_batch_size = 1, accumulation = 1, zero_stage = 0, seq_len = 0;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  // after_pp_fix: run after the benchmark's pipeline-engine fix (blank counts as after);
  // the runs before it take the nanotron-pre-pp-fix stack.
  bool after_pp_fix = true;
  // Architecture, after filling from the same size's Success rows.
  int layers = 0, heads = 0, kv_heads = 0;
  std::int64_t hidden = 0, ffn = 0, vocab = 0;
  bool tied_embeddings = false;
  // Success rows' measurements (0 when blank).
  double tokens_per_s_per_gpu = 0.0;
  double allocated_gib = 0.0, reserved_gib = 0.0;
  double all_reduce_gbps = 0.0, all_reduce_intra_gbps = 0.0;
};

// Whether the run's pipeline sends and receives blocked the host (the nanotron-pre-pp-fix
// engine): every run before the benchmark's pipeline fix, and the runs that measured their
// node's NVLink all-reduce below kDegradedIntraNodeGbps. The other 1,741 Success runs
// measured 385-462 GB/s there; 24 runs, all with a pipeline, measured 45-46 GB/s, and the 21
// of them marked after the fix lost 0.5-1.0 s a micro-batch beyond the prediction: the
// blocking engine's stall (the three before the fix are predicted within 11 % with it).
inline constexpr double kDegradedIntraNodeGbps = 100.0;
[[nodiscard]] bool ran_blocking_pipeline(const NanotronRow& row);

// Every row of the file, architecture filled. Throws Error naming the row when a column
// every row has (name, status, dp/tp/pp, mbs, batch_accum, zero_stage, seq_len, hidden,
// layers, heads, vocab) is missing or not a number, or a size has no Success row to fill
// an OOM row's architecture from.
[[nodiscard]] std::vector<NanotronRow> read_nanotron_rows(const std::string& path);
// The same from rows already read (tests build rows by hand).
[[nodiscard]] std::vector<NanotronRow> nanotron_rows(const std::vector<CsvRow>& rows);

// The row's scenario on `h100` (the shipped H100 SXM file): model, plan, placement and the
// stack's precisions; the network as shipped (see nanotron_network).
[[nodiscard]] Scenario nanotron_scenario(const NanotronRow& row, const HardwareSpec& h100);

// Re-scales the scenario's two network dimensions to the row's measured all-reduce bus
// bandwidths (above). Returns false with `reason` when the row lacks them.
[[nodiscard]] bool nanotron_network(const NanotronRow& row, HardwareSpec& hw, std::string& reason);

// The rows' cluster where its columns are silent: the time a ring step between nodes lasts
// at least, which the measured 1 GiB bandwidths cannot show (a latency). It is an override
// of the H100 file's inter-node dimension placed before `rapidllm validate --set`'s `user`
// overrides, so that theirs still win (scripts/fit_nanotron_network.py tries values that way).
[[nodiscard]] std::vector<std::string> nanotron_cluster_overrides(const std::vector<std::string>& user);

// "1.34G dp8 tp1 pp1 mbs2 acc16 zero0" for case descriptions.
[[nodiscard]] std::string nanotron_plan(const NanotronRow& row);

}  // namespace rapidllm::validate
