#include "check/files.h"

#include "base/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace af::fuzz {

namespace {
void write_all(int fd, const std::string& s, const std::string& path) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("cannot write " + path);
    }
    done += static_cast<size_t>(n);
  }
}
}  // namespace

void write_atomic(const std::string& path, const std::string& contents) {
  std::string why;
  if (!base::write_file_atomic(path, contents, &why)) throw std::runtime_error(why);
}

LineAppender::LineAppender(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot open " + path);
}

LineAppender::~LineAppender() {
  if (fd_ >= 0) ::close(fd_);
}

void LineAppender::append(const std::string& line) { write_all(fd_, line + "\n", path_); }

bool read_text(const std::string& path, std::string* out) { return base::read_file(path, out); }

void make_dirs(const std::string& path) { std::filesystem::create_directories(path); }

std::string check_writable_dir(const std::string& dir) {
  try {
    make_dirs(dir);
    write_atomic(dir + "/.writable", "");
    std::filesystem::remove(dir + "/.writable");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace af::fuzz
