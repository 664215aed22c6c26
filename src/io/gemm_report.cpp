#include "io/gemm_report.hpp"

#include <fmt/format.h>

#include "io/collective_report.hpp"
#include "io/csv_row.hpp"
#include "io/text_table.hpp"

namespace rapidllm::io {

namespace {

using nlohmann::json;

json estimate_json(const GemmEstimate& e) {
  json traffic = json::array();
  for (const auto& t : e.traffic) traffic.push_back({{"level", t.level}, {"bytes", t.bytes}, {"time_s", t.time_s}});
  const auto& t = e.tiling;
  return {{"shape", {{"m", e.shape.m}, {"n", e.shape.n}, {"k", e.shape.k}, {"batch", e.shape.batch}}},
          {"time_s", e.time_s},
          {"flops", e.flops},
          {"achieved_flops_per_s", e.achieved_flops_per_s()},
          {"launch_overhead_s", e.launch_overhead_s},
          {"bound_by", e.bound_by},
          {"tiles", e.tiles},
          {"waves", e.waves},
          {"wave_efficiency", e.wave_efficiency},
          {"tiling",
           {{"block_m", t.block_m}, {"block_n", t.block_n}, {"block_k", t.block_k}, {"warp_m", t.warp_m},
            {"warp_n", t.warp_n}, {"split_k", t.split_k}, {"stages", t.stages}, {"ctas_per_sm", t.ctas_per_sm},
            {"cluster_m", t.cluster_m}, {"cluster_n", t.cluster_n}}},
          {"traffic", traffic}};
}

json collective_json(const GemmCollectiveResult& c) {
  json phases = json::array();
  for (const auto& ph : c.estimate.phases) phases.push_back(collective_phase_json(ph));
  return {{"tensor", c.tensor},
          {"op", to_string(c.estimate.op)},
          {"bytes", c.estimate.bytes},
          {"ranks", c.estimate.ranks},
          {"before_gemm", c.before_gemm},
          {"time_s", c.estimate.time_s},
          {"exposed_time_s", c.exposed_time_s},
          {"busbw_bytes_per_s", c.estimate.busbw_bytes_per_s},
          {"phases", phases}};
}

std::string tile_text(const GemmTiling& t) {
  std::string s = fmt::format("{}x{}x{}", t.block_m, t.block_n, t.block_k);
  if (t.split_k > 1) s += fmt::format(" split-k {}", t.split_k);
  if (t.cluster_m * t.cluster_n > 1) s += fmt::format(" cluster {}x{}", t.cluster_m, t.cluster_n);
  return s;
}

}  // namespace

json gemm_report_json(const GemmPrediction& p, const ReportHeader& header) {
  json out = header_json(header);
  json passes = json::array();
  for (const auto& pass : p.passes) {
    json collectives = json::array();
    for (const auto& c : pass.collectives) collectives.push_back(collective_json(c));
    passes.push_back({{"name", pass.name},
                      {"time_s", pass.time_s},
                      {"communication_time_s", pass.communication_time_s},
                      {"exposed_communication_time_s", pass.exposed_communication_time_s},
                      {"compute", estimate_json(pass.compute)},
                      {"collectives", collectives}});
  }
  json memory_energy = json::object();
  for (const auto& [name, j] : p.energy.memory_j) memory_energy[name] = j;
  out.update({{"run_type", "gemm"},
              {"m", p.spec.m},
              {"n", p.spec.n},
              {"k", p.spec.k},
              {"backward", p.spec.backward},
              {"shard_axis", to_string(p.spec.shard_axis)},
              {"dtype", dtype_name(p.dtype)},
              {"num_gpus", p.tp},
              {"tp", p.tp},
              {"tp_sp", p.tp_sp},
              {"network_dimension", p.network_dimension},
              {"time_s", p.time_s},
              {"compute_time_s", p.compute_time_s},
              {"exposed_communication_time_s", p.exposed_communication_time_s},
              {"flops", p.flops},
              {"achieved_flops_per_s", p.achieved_flops_per_s},
              {"achieved_flops_per_s_per_gpu", p.achieved_flops_per_s / p.tp},
              {"peak_flops_per_s_per_gpu", p.peak_flops_per_s_per_gpu},
              {"peak_memory_bytes", p.peak_memory_bytes},
              {"fits_in_memory", p.fits_in_memory},
              {"dynamic_energy_j",
               {{"total", p.energy.total_j}, {"compute", p.energy.compute_j}, {"memory", memory_energy},
                {"network", p.energy.network_j}}},
              {"passes", passes}});
  return out;
}

std::string gemm_report_table(const GemmPrediction& p, const ReportHeader& header) {
  std::string out = header_line(header);
  out += fmt::format("GEMM {}x{}x{} (M x N x K), {}, tp={}{}, shard axis {}\n\n", p.spec.m, p.spec.n, p.spec.k,
                     dtype_name(p.dtype), p.tp, p.tp_sp ? " +SP" : "", to_string(p.spec.shard_axis));
  TextTable passes({"pass", "local M x N x K", "time", "compute", "exposed comm", "bound by", "tile", "waves",
                    "TFLOP/s/GPU"});
  for (const auto& pass : p.passes) {
    const auto& e = pass.compute;
    passes.add_row({pass.name, fmt::format("{}x{}x{}", e.shape.m, e.shape.n, e.shape.k), human_seconds(pass.time_s),
                    human_seconds(e.time_s), human_seconds(pass.exposed_communication_time_s), e.bound_by,
                    tile_text(e.tiling), fmt::format("{:.2f}", e.waves),
                    fmt::format("{:.1f}", e.achieved_flops_per_s() / 1e12)});
  }
  out += passes.render();
  out += fmt::format("\ntotal time      {}\n", human_seconds(p.time_s));
  out += fmt::format("achieved        {} over {} GPU(s) ({:.1f}% of the {} dense peak per GPU)\n",
                     human_rate(p.achieved_flops_per_s, "FLOP"), p.tp,
                     100.0 * p.achieved_flops_per_s / p.tp / p.peak_flops_per_s_per_gpu,
                     human_rate(p.peak_flops_per_s_per_gpu, "FLOP"));
  out += fmt::format("memory per GPU  {} ({})\n", human_bytes(p.peak_memory_bytes),
                     p.fits_in_memory ? "fits" : "DOES NOT FIT");
  out += fmt::format("dynamic energy  {:.4g} J\n", p.energy.total_j);
  return out;
}

const std::vector<std::string>& gemm_csv_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c(kHeaderColumns.begin(), kHeaderColumns.end());
    for (const char* name : {"run_type", "pass", "dtype", "tp", "sp", "shard_axis", "m", "n", "k", "time_s",
                             "compute_time_s", "exposed_communication_time_s", "flops", "achieved_flops_per_s",
                             "bound_by", "block_m", "block_n", "block_k", "split_k", "waves", "peak_memory_bytes",
                             "fits_in_memory", "dynamic_energy_j"}) {
      c.emplace_back(name);
    }
    return c;
  }();
  return columns;
}

