// The CSV schemas scripts rely on (docs/output-schema.md): every report kind has one fixed
// column list, the renderers write exactly it whatever the plan, model or run kind, and the
// document lists exactly it, in order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <numeric>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "api_fixtures.hpp"
#include "rapidllm/report.hpp"

namespace rapidllm {
namespace {

using testing::source_path;

constexpr CsvReport kReports[] = {CsvReport::prediction,     CsvReport::gemm,
                                  CsvReport::collective,     CsvReport::validation,
                                  CsvReport::serve_requests, CsvReport::serve_layouts,
                                  CsvReport::serve_steady_state, CsvReport::sweep};

// RFC 4180 lines: commas outside quotes split, doubled quotes are one.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row(1);
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        row.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        row.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.emplace_back();
    } else if (c == '\n') {
      rows.push_back(row);
      row.assign(1, "");
    } else {
      row.back() += c;
    }
  }
  return rows;
}

// docs/output-schema.md: "### <report>" sections, one "| `column` | unit | meaning |" row
// per column.
std::map<std::string, std::vector<std::string>> documented_columns() {
  std::ifstream in(source_path("docs/output-schema.md"));
  std::map<std::string, std::vector<std::string>> out;
  std::string line;
  std::string section;
  const std::regex heading(R"(^###\s+(\S+)\s*$)");
  const std::regex column(R"(^\|\s*`([^`]+)`\s*\|)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, heading)) {
      section = m[1];
      out[section];
    } else if (line.rfind("## ", 0) == 0) {
      section.clear();
    } else if (!section.empty() && std::regex_search(line, m, column)) {
      out[section].push_back(m[1]);
    }
  }
  return out;
}

std::string header_line(CsvReport report) {
  const auto columns = csv_columns(report);
  return std::accumulate(std::next(columns.begin()), columns.end(), columns.front(),
                         [](std::string a, const std::string& b) { return a + "," + b; });
}

// One prediction's CSV as column -> cell, checking the header is the documented one.
std::map<std::string, std::string> prediction_row(const Scenario& s) {
  const Result r = predict(s);
  EXPECT_TRUE(r.ok()) << r.message;
  const auto rows = parse_csv(render_prediction(r, s, OutputFormat::csv));
  EXPECT_EQ(rows.size(), 2u);
  const auto columns = csv_columns(CsvReport::prediction);
  EXPECT_EQ(rows.at(0), columns) << s.model_file;
  EXPECT_EQ(rows.at(1).size(), columns.size());
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < columns.size() && i < rows.at(1).size(); ++i) out[columns[i]] = rows[1][i];
  return out;
}

double sum_of(const std::map<std::string, std::string>& row, const std::string& prefix, const std::string& suffix) {
  double total = 0.0;
  for (const auto& [column, cell] : row) {
    if (column.rfind(prefix, 0) == 0 && column.size() > suffix.size() &&
        column.compare(column.size() - suffix.size(), suffix.size(), suffix) == 0) {
      total += std::stod(cell);
    }
  }
  return total;
}

TEST(CsvSchema, TheDocumentListsEveryReportsColumnsInOrder) {
  const auto documented = documented_columns();
  ASSERT_FALSE(documented.empty()) << "no ### sections in docs/output-schema.md";
  for (const CsvReport report : kReports) {
    const std::string name(to_string(report));
    ASSERT_TRUE(documented.count(name)) << "docs/output-schema.md has no section '### " << name << "'";
    EXPECT_EQ(documented.at(name), csv_columns(report)) << name;
  }
  EXPECT_EQ(documented.size(), std::size(kReports)) << "a documented report no renderer writes";
}

