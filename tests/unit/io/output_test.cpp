// -o targets: a regular file is replaced whole, a symbolic link is followed (it stays a
// link), a FIFO is written through (it stays a FIFO), and a folder or a missing folder is
// a usage error naming -o.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "io/output.hpp"
#include "rapidllm/error.hpp"

namespace rapidllm::io {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("rapidllm_output_" + std::to_string(getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Output, AFileIsReplacedWholeAndNoPartialIsLeft) {
  const TempDir dir;
  const fs::path file = dir.path / "out.json";
  std::ofstream(file) << "old and longer";
  write_output("new", file.string());
  EXPECT_EQ(read(file), "new");
  EXPECT_FALSE(fs::exists(dir.path / "out.json.partial"));
}

TEST(Output, ASymbolicLinkIsFollowedAndStaysALink) {
  const TempDir dir;
  const fs::path file = dir.path / "real.json";
  const fs::path link = dir.path / "link.json";
  std::ofstream(file) << "old";
  fs::create_symlink(file, link);
  write_output("new", link.string());
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(read(file), "new");
}

TEST(Output, AFifoIsWrittenThroughAndStaysAFifo) {
  const TempDir dir;
  const fs::path fifo = dir.path / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // A reader on the other end (opening a FIFO for writing waits for one).
  auto reader = std::async(std::launch::async, [&] { return read(fifo); });
  write_output("through the pipe", fifo.string());
  EXPECT_EQ(reader.get(), "through the pipe");
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo);
}

TEST(Output, AFolderOrAMissingFolderIsAUsageErrorNamingTheOption) {
  const TempDir dir;
  for (const fs::path& p : {dir.path, dir.path / "missing" / "out.json"}) {
    try {
      write_output("x", p.string());
      FAIL() << p;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.key_path(), "-o");
    }
  }
  EXPECT_TRUE(fs::is_directory(dir.path));
}

}  // namespace
}  // namespace rapidllm::io