std::string gemm_report_csv(const GemmPrediction& p, const ReportHeader& header) {
  const auto& columns = gemm_csv_columns();
  const auto start = [&](const std::string& pass) {
    CsvRow row(columns);
    add_header_cells(row, header);
    row.text("run_type", "gemm");
    row.text("pass", pass);
    row.text("dtype", std::string(dtype_name(p.dtype)));
    row.integer("tp", p.tp);
    row.flag("sp", p.tp_sp);
    row.text("shard_axis", std::string(to_string(p.spec.shard_axis)));
    return row;
  };
  std::vector<CsvRow> rows;
  // A row per pass (local shape, one rank's tile choice; FLOPs of all ranks), then the total.
  for (const auto& pass : p.passes) {
    const auto& e = pass.compute;
    CsvRow row = start(pass.name);
    row.integer("m", e.shape.m);
    row.integer("n", e.shape.n);
    row.integer("k", e.shape.k);
    row.number("time_s", pass.time_s);
    row.number("compute_time_s", e.time_s);
    row.number("exposed_communication_time_s", pass.exposed_communication_time_s);
    row.number("flops", e.flops * p.tp);
    row.number("achieved_flops_per_s", e.flops * p.tp / pass.time_s);
    row.text("bound_by", e.bound_by);
    row.integer("block_m", e.tiling.block_m);
    row.integer("block_n", e.tiling.block_n);
    row.integer("block_k", e.tiling.block_k);
    row.integer("split_k", e.tiling.split_k);
    row.number("waves", e.waves);
    rows.push_back(std::move(row));
  }
  CsvRow total = start("total");
  total.integer("m", p.spec.m);
  total.integer("n", p.spec.n);
  total.integer("k", p.spec.k);
  total.number("time_s", p.time_s);
  total.number("compute_time_s", p.compute_time_s);
  total.number("exposed_communication_time_s", p.exposed_communication_time_s);
  total.number("flops", p.flops);
  total.number("achieved_flops_per_s", p.achieved_flops_per_s);
  total.number("peak_memory_bytes", p.peak_memory_bytes);
  total.flag("fits_in_memory", p.fits_in_memory);
  total.number("dynamic_energy_j", p.energy.total_j);
  rows.push_back(std::move(total));
  return csv_text(columns, rows);
}

}  // namespace rapidllm::io
