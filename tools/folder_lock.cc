#include "tools/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace af::tools {

bool lock_folder(const std::string& dir, bool shared, const char* who) {
  std::error_code ec;
  if (!shared) std::filesystem::create_directories(dir, ec);
  const std::string path = dir + "/campaign.lock";
  const int fd = ::open(path.c_str(), shared ? O_RDONLY | O_CLOEXEC : O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 && shared && errno == ENOENT) return true;  // never written by a campaign: nothing to wait for
  if (fd < 0) {
    std::cerr << "aliasfuzz " << who << ": cannot open " << path << ": " << std::strerror(errno) << "\n";
    return false;
  }
  if (::flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
    char buf[256] = {0};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "another process";
    while (!holder.empty() && holder.back() == '\n') holder.pop_back();
    std::cerr << "aliasfuzz " << who << ": " << dir << " is in use by " << holder
              << (shared ? " (a campaign is writing it; merge it when it ends)" : " (one writer per campaign folder)")
              << "\n";
    ::close(fd);
    return false;
  }
  if (!shared) {
    char host[256] = {0};
    ::gethostname(host, sizeof host - 1);
    const std::string me = "pid " + std::to_string(::getpid()) + " on " + host + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) < 0) {
      // the lock holds even without the note of its holder
    }
  }
  return true;  // fd stays open: the lock lives as long as the process
}

}  // namespace af::tools
