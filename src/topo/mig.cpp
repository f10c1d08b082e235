// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/mig.h"
#include "topo/conf_lines.h"

#include <cctype>

namespace hived {
namespace topo {
namespace {

// The profile part of a type: after the last '_', or the whole type.
std::string profile_part(const std::string& type) {
  size_t us = type.rfind('_');
  return us == std::string::npos ? type : type.substr(us + 1);
}

size_t digits(const std::string& s, size_t from) {
  size_t i = from;
  while (i < s.size() && isdigit(static_cast<unsigned char>(s[i]))) i++;
  return i - from;
}

}  // namespace

bool is_mig_type(const std::string& type) {
  std::string p = profile_part(type);
  size_t n = digits(p, 0);
  return n > 0 && p.size() > n + 1 && tolower(static_cast<unsigned char>(p[n])) == 'g' &&
         p[n + 1] == '.';
}

Status parse_mig_type(const std::string& type, MigProfile* out) {
  std::string p = profile_part(type);
  std::string lower;
  for (char c : p) lower += static_cast<char>(tolower(static_cast<unsigned char>(c)));
  const Status why = config_error(
      "'" + type + "' is not a MIG profile select/hived knows (1g, 2g, 3g, 4g or 7g of " +
      std::to_string(kMigSlots) + " compute slots, then the memory: e.g. " +
      "a100_3g.20gb or 1g.10gb+me)");
  size_t n = digits(lower, 0);
  if (n == 0 || n > 2) return why;
  int slots = std::stoi(lower.substr(0, n));
  if (slots != 1 && slots != 2 && slots != 3 && slots != 4 && slots != 7) return why;
  if (lower.compare(n, 2, "g.") != 0) return why;
  size_t m = digits(lower, n + 2);
  if (m == 0 || lower.compare(n + 2 + m, 2, "gb") != 0) return why;
  std::string rest = lower.substr(n + 4 + m);
  if (!rest.empty() && rest != "+me") return why;
  MigProfile r;
  r.model = type.size() > p.size() ? type.substr(0, type.size() - p.size() - 1) : "";
  r.profile = p;
  r.slots = slots;
  *out = r;
  return Status::Ok();
}

}  // namespace topo
}  // namespace hived
