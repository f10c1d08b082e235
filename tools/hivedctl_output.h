// SPDX-License-Identifier: GPL-2.0-or-later
// Where hivedctl's map and metrics go: stdout ("-"), or a file replaced whole.
#ifndef HIVEDCTL_OUTPUT_H
#define HIVEDCTL_OUTPUT_H

#include <string>

namespace hivedctl {

// A regular file (or a new one) is written to a temporary file beside it and renamed
// over it, so a textfile collector or a browser never reads half of it. A character
// device or FIFO (/dev/null, a pipe) is written in place, since renaming over it would
// put a plain file where the device was; so is what a symbolic link leads to, or the
// link's file replaced with the link kept. Both only for paths the caller or root
// owns: someone else's link or FIFO in a shared directory is replaced, not followed.
// False and *err on failure.
bool WriteOutput(const std::string& path, const std::string& text, std::string* err);

}  // namespace hivedctl

#endif
