// Speed of the tile-level GEMM model: one uncached estimate (the whole tiling search) per
// LLM-like shape, and cached look-ups over a rotating set of shapes as an OpGraph costing
// pass would issue them.
#include <benchmark/benchmark.h>

#include <array>
#include <string>
#include <vector>

#include "compute/gemm_cache.hpp"
#include "compute/gemm_tile_model.hpp"
#include "rapidllm/config.hpp"

namespace {

using rapidllm::DType;
using rapidllm::GemmShape;
using rapidllm::compute::CachedGemmModel;
using rapidllm::compute::GemmTileModel;

struct NamedShape {
  const char* name;
  GemmShape shape;
};

// Llama-2-70B-ish layer GEMMs (tokens x out x in) plus the search's worst case.
constexpr std::array<NamedShape, 5> kShapes{{
    {"square_8192", {8192, 8192, 8192, 1}},
    {"qkv_4096x10240x8192", {4096, 10240, 8192, 1}},
    {"mlp_down_4096x8192x28672", {4096, 8192, 28672, 1}},
    {"decode_gemv_1x8192x8192", {1, 8192, 8192, 1}},
    {"splitk_256x256x65536", {256, 256, 65536, 1}},
}};

// The shipped device configs: the A100 searches warp tiles only, the H100 also warpgroup
// tiles and thread-block clusters (a larger candidate set).
constexpr std::array<const char*, 2> kDevices{"A100_SXM4_80GB", "H100_SXM5_80GB"};

rapidllm::HardwareSpec device(std::int64_t index) {
  return rapidllm::load_hardware(std::string(RAPIDLLM_SOURCE_DIR) + "/configs/hardware/" +
                                 kDevices.at(static_cast<std::size_t>(index)) + ".yaml");
}

void BM_GemmEstimateUncached(benchmark::State& state) {
  const GemmTileModel model(device(state.range(0)), DType::bf16);
  const NamedShape& s = kShapes.at(static_cast<std::size_t>(state.range(1)));
  state.SetLabel(std::string(kDevices.at(static_cast<std::size_t>(state.range(0)))) + " " + s.name);
  for (auto _ : state) {
    benchmark::DoNotOptimize(model.estimate(s.shape));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GemmEstimateUncached)
    ->ArgsProduct({{0, 1}, benchmark::CreateDenseRange(0, kShapes.size() - 1, 1)})
    ->Unit(benchmark::kMicrosecond);

// 30 distinct shapes: a transformer layer's forward and weight-gradient GEMMs at five
// token counts.
std::vector<GemmShape> rotating_shapes() {
  std::vector<GemmShape> shapes;
  for (std::int64_t tokens : {1, 128, 512, 2048, 8192}) {
    for (const GemmShape& layer :
         {GemmShape{tokens, 10240, 8192, 1}, GemmShape{tokens, 8192, 8192, 1},
          GemmShape{tokens, 57344, 8192, 1}, GemmShape{tokens, 8192, 28672, 1},
          GemmShape{28672, 8192, tokens, 1}, GemmShape{tokens, tokens, 128, 64}}) {
      shapes.push_back(layer);
    }
  }
  return shapes;
}

void BM_GemmEstimateCached(benchmark::State& state) {
  CachedGemmModel cache(GemmTileModel(device(1), DType::bf16));
  const std::vector<GemmShape> shapes = rotating_shapes();
  for (const GemmShape& s : shapes) (void)cache.estimate(s);  // warm: measure look-ups only
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cache.estimate(shapes[i]).time_s);
    i = i + 1 == shapes.size() ? 0 : i + 1;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["distinct_shapes"] = static_cast<double>(cache.size());
}
BENCHMARK(BM_GemmEstimateCached);

}  // namespace