TEST(CsvSchema, ColumnNamesAreUniqueAndEveryCategoryHasItsColumns) {
  for (const CsvReport report : kReports) {
    auto columns = csv_columns(report);
    std::sort(columns.begin(), columns.end());
    EXPECT_EQ(std::adjacent_find(columns.begin(), columns.end()), columns.end()) << to_string(report);
  }
  const auto columns = csv_columns(CsvReport::prediction);
  const auto has = [&](const std::string& c) { return std::find(columns.begin(), columns.end(), c) != columns.end(); };
  // 10 op classes, recompute, 7 communication purposes, the bubble, the optimizer and the
  // stack's host time per step.
  ASSERT_EQ(breakdown_categories().size(), 21u);
  for (const auto category : breakdown_categories()) {
    for (const char* breakdown : {"breakdown.", "prefill_breakdown.", "decode_breakdown."}) {
      EXPECT_TRUE(has(std::string(breakdown) + std::string(category) + "_s")) << breakdown << category;
    }
  }
  for (const auto category : memory_categories()) {
    EXPECT_TRUE(has("memory_breakdown." + std::string(category) + "_bytes")) << category;
  }
  for (const char* c : {"tp", "sp", "cp", "ep", "pp", "dp", "schedule", "vpp", "micro_batch_size", "zero_stage",
                        "recompute", "step_time_s", "ttft_s", "tpot_s", "tokens_per_s", "mfu", "peak_memory_bytes",
                        "fits_in_memory", "energy_j"}) {
    EXPECT_TRUE(has(c)) << c;
  }
}

TEST(CsvSchema, TrainingRowsHaveTheSameColumnsForAnyPlanAndModel) {
  const auto pp1 = prediction_row(testing::shipped_scenario(
      "H100_SXM5_80GB", "llama3.1-8b", {"parallelism.train.dp=8", "parallelism.micro_batch_size=1"}));
  const auto pp4 = prediction_row(testing::shipped_scenario(
      "H100_SXM5_80GB", "llama3.1-70b",
      {"parallelism.tp=4", "parallelism.tp_sp=true", "parallelism.pp=4", "parallelism.cp=2", "parallelism.train.dp=2",
       "parallelism.micro_batch_size=1", "parallelism.pp_schedule=interleaved_1f1b", "parallelism.vpp=5",
       "sw_param.dp_zero_stage=1"}));
  const auto moe = prediction_row(load_scenario(
      source_path("tests/data/rapid-llm-reference/hardware/H100_SXM5_80GB_moe.yaml"),
      source_path("tests/data/rapid-llm-reference/model/GLM_4.5_AIR_106B.yaml")));
  for (const auto* row : {&pp1, &pp4, &moe}) {
    const auto& r = *row;
    EXPECT_EQ(r.at("run_type"), "training");
    // Every category is a number (zero when unused), and they sum to the step.
    EXPECT_NEAR(sum_of(r, "breakdown.", "_s"), std::stod(r.at("step_time_s")), 1e-9 * std::stod(r.at("step_time_s")));
    EXPECT_NEAR(sum_of(r, "memory_breakdown.", "_bytes"), std::stod(r.at("peak_memory_bytes")),
                1e-6 * std::stod(r.at("peak_memory_bytes")));
    EXPECT_EQ(r.at("time_s"), r.at("step_time_s"));
    EXPECT_FALSE(r.at("mfu").empty());
    for (const char* inference_only : {"ttft_s", "tpot_s", "prefill_breakdown.compute.mlp_s", "decode_len"}) {
      EXPECT_EQ(r.at(inference_only), "") << inference_only;
    }
  }
  // The plan as resolved, and the categories a plan does not use at zero, not missing.
  EXPECT_EQ(pp1.at("pp"), "1");
  EXPECT_EQ(pp1.at("dp"), "8");
  EXPECT_EQ(pp1.at("breakdown.pipeline_bubble_s"), "0");
  EXPECT_EQ(pp1.at("breakdown.communication.pp_s"), "0");
  EXPECT_EQ(pp1.at("breakdown.compute.moe_experts_s"), "0");
  EXPECT_EQ(pp1.at("memory_breakdown.kv_cache_bytes"), "0");
  EXPECT_EQ(pp4.at("pp"), "4");
  EXPECT_EQ(pp4.at("tp"), "4");
  EXPECT_EQ(pp4.at("sp"), "true");
  EXPECT_EQ(pp4.at("cp"), "2");
  EXPECT_EQ(pp4.at("schedule"), "interleaved_1f1b");
  EXPECT_EQ(pp4.at("vpp"), "5");
  EXPECT_EQ(pp4.at("zero_stage"), "1");
  EXPECT_GT(std::stod(pp4.at("breakdown.pipeline_bubble_s")), 0.0);
  EXPECT_GT(std::stod(pp4.at("breakdown.communication.pp_s")), 0.0);
  EXPECT_GT(std::stod(moe.at("breakdown.compute.moe_experts_s")), 0.0);
  EXPECT_EQ(moe.at("execution_mode"), "full_astrasim_hierarchical");
}

