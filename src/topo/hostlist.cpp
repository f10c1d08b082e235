// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/hostlist.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "topo/conf_lines.h"

namespace hived {
namespace topo {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (!isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string pad(long v, size_t width) {
  std::string s = std::to_string(v);
  if (s.size() < width) s.insert(0, width - s.size(), '0');
  return s;
}

// Sorted distinct numbers -> "1-4,7,9-11", each zero-padded to width.
std::string join_runs(const std::vector<long>& nums, size_t width) {
  std::string out;
  for (size_t i = 0; i < nums.size();) {
    size_t j = i;
    while (j + 1 < nums.size() && nums[j + 1] == nums[j] + 1) j++;
    if (i) out += ',';
    out += pad(nums[i], width);
    if (j > i) out += "-" + pad(nums[j], width);
    i = j + 1;
  }
  return out;
}

// Walks "1-4,7,09-11": f(item, first number's text, first, last) for each item once
// both ends are numbers in order; the first error (f's or the walk's) is returned.
template <class F>
Status for_each_range(const std::string& text, F f) {
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t dash = item.find('-');
    std::string lo = item.substr(0, dash);
    std::string hi = dash == std::string::npos ? lo : item.substr(dash + 1);
    if (!all_digits(lo) || !all_digits(hi))
      return config_error("'" + item + "' is not a number or a range of numbers");
    long a = std::stol(lo), b = std::stol(hi);
    if (b < a) return config_error("range '" + item + "' runs backwards");
    Status st = f(item, lo, a, b);
    if (!st.ok() || comma == std::string::npos) return st;
    start = comma + 1;
  }
}

// The names a host list may still add; over it, expansion stops before building any.
struct Budget {
  const size_t max;
  size_t left = max;
  bool over = false;
  Status Exceeded() {
    over = true;
    return config_error("more than " + std::to_string(max) + " names");
  }
};

// One bracket body ("1-4,7,09-11") -> its values as text, zero-padded like Slurm does
// (to the width of the range's first number).
Status expand_bracket(const std::string& body, Budget* budget, std::vector<std::string>* out) {
  return for_each_range(
      body, [&](const std::string& item, const std::string& lo, long a, long b) -> Status {
        if (static_cast<size_t>(b - a) >= kMaxHostlistNames)
          return config_error("range '" + item + "' is too large");
        if (static_cast<size_t>(b - a) + 1 > budget->left - std::min(budget->left, out->size()))
          return budget->Exceeded();
        for (long v = a; v <= b; v++) out->push_back(pad(v, lo.size()));
        return Status::Ok();
      });
}

// One top-level item ("rack[1-2]-n[1-4]") -> the cartesian product of its brackets.
Status expand_item(const std::string& item, Budget* budget, std::vector<std::string>* out) {
  std::vector<std::string> acc{""};
  size_t i = 0;
  while (i < item.size()) {
    size_t open = item.find('[', i);
    std::string lit = item.substr(i, open == std::string::npos ? std::string::npos : open - i);
    if (lit.find(']') != std::string::npos) return config_error("']' without '['");
    for (auto& a : acc) a += lit;
    if (open == std::string::npos) break;
    size_t close = item.find(']', open);
    if (close == std::string::npos) return config_error("'[' without ']'");
    std::vector<std::string> vals;
    Status st = expand_bracket(item.substr(open + 1, close - open - 1), budget, &vals);
    if (!st.ok()) return st;
    if (acc.size() * vals.size() > budget->left) return budget->Exceeded();
    std::vector<std::string> next;
    next.reserve(acc.size() * vals.size());
    for (const auto& a : acc)
      for (const auto& v : vals) next.push_back(a + v);
    acc.swap(next);
    i = close + 1;
  }
  if (acc.size() > budget->left) return budget->Exceeded();
  for (auto& a : acc) {
    if (a.empty()) return config_error("empty name");
    out->push_back(std::move(a));
  }
  budget->left -= acc.size();
  return Status::Ok();
}

}  // namespace

Status expand_hostlist(const std::string& text, std::vector<std::string>* out, size_t max_names,
                       bool* over_limit) {
  // Split at commas outside brackets.
  int depth = 0;
  size_t start = 0;
  Budget budget{std::min(max_names, kMaxHostlistNames)};
  if (over_limit) *over_limit = false;
  for (size_t i = 0; i <= text.size(); i++) {
    char c = i < text.size() ? text[i] : ',';
    if (c == '[') {
      if (++depth > 1) return config_error("nested '[' in host list '" + text + "'");
    } else if (c == ']') {
      if (--depth < 0) return config_error("']' without '[' in host list '" + text + "'");
    } else if (c == ',' && depth == 0) {
      std::string item = text.substr(start, i - start);
      start = i + 1;
      if (item.empty()) return config_error("empty name in host list '" + text + "'");
      Status st = expand_item(item, &budget, out);
      if (!st.ok()) {
        if (over_limit) *over_limit = budget.over;
        return config_error(st.msg + " in host list '" + text + "'");
      }
    } else if (isspace(static_cast<unsigned char>(c))) {
      return config_error("space in host list '" + text + "'");
    }
  }
  if (depth != 0) return config_error("'[' without ']' in host list '" + text + "'");
  return Status::Ok();
}

Status FileHostlists::Expand(const std::string& text, std::vector<std::string>* out) {
  const size_t before = out->size();
  const size_t file_left = kMaxHostlistNames - std::min(kMaxHostlistNames, used_);
  const bool file_limit = file_left < kMaxClusterNodes;
  bool over = false;
  Status st = expand_hostlist(text, out, file_limit ? file_left : kMaxClusterNodes, &over);
  if (over)
    return config_error(file_limit ? "more than " + std::to_string(kMaxHostlistNames) +
                                         " names in the host lists of " + file_
                                   : "more than " + std::to_string(kMaxClusterNodes) +
                                         " names in one host list (a cluster has at most " +
                                         std::to_string(kMaxClusterNodes) + " nodes)");
  used_ += out->size() - before;
  return st;
}

std::string compress_hostlist(const std::vector<std::string>& names) {
  struct Group {
    std::string prefix;
    size_t width;  // digits of zero-padded numbers; 0 when unpadded
    std::vector<long> nums;
  };
  std::vector<Group> groups;
  std::map<std::pair<std::string, size_t>, size_t> index;
  std::vector<std::pair<bool, size_t>> order;  // (is_group, index)
  std::vector<std::string> plain;
  auto split = [](const std::string& n) {
    size_t d = n.size();
    while (d > 0 && isdigit(static_cast<unsigned char>(n[d - 1]))) d--;
    return d;
  };
  // Zero-padded widths per prefix: "gpu10" joins "gpu08" (width 2), not "gpu9".
  std::map<std::string, std::vector<size_t>> padded;
  for (const auto& n : names) {
    size_t d = split(n);
    if (n.size() - d > 1 && n.size() - d <= 9 && n[d] == '0')
      padded[n.substr(0, d)].push_back(n.size() - d);
  }
  for (const auto& n : names) {
    size_t d = split(n);
    size_t digits = n.size() - d;
    if (digits == 0 || digits > 9) {
      order.push_back({false, plain.size()});
      plain.push_back(n);
      continue;
    }
    std::string num = n.substr(d);
    size_t width = (num.size() > 1 && num[0] == '0') ? num.size() : 0;
    if (!width) {
      const auto& w = padded[n.substr(0, d)];
      if (std::find(w.begin(), w.end(), num.size()) != w.end()) width = num.size();
    }
    auto key = std::make_pair(n.substr(0, d), width);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, groups.size()).first;
      groups.push_back({key.first, width, {}});
      order.push_back({true, it->second});
    }
    groups[it->second].nums.push_back(std::stol(num));
  }
  std::string out;
  for (const auto& o : order) {
    if (!out.empty()) out += ',';
    if (!o.first) {
      out += plain[o.second];
      continue;
    }
    Group& g = groups[o.second];
    std::sort(g.nums.begin(), g.nums.end());
    g.nums.erase(std::unique(g.nums.begin(), g.nums.end()), g.nums.end());
    if (g.nums.size() == 1) {
      out += g.prefix + pad(g.nums[0], g.width);
      continue;
    }
    out += g.prefix + "[" + join_runs(g.nums, g.width) + "]";
  }
  return out;
}

Status parse_int_ranges(const std::string& text, int max_value, std::vector<int>* out) {
  if (text.empty()) return config_error("empty list");
  return for_each_range(
      text, [&](const std::string& item, const std::string&, long a, long b) -> Status {
        if (b > max_value)
          return config_error("'" + item + "' is above " + std::to_string(max_value));
        for (long v = a; v <= b; v++) out->push_back(static_cast<int>(v));
        return Status::Ok();
      });
}

std::string format_int_ranges(std::vector<int> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return join_runs(std::vector<long>(values.begin(), values.end()), 0);
}

}  // namespace topo
}  // namespace hived
