// SPDX-License-Identifier: GPL-2.0-or-later
#include "hived_conf.h"

#include <fcntl.h>
#include <jansson.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <algorithm>
#include <new>
#include <vector>

#include "conf_cells.h"
#include "conf_json.h"

namespace hived {

namespace {

using conf::config_error;
using conf::describe;
using conf::key_path;

const char kSlurm[] = "slurm";

// A hived.conf is a few hundred kilobytes even for 100k GPUs; anything far larger is
// not a config and is refused before it is read into memory.
constexpr size_t kMaxFileBytes = 64u << 20;

// HiveD's own top-level settings (Kubernetes side): ignored without a warning so that
// a HiveD config loads unchanged and quietly.
const char* const kHivedKeys[] = {"kubeApiServerAddress",
                                  "kubeConfigFilePath",
                                  "webServerAddress",
                                  "forcePodBindThreshold",
                                  "waitingPodSchedulingBlockMilliSec",
                                  "quotaExcludeVCs"};

class JsonRef {
 public:
  explicit JsonRef(json_t* j) : j_(j) {}
  ~JsonRef() { json_decref(j_); }
  JsonRef(const JsonRef&) = delete;
  JsonRef& operator=(const JsonRef&) = delete;
  json_t* get() const { return j_; }

 private:
  json_t* j_;
};

// A name or an array of names (one is common enough to accept without the brackets).
Status parse_name_list(const json_t* s, const char* key, const char* noun, bool lower,
                       std::vector<std::string>* out) {
  const std::string name = std::string(noun) + " name";
  std::string path = key_path(kSlurm, key);
  const json_t* v = conf::member(s, key);
  if (!v) return Status::Ok();
  std::vector<const json_t*> items;
  if (json_is_string(v)) {
    items.push_back(v);
  } else if (json_is_array(v)) {
    for (size_t i = 0; i < json_array_size(v); i++) items.push_back(json_array_get(v, i));
  } else {
    return config_error(path + ": must be a " + name + " or an array of " + name + "s, got " +
                        describe(v));
  }
  out->clear();
  for (size_t i = 0; i < items.size(); i++) {
    std::string where = json_is_array(v) ? conf::index_path(path, i) : path;
    if (!json_is_string(items[i]))
      return config_error(where + ": must be a " + name + " (string), got " + describe(items[i]));
    std::string q(json_string_value(items[i]), json_string_length(items[i]));
    Status st = conf::check_name(q, where, conf::kPlainName);
    if (!st.ok()) return st;
    if (lower)
      for (char& c : q) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    out->push_back(q);
  }
  return Status::Ok();
}

Status parse_slurm(const json_t* s, SlurmSettings* out) {
  if (!s) return Status::Ok();
  if (!json_is_object(s))
    return config_error(std::string(kSlurm) + ": must be an object, got " + describe(s));
  Status st = conf::check_keys(
      s, kSlurm,
      {"opportunisticQos", "accountsWithoutCells", "quotaFromSacctmgr", "checkInvariants",
       "verboseCellTrace", "stateFile", "priorityScale", "jobsLargerThanVc", "allowRemovingVcs",
       "splitCountOnlyJobs", "borrowIdleCells"});
  // Slurm compares QOS names case-insensitively; VC names are compared as written.
  if (st.ok()) st = parse_name_list(s, "opportunisticQos", "QOS", true, &out->opportunistic_qos);
  if (st.ok()) st = parse_name_list(s, "allowRemovingVcs", "VC", false, &out->allow_removing_vcs);
  std::string mode;
  bool present = false;
  if (st.ok())
    st = conf::get_string(s, kSlurm, "accountsWithoutCells", false, conf::kPlainName, &mode,
                          &present);
  if (!st.ok()) return st;
  if (present) {
    if (mode == "opportunistic") {
      out->accounts_without_cells = UnquotaedAccounts::kOpportunistic;
    } else if (mode == "reject") {
      out->accounts_without_cells = UnquotaedAccounts::kReject;
    } else {
      return config_error(key_path(kSlurm, "accountsWithoutCells") +
                          ": must be \"opportunistic\" or \"reject\", got " + conf::quoted(mode));
    }
  }
  mode.clear();
  present = false;
  st = conf::get_string(s, kSlurm, "jobsLargerThanVc", false, conf::kPlainName, &mode, &present);
  if (!st.ok()) return st;
  if (present) {
    if (mode == "wait" || mode == "reject")
      out->reject_larger_than_vc = mode == "reject";
    else
      return config_error(key_path(kSlurm, "jobsLargerThanVc") +
                          ": must be \"wait\" or \"reject\", got " + conf::quoted(mode));
  }
  st = conf::get_bool(s, kSlurm, "quotaFromSacctmgr", &out->quota_from_sacctmgr);
  if (st.ok()) st = conf::get_bool(s, kSlurm, "checkInvariants", &out->check_invariants);
  if (st.ok()) st = conf::get_bool(s, kSlurm, "verboseCellTrace", &out->verbose_cell_trace);
  if (st.ok()) st = conf::get_bool(s, kSlurm, "splitCountOnlyJobs", &out->split_count_only_jobs);
  if (st.ok()) st = conf::get_bool(s, kSlurm, "borrowIdleCells", &out->borrow_idle_cells);
  if (st.ok())
    st = conf::get_string(s, kSlurm, "stateFile", false, conf::kPlainName, &out->state_file);
  if (st.ok())
    st = conf::get_int(s, kSlurm, "priorityScale", false, 1, INT_MAX, &out->priority_scale);
  return st;
}

// Edits (insert, delete, substitute, case ignored) between a and b, stopping early once
// it exceeds `limit`: only "is this a slip of the keyboard" matters.
size_t edit_distance(const std::string& a, const std::string& b, size_t limit) {
  if (a.size() > b.size() + limit || b.size() > a.size() + limit) return limit + 1;
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); j++) prev[j] = j;
  for (size_t i = 1; i <= a.size(); i++) {
    cur[0] = i;
    size_t row_min = cur[0];
    for (size_t j = 1; j <= b.size(); j++) {
      bool same = tolower(static_cast<unsigned char>(a[i - 1])) ==
                  tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > limit) return limit + 1;
    prev.swap(cur);
  }
  return prev[b.size()];
}

