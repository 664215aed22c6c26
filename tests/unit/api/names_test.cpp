// The names the command line and configs use for the facade's enums.
#include <gtest/gtest.h>

#include "rapidllm/network_backend.hpp"
#include "rapidllm/output_format.hpp"

namespace rapidllm {
namespace {

TEST(Names, OutputFormats) {
  EXPECT_EQ(parse_output_format("table"), OutputFormat::table);
  EXPECT_EQ(parse_output_format("json"), OutputFormat::json);
  EXPECT_EQ(parse_output_format("csv"), OutputFormat::csv);
  for (const char* unknown : {"xml", "JSON", "", "tables"}) {
    EXPECT_FALSE(parse_output_format(unknown).has_value()) << unknown;
  }
}

TEST(Names, NetworkBackendsRoundTrip) {
  for (const NetworkBackend b : {NetworkBackend::analytical, NetworkBackend::flow, NetworkBackend::ns3}) {
    EXPECT_EQ(parse_network_backend(to_string(b)), b);
  }
  for (const char* unknown : {"ns-3", "packet", "", "Flow"}) {
    EXPECT_FALSE(parse_network_backend(unknown).has_value()) << unknown;
  }
}

}  // namespace
}  // namespace rapidllm
