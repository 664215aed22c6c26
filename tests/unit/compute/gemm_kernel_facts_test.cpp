// The shipped device files alone reproduce published kernel-level GEMM rates (issue: the
// kernel's efficiency is the device's, what a framework loses is its software stack's).
// Each rate is the kernel body (back-to-back launches hide the launch gap), as measured.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compute/gemm_tile_model.hpp"
#include "rapidllm/config.hpp"

namespace rapidllm::compute {
namespace {

std::string shipped(const std::string& rel) { return std::string(RAPIDLLM_SOURCE_DIR) + "/" + rel; }

double kernel_tflops(const std::string& device, DType dtype, std::int64_t m, std::int64_t n, std::int64_t k) {
  const GemmTileModel model(load_hardware(shipped("configs/hardware/" + device + ".yaml")), dtype);
  const GemmEstimate e = model.estimate({m, n, k, 1});
  return e.flops / (e.time_s - e.launch_overhead_s) / 1e12;
}

// The three facts the fidelity issue names: cuBLAS on A100 SXM (fp16/bf16 share a rate) at
// ~268 and ~271 TFLOP/s, and bf16 8192^3 on H100 SXM at ~800 TFLOP/s (1.37 ms).
TEST(GemmKernelFacts, A100AndH100RatesWithinFivePercent) {
  EXPECT_NEAR(kernel_tflops("A100_SXM4_80GB", DType::fp16, 6912, 16384, 2048), 268.0, 0.05 * 268.0);
  EXPECT_NEAR(kernel_tflops("A100_SXM4_80GB", DType::fp16, 1024, 10240, 5120), 271.0, 0.05 * 271.0);
  EXPECT_NEAR(kernel_tflops("H100_SXM5_80GB", DType::bf16, 8192, 8192, 8192), 800.0, 0.05 * 800.0);
}

// Every Hopper, Ampere and CDNA 3 (MI300X) row of validation/kernels/gemm.csv (the rows
// gemm_util and fp8_gemm_util are fitted on) within 5 %. Blackwell's rows are not held to
// it: the tile model keeps those GEMMs L2-bound (docs/software-stacks.md).
TEST(GemmKernelFacts, HopperAmpereAndCdna3RowsOfTheKernelTableWithinFivePercent) {
  std::ifstream in(shipped("validation/kernels/gemm.csv"));
  ASSERT_TRUE(in) << "validation/kernels/gemm.csv";
  std::string line;
  std::getline(in, line);  // header: row_id,gpu,dtype,m,n,k,tflops,theory_tflops,...
  int checked = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; f.size() < 8 && std::getline(ss, cell, ',');) f.push_back(cell);
    const std::string& gpu = f[1];
    const char* device = gpu.rfind("A100", 0) == 0   ? "A100_SXM4_80GB"
                         : gpu.rfind("H100", 0) == 0 ? "H100_SXM5_80GB"
                         : gpu.rfind("H200", 0) == 0 ? "H200_SXM_141GB"
                         : gpu.rfind("MI300X", 0) == 0 ? "MI300X_OAM_192GB"
                                                     : nullptr;
    if (device == nullptr) continue;
    const DType dtype = f[2] == "fp8" ? DType::fp8 : DType::bf16;
    const double measured = std::stod(f[6]);
    EXPECT_NEAR(kernel_tflops(device, dtype, std::stoll(f[3]), std::stoll(f[4]), std::stoll(f[5])), measured,
                0.05 * measured)
        << f[0] << " " << gpu << " " << f[2] << " " << f[3] << "x" << f[4] << "x" << f[5];
    ++checked;
  }
  EXPECT_EQ(checked, 7);
}

}  // namespace
}  // namespace rapidllm::compute
