// SPDX-License-Identifier: GPL-2.0-or-later
// Each fuzz target defines its entry with HIVED_FUZZ_TARGET(name). Built as a libFuzzer
// program it is LLVMFuzzerTestOneInput; test_fuzz_corpus links all targets into one
// Check program (HIVED_FUZZ_DRIVER), where each needs a name of its own.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>

#ifdef HIVED_FUZZ_DRIVER
#define HIVED_FUZZ_TARGET(name) extern "C" int hived_fuzz_##name(const uint8_t *data, size_t size)
#else
#define HIVED_FUZZ_TARGET(name) \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
#endif

namespace hived_fuzz {

// Splits the input at lines that are exactly `marker`; the corpus files use it to put
// several files (slurm.conf, gres.conf, ...) in one input. Missing parts are "".
inline std::string Part(const std::string &text, const std::string &marker, int index) {
  const std::string sep = "\n" + marker + "\n";
  size_t begin = 0;
  for (int i = 0; i < index; i++) {
    size_t at = text.find(sep, begin);
    if (at == std::string::npos) return "";
    begin = at + sep.size();
  }
  size_t end = text.find(sep, begin);
  return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

}  // namespace hived_fuzz
