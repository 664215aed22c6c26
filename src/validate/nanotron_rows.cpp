#include "validate/nanotron_rows.hpp"

#include <algorithm>
#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "rapidllm/error.hpp"
#include "rapidllm/predict.hpp"
#include "validate/device_map.hpp"
#include "validate/nanotron_stack.hpp"

namespace rapidllm::validate {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kInterNodeStepLatencyUs = 55.0;  // scripts/fit_nanotron_network.py (nanotron_cluster_overrides)

double required(const CsvRow& r, const char* column, int index) {
  const auto v = r.number(column);
  if (!v) throw Error(fmt::format("nanotron row {}: '{}' is not a number ('{}')", index, column, r.text(column)));
  return *v;
}

int whole(double v) { return static_cast<int>(std::lround(v)); }

NanotronStatus status_of(const std::string& s, int index) {
  if (s == "Success") return NanotronStatus::success;
  if (s == "OOM") return NanotronStatus::oom;
  if (s == "Other") return NanotronStatus::other;
  throw Error(fmt::format("nanotron row {}: status '{}' is none of Success, OOM, Other", index, s));
}

// The architecture one size's Success rows state (the first one's).
struct SizeArchitecture {
  int kv_heads = 0;
  std::int64_t ffn = 0;
  bool tied = false;
};

}  // namespace

std::vector<NanotronRow> nanotron_rows(const std::vector<CsvRow>& rows) {
  std::vector<NanotronRow> out;
  std::map<std::string, SizeArchitecture> sizes;
  static const std::regex gqa("_gqa([0-9]+)");
  std::vector<int> kv_from_name;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CsvRow& r = rows[i];
    NanotronRow n;
    n.index = static_cast<int>(i);
    const std::string& name = r.text("name");
    const auto cut = name.find('_');
    if (name.empty() || cut == 0) throw Error(fmt::format("nanotron row {}: no size label in name '{}'", i, name));
    n.size = name.substr(0, cut);
    n.status = status_of(r.text("status"), n.index);
    n.dp = whole(required(r, "dp", n.index));
    n.tp = whole(required(r, "tp", n.index));
    n.pp = whole(required(r, "pp", n.index));
    n.nodes = whole(r.number("nodes").value_or((n.dp * n.tp * n.pp + 7) / 8));
    n.micro_batch_size = whole(required(r, "mbs", n.index));
    n.accumulation = whole(required(r, "batch_accum", n.index));
    n.zero_stage = whole(required(r, "zero_stage", n.index));
    n.seq_len = whole(required(r, "seq_len", n.index));
    n.hidden = static_cast<std::int64_t>(required(r, "hidden_size", n.index));
    n.layers = whole(required(r, "num_layers", n.index));
    n.heads = whole(required(r, "num_heads", n.index));
    n.vocab = static_cast<std::int64_t>(required(r, "vocab_size", n.index));
    n.schedule = r.text("pp_engine").find("AllForwardAllBackward") != std::string::npos ? PipelineSchedule::gpipe
                                                                                         : PipelineSchedule::one_f_one_b;
    const std::string& fixed = r.text("after_pp_fix");
    if (fixed != "True" && fixed != "False" && !fixed.empty()) {
      throw Error(fmt::format("nanotron row {}: after_pp_fix is '{}', not True or False", i, fixed));
    }
    n.after_pp_fix = fixed != "False";
    std::smatch m;
    kv_from_name.push_back(std::regex_search(name, m, gqa) ? std::stoi(m[1].str()) : 0);
    n.kv_heads = whole(r.number("num_kv_heads").value_or(0));
    n.ffn = static_cast<std::int64_t>(r.number("interm_dim").value_or(0));
    n.tied_embeddings = r.text("tie_word_embeddings") == "True";
    // A size's architecture: its first Success row that is not a "_gqaN" variant.
    if (n.status == NanotronStatus::success && kv_from_name.back() == 0 && !sizes.count(n.size)) {
      sizes[n.size] = SizeArchitecture{n.kv_heads, n.ffn, n.tied_embeddings};
      if (n.ffn <= 0) throw Error(fmt::format("nanotron row {}: a Success row without interm_dim", i));
    }
    n.tokens_per_s_per_gpu = r.number("tok/s/gpu").value_or(0.0);
    n.allocated_gib = r.number("Mem Alloc (GB)").value_or(0.0);
    n.reserved_gib = r.number("Mem Res (GB)").value_or(0.0);
    n.all_reduce_gbps = r.number("AllReduce (GB/s)").value_or(0.0);
    n.all_reduce_intra_gbps = r.number("AR Intra-node (GB/s)").value_or(0.0);
    out.push_back(std::move(n));
  }
  // Blank architecture columns (failed runs log none) from the same size's Success rows:
  // every size in the file keeps one architecture but for a "_gqaN" variant, named so.
  for (std::size_t i = 0; i < out.size(); ++i) {
    NanotronRow& n = out[i];
    const bool blank = rows[i].text("tie_word_embeddings").empty();
    const auto it = sizes.find(n.size);
    if (it == sizes.end()) {
      if (n.status == NanotronStatus::other) continue;
      throw Error(fmt::format("nanotron row {}: no Success row of size {} to take its architecture from", i, n.size));
    }
    if (n.kv_heads <= 0) n.kv_heads = kv_from_name[i] > 0 ? kv_from_name[i] : it->second.kv_heads;
    if (n.ffn <= 0) n.ffn = it->second.ffn;
    if (blank) n.tied_embeddings = it->second.tied;
  }
  return out;
}

