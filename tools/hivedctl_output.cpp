// SPDX-License-Identifier: GPL-2.0-or-later
// hivedctl_output.h.
#include "hivedctl_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hivedctl {
namespace {

bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool WriteInPlace(const std::string& path, const std::string& text, std::string* err) {
  int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) {
    *err = path + ": " + strerror(errno);
    return false;
  }
  bool ok = WriteAll(fd, text);
  if (close(fd)) ok = false;
  if (!ok) *err = path + ": " + strerror(errno);
  return ok;
}

bool Replace(const std::string& path, const std::string& text, std::string* err) {
  // mkstemp: a new file of our own, never a name someone else prepared (the
  // output may go to /tmp, and hivedctl may run as root).
  std::string tmp = path + ".XXXXXX";
  int fd = mkstemp(&tmp[0]);
  if (fd < 0) {
    *err = tmp + ": " + strerror(errno);
    return false;
  }
  const mode_t mask = umask(0);  // mkstemp gives 0600; keep what open(0644) would give
  umask(mask);
  if (fchmod(fd, 0644 & ~mask)) {
    *err = tmp + ": " + strerror(errno);
    close(fd);
    unlink(tmp.c_str());
    return false;
  }
  const bool written = WriteAll(fd, text);
  if (close(fd) || !written || rename(tmp.c_str(), path.c_str())) {
    *err = path + ": " + strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace

bool WriteOutput(const std::string& path, const std::string& text, std::string* err) {
  if (path == "-") {
    if (fwrite(text.data(), 1, text.size(), stdout) != text.size() || fflush(stdout)) {
      *err = std::string("standard output: ") + strerror(errno);
      return false;
    }
    return true;
  }
  struct stat sb;
  if (lstat(path.c_str(), &sb) != 0) return Replace(path, text, err);  // a new file
  // Only what the caller or root made is written through or followed: in a shared
  // directory someone else's link to /etc/passwd or a disk, or their FIFO, is
  // replaced by our file (which is what rename does), never written into.
  const bool trusted = sb.st_uid == geteuid() || sb.st_uid == 0;
  if (S_ISLNK(sb.st_mode) && trusted && stat(path.c_str(), &sb) == 0) {
    if (S_ISREG(sb.st_mode)) {
      if (char* real = realpath(path.c_str(), nullptr)) {
        const std::string target = real;
        free(real);
        return Replace(target, text, err);  // the link stays a link
      }
    } else if (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode)) {
      return WriteInPlace(path, text, err);  // /dev/stdout
    }
  } else if ((S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode)) && trusted) {
    return WriteInPlace(path, text, err);  // /dev/null, a collector's pipe
  }
  if (S_ISDIR(sb.st_mode)) {
    *err = path + ": is a directory";
    return false;
  }
  return Replace(path, text, err);
}

}  // namespace hivedctl