TEST(CsvSchema, InferenceRowsHaveTheTrainingColumnsToo) {
  const auto dense = prediction_row(
      load_scenario(source_path("configs/hardware/H100_SXM5_80GB.yaml"),
                    source_path("tests/data/rapid-llm-reference/model/Llama3.1-70B_inf.yaml"), {"parallelism.tp=8"}));
  const auto moe = prediction_row(load_scenario(
      source_path("tests/data/rapid-llm-reference/hardware/H100_SXM5_80GB_moe.yaml"),
      source_path("tests/data/rapid-llm-reference/model/DeepSeekV3_inf.yaml")));
  for (const auto* row : {&dense, &moe}) {
    const auto& r = *row;
    EXPECT_EQ(r.at("run_type"), "inference");
    const double ttft = std::stod(r.at("ttft_s"));
    EXPECT_GT(ttft, 0.0);
    EXPECT_NEAR(sum_of(r, "prefill_breakdown.", "_s"), ttft, 1e-9 * ttft);
    EXPECT_NEAR(sum_of(r, "decode_breakdown.", "_s"), std::stod(r.at("decode_time_s")),
                1e-9 * std::stod(r.at("decode_time_s")));
    EXPECT_EQ(r.at("time_s"), r.at("total_time_s"));
    EXPECT_GT(std::stod(r.at("tpot_s")), 0.0);
    EXPECT_GT(std::stod(r.at("memory_breakdown.kv_cache_bytes")), 0.0);
    for (const char* training_only : {"step_time_s", "mfu", "schedule", "zero_stage", "breakdown.compute.mlp_s"}) {
      EXPECT_EQ(r.at(training_only), "") << training_only;
    }
  }
  EXPECT_EQ(dense.at("tp"), "8");
  EXPECT_GT(std::stod(moe.at("prefill_breakdown.compute.moe_experts_s")), 0.0);
}

TEST(CsvSchema, GemmAndCollectiveReportsWriteTheirColumns) {
  const Scenario s = load_scenario(source_path("configs/hardware/H100_SXM5_80GB.yaml"),
                                   source_path("configs/examples/gemm_8192_bf16.yaml"), {"parallelism.tp=2"});
  const auto gemm = parse_csv(render_prediction(predict(s), s, OutputFormat::csv));
  ASSERT_GE(gemm.size(), 3u);
  EXPECT_EQ(gemm[0], csv_columns(CsvReport::gemm));
  for (const auto& row : gemm) EXPECT_EQ(row.size(), gemm[0].size());
  EXPECT_EQ(gemm.back()[5], "total");

  const CollectiveRequest request{.op = CollectiveOp::all_gather, .bytes = 1 << 20, .ranks = 8,
                                  .dimension = std::nullopt, .backend = NetworkBackend::analytical};
  const CollectiveEstimate e = run_collective(s.hardware, request);
  const auto collective = parse_csv(render_collective(e, request, s.hardware, OutputFormat::csv));
  ASSERT_EQ(collective.size(), 2u);
  EXPECT_EQ(collective[0], csv_columns(CsvReport::collective));
  EXPECT_EQ(collective[1].size(), collective[0].size());
}

TEST(CsvSchema, SweepAndServeHeadersAreTheirColumnLists) {
  EXPECT_EQ(sweep_csv_header({}), header_line(CsvReport::sweep) + "\n");
  const std::string varied = sweep_csv_header({"tech_param.DRAM.bandwidth"});
  EXPECT_EQ(varied.rfind("index,tech_param.DRAM.bandwidth,tp,", 0), 0u) << varied;
  const Scenario s = testing::shipped_scenario("H100_SXM5_80GB", "llama3.1-8b");
  const std::string steady = render_serve_steady_state(SteadyState{}, s, ServeOptions{}, OutputFormat::csv);
  EXPECT_EQ(steady.substr(0, steady.find('\n')), header_line(CsvReport::serve_steady_state));
  const std::string layouts = render_serve_layouts({}, 8, s, ServeOptions{}, OutputFormat::csv);
  EXPECT_EQ(layouts, header_line(CsvReport::serve_layouts) + "\n");
  const std::string requests = render_serve(ServeResult{}, s, ServeOptions{}, OutputFormat::csv);
  EXPECT_EQ(requests, header_line(CsvReport::serve_requests) + "\n");
}

}  // namespace
}  // namespace rapidllm