std::vector<NanotronRow> read_nanotron_rows(const std::string& path) { return nanotron_rows(read_csv(path)); }

bool ran_blocking_pipeline(const NanotronRow& row) {
  const bool degraded_node = row.all_reduce_intra_gbps > 0.0 && row.all_reduce_intra_gbps < kDegradedIntraNodeGbps;
  return !row.after_pp_fix || degraded_node;
}

std::string nanotron_plan(const NanotronRow& r) {
  return fmt::format("{} dp{} tp{} pp{} mbs{} acc{} zero{}", r.size, r.dp, r.tp, r.pp, r.micro_batch_size,
                     r.accumulation, r.zero_stage);
}

Scenario nanotron_scenario(const NanotronRow& row, const HardwareSpec& h100) {
  LlmModelSpec m;
  m.run_type = RunType::training;
  m.model_type = "llama";
  m.num_layers = row.layers;
  m.hidden_dim = row.hidden;
  m.intermediate_size = row.ffn;
  m.vocab_size = row.vocab;
  m.seq_len = row.seq_len;
  m.tied_embeddings = row.tied_embeddings;
  m.global_batch_size = 1LL * row.dp * row.micro_batch_size * row.accumulation;
  m.attention.num_heads = row.heads;
  m.attention.kv_heads = row.kv_heads;
  m.attention.type = row.kv_heads == row.heads ? AttentionType::mha : AttentionType::gqa;
  m.attention.use_flash_attention = true;

  HardwareSpec hw = h100;
  use_row_stack(hw, ran_blocking_pipeline(row) ? "nanotron pre-pp-fix" : "nanotron", RunType::training);
  ParallelismSpec& p = hw.parallelism;
  p.tp = row.tp;
  p.tp_sp = row.tp > 1;  // tp_mode REDUCE_SCATTER on every row
  p.pp = row.pp;
  p.dp = row.dp;
  p.cp = 1;
  p.micro_batch_size = row.micro_batch_size;
  p.pp_schedule = row.schedule;
  p.vpp = 1;
  // nanotron balances its pipeline stages by compute (models/base.py build_model).
  p.layer_split = LayerSplit::compute_balanced;
  hw.sw.dp_zero_stage = row.zero_stage;
  hw.sw.recompute = ActivationRecompute::none;
  apply_nanotron_precision(hw.sw);
  use_framework_rank_order(hw);  // nanotron's: tp fastest, then cp, dp, pp (parallel/context.py)
  return Scenario{std::move(hw), ModelSpec{{}, m}, nanotron_plan(row), std::nullopt, {}};
}

namespace {

// Scales dimension `dim`'s bandwidth until a 1 GiB all-reduce over `ranks` (all the
// dimensions' ranks, innermost first) has bus bandwidth `target` (bytes/s). A few
// multiplicative steps: at 1 GiB the time is bandwidth-bound, so the bus bandwidth is
// nearly proportional. The scale is capped at 64x either way (a target the other
// dimension cannot reach stops there).
void match_all_reduce(HardwareSpec& hw, std::size_t dim, int ranks, double target) {
  NetworkDimension& d = hw.network.dimensions[dim];
  const std::vector<double> shipped = d.bandwidth_bytes_per_s;
  double scale = 1.0;
  for (int step = 0; step < 6; ++step) {
    const CollectiveRequest request{CollectiveOp::all_reduce, kGiB, ranks, std::nullopt, NetworkBackend::analytical};
    const double busbw = run_collective(hw, request).busbw_bytes_per_s;
    if (std::fabs(busbw / target - 1.0) < 1e-3) break;
    scale = std::clamp(scale * target / busbw, 1.0 / 64.0, 64.0);
    for (std::size_t i = 0; i < shipped.size(); ++i) d.bandwidth_bytes_per_s[i] = shipped[i] * scale;
  }
}

}  // namespace

std::vector<std::string> nanotron_cluster_overrides(const std::vector<std::string>& user) {
  // A ring step between two of the cluster's nodes, fitted by scripts/fit_nanotron_network.py
  // on the even Success rows with tp > 8 and pp = 1 (their TP all-gathers and
  // reduce-scatters span 2-16 nodes at micro-batch sizes that make them latency-bound). The
  // runs' scratch space is Amazon FSx (/fsx, nanotron's benchmark scripts): an AWS cluster,
  // whose EFA fabric, driven through NCCL's libfabric plugin, pays far more per message
  // than the DGX file's InfiniBand (5 us).
  std::vector<std::string> out{fmt::format("network.dimensions[1].topology.latency={} us", kInterNodeStepLatencyUs)};
  out.insert(out.end(), user.begin(), user.end());
  return out;
}

bool nanotron_network(const NanotronRow& row, HardwareSpec& hw, std::string& reason) {
  if (row.all_reduce_gbps <= 0.0 || row.all_reduce_intra_gbps <= 0.0) {
    reason = "no measured all-reduce bandwidth";
    return false;
  }
  if (hw.network.dimensions.size() != 2) {
    reason = "the device file has not the two network dimensions (NVSwitch, InfiniBand) the mapping re-scales";
    return false;
  }
  const int gpus = row.dp * row.tp * row.pp;
  match_all_reduce(hw, 0, std::min(gpus, 8), row.all_reduce_intra_gbps * 1e9);
  if (gpus > 8) match_all_reduce(hw, 1, gpus, row.all_reduce_gbps * 1e9);
  return true;
}

}  // namespace rapidllm::validate
