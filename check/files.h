// Small file helpers with the guarantees campaigns need: a file is either
// its old contents or its complete new contents, never half written.
#pragma once
#include <string>

namespace af::fuzz {

// base::write_file_atomic, throwing std::runtime_error on failure (the
// campaign's convention).
void write_atomic(const std::string& path, const std::string& contents);
// A file kept open for appending lines: each line (a '\n' is added) is
// one write() of O_APPEND, so a killed process leaves whole lines (at most
// a torn last one, which readers drop). No fsync: a killed process loses
// nothing the kernel has accepted.
class LineAppender {
 public:
  explicit LineAppender(const std::string& path);  // throws std::runtime_error
  ~LineAppender();
  LineAppender(const LineAppender&) = delete;
  LineAppender& operator=(const LineAppender&) = delete;
  void append(const std::string& line);

 private:
  std::string path_;
  int fd_ = -1;
};
bool read_text(const std::string& path, std::string* out);  // base::read_file
void make_dirs(const std::string& path);
// Creates `dir` and checks a file can be written there (before a command
// does its work): "" when it can, else why not.
std::string check_writable_dir(const std::string& dir);

}  // namespace af::fuzz