// A top-level key that is a slip of a section name (virtualCluster, physicalcluster,
// Slurm) is refused: its content would vanish, and for virtualClusters that means every
// VC, so a reload would demote every running guaranteed job. Any other unknown key is
// only a warning, so that comment keys and HiveD's own settings keep loading.
Status check_top_level(const json_t* root, std::vector<std::string>* warnings) {
  static const char* const kSections[] = {"physicalCluster", "virtualClusters", kSlurm};
  const char* key;
  json_t* v;
  json_object_foreach(const_cast<json_t*>(root), key, v) {
    bool known = false;
    for (const char* k : kSections) known = known || !strcmp(k, key);
    for (const char* k : kHivedKeys) known = known || !strcmp(k, key);
    if (known) continue;
    for (const char* k : kSections) {
      // Two slips in a long name, one in "slurm" (a distance of 2 reaches "storm").
      size_t limit = strlen(k) > 6 ? 2 : 1;
      if (edit_distance(key, k, limit) <= limit)
        return config_error(conf::printable(key) + ": unknown top-level key (did you mean \"" + k +
                            "\"?); refused, since everything under it would be ignored");
    }
    warnings->push_back(conf::printable(key) +
                        ": unknown top-level key ignored (hived.conf sections are "
                        "physicalCluster, virtualClusters and slurm)");
  }
  return Status::Ok();
}

bool only_whitespace(const std::string& t) {
  for (char c : t)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  return true;
}

// jansson stops at a NUL byte with a confusing "end of file expected"; say what it is.
std::string nul_error(const std::string& t, size_t pos) {
  int line = 1;
  int column = 1;
  for (size_t i = 0; i < pos; i++) {
    unsigned char c = static_cast<unsigned char>(t[i]);
    if (c == '\n') {
      line++;
      column = 1;
    } else if ((c & 0xC0) != 0x80) {
      column++;
    }
  }
  return "JSON syntax error at line " + std::to_string(line) + ", column " +
         std::to_string(column) + ": NUL byte (hived.conf must be UTF-8 JSON text)";
}

Status parse(const std::string& text, Config* out) {
  if (only_whitespace(text)) return Status::Ok();
  size_t nul = text.find('\0');
  if (nul != std::string::npos) return config_error(nul_error(text, nul));
  json_error_t jerr;
  JsonRef root(
      json_loadb(text.data(), text.size(), JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr));
  if (!root.get()) return config_error(conf::syntax_error(text.data(), text.size(), jerr));
  // A YAML file holding only comments converts to a bare null.
  if (json_is_null(root.get())) return Status::Ok();
  if (!json_is_object(root.get()))
    return config_error("top level: must be a JSON object, got " + describe(root.get()));

  Status st = check_top_level(root.get(), &out->warnings);
  if (!st.ok()) return st;
  st = conf::parse_physical_cluster(conf::member(root.get(), "physicalCluster"), &out->cluster);
  if (st.ok())
    st = conf::parse_virtual_clusters(conf::member(root.get(), "virtualClusters"), &out->cluster);
  if (st.ok()) st = parse_slurm(conf::member(root.get(), kSlurm), &out->slurm);
  return st;
}

}  // namespace

Status parse_hived_conf(const std::string& json_text, Config* out) {
  if (!out) return Status::Err(Code::kInval, "parse_hived_conf: no output Config given");
  try {
    Config c;
    Status st = parse(json_text, &c);
    if (!st.ok()) return st;
    *out = std::move(c);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Status::Err(Code::kNoMem, "out of memory while reading hived.conf");
  } catch (const std::exception& ex) {
    return Status::Err(Code::kInternal,
                       std::string("internal error while reading hived.conf: ") + ex.what());
  }
}

Status load_hived_conf_file(const std::string& path, Config* out) {
  try {
    const std::string where = conf::printable(path, 400);
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::Err(Code::kConfig, where + ": cannot open: " + strerror(errno));
    std::string text;
    char buf[65536];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int e = errno;
        close(fd);
        return Status::Err(Code::kConfig, where + ": cannot read: " + strerror(e));
      }
      if (n == 0) break;
      if (text.size() + static_cast<size_t>(n) > kMaxFileBytes) {
        close(fd);
        return Status::Err(Code::kConfig, where + ": larger than " +
                                              std::to_string(kMaxFileBytes >> 20) +
                                              " MiB, not a hived.conf");
      }
      text.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    Status st = parse_hived_conf(text, out);
    if (!st.ok()) st.msg = where + ": " + st.msg;
    return st;
  } catch (const std::bad_alloc&) {
    return Status::Err(Code::kNoMem, path + ": out of memory while reading");
  }
}

}  // namespace hived
