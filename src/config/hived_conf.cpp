// SPDX-License-Identifier: GPL-2.0-or-later
#include "hived_conf.h"

#include <fcntl.h>
#include <jansson.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <new>

#include "conf_cells.h"
#include "conf_json.h"

namespace hived {

namespace {

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

std::string parse_qos_list(const json_t* s, std::vector<std::string>* out) {
  std::string path = key_path(kSlurm, "opportunisticQos");
  const json_t* v = conf::member(s, "opportunisticQos");
  if (!v) return "";
  // One QOS is common enough to accept without the brackets.
  std::vector<const json_t*> items;
  if (json_is_string(v)) {
    items.push_back(v);
  } else if (json_is_array(v)) {
    for (size_t i = 0; i < json_array_size(v); i++) items.push_back(json_array_get(v, i));
  } else {
    return path + ": must be a QOS name or an array of QOS names, got " + describe(v);
  }
  out->clear();
  for (size_t i = 0; i < items.size(); i++) {
    std::string where = json_is_array(v) ? conf::index_path(path, i) : path;
    if (!json_is_string(items[i]))
      return where + ": must be a QOS name (string), got " + describe(items[i]);
    std::string q(json_string_value(items[i]), json_string_length(items[i]));
    std::string err = conf::check_name(q, where, conf::kPlainName);
    if (!err.empty()) return err;
    for (char& c : q) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    out->push_back(q);
  }
  return "";
}

std::string parse_slurm(const json_t* s, SlurmSettings* out) {
  if (!s) return "";
  if (!json_is_object(s)) return std::string(kSlurm) + ": must be an object, got " + describe(s);
  std::string err = conf::check_keys(
      s, kSlurm,
      {"opportunisticQos", "accountsWithoutCells", "quotaFromSacctmgr", "checkInvariants",
       "verboseCellTrace", "stateFile", "priorityScale", "jobsLargerThanVc"});
  if (err.empty()) err = parse_qos_list(s, &out->opportunistic_qos);
  std::string mode;
  bool present = false;
  if (err.empty())
    err = conf::get_string(s, kSlurm, "accountsWithoutCells", false, conf::kPlainName, &mode,
                           &present);
  if (!err.empty()) return err;
  if (present) {
    if (mode == "opportunistic") {
      out->accounts_without_cells = UnquotaedAccounts::kOpportunistic;
    } else if (mode == "reject") {
      out->accounts_without_cells = UnquotaedAccounts::kReject;
    } else {
      return key_path(kSlurm, "accountsWithoutCells") +
             ": must be \"opportunistic\" or \"reject\", got " + conf::quoted(mode);
    }
  }
  mode.clear();
  present = false;
  err = conf::get_string(s, kSlurm, "jobsLargerThanVc", false, conf::kPlainName, &mode, &present);
  if (!err.empty()) return err;
  if (present) {
    if (mode == "wait" || mode == "reject")
      out->reject_larger_than_vc = mode == "reject";
    else
      return key_path(kSlurm, "jobsLargerThanVc") + ": must be \"wait\" or \"reject\", got " +
             conf::quoted(mode);
  }
  err = conf::get_bool(s, kSlurm, "quotaFromSacctmgr", &out->quota_from_sacctmgr);
  if (err.empty()) err = conf::get_bool(s, kSlurm, "checkInvariants", &out->check_invariants);
  if (err.empty()) err = conf::get_bool(s, kSlurm, "verboseCellTrace", &out->verbose_cell_trace);
  if (err.empty())
    err = conf::get_string(s, kSlurm, "stateFile", false, conf::kPlainName, &out->state_file);
  if (err.empty())
    err = conf::get_int(s, kSlurm, "priorityScale", false, 1, INT_MAX, &out->priority_scale);
  return err;
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

std::string parse(const std::string& text, Config* out) {
  if (only_whitespace(text)) return "";
  size_t nul = text.find('\0');
  if (nul != std::string::npos) return nul_error(text, nul);
  json_error_t jerr;
  JsonRef root(
      json_loadb(text.data(), text.size(), JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr));
  if (!root.get()) return conf::syntax_error(text.data(), text.size(), jerr);
  // A YAML file holding only comments converts to a bare null.
  if (json_is_null(root.get())) return "";
  if (!json_is_object(root.get()))
    return "top level: must be a JSON object, got " + describe(root.get());

  const char* key;
  json_t* v;
  json_object_foreach(root.get(), key, v) {
    if (!strcmp(key, "physicalCluster") || !strcmp(key, "virtualClusters") || !strcmp(key, kSlurm))
      continue;
    bool hived = false;
    for (const char* k : kHivedKeys) hived = hived || !strcmp(k, key);
    if (!hived)
      out->warnings.push_back(conf::printable(key) +
                              ": unknown top-level key ignored (hived.conf sections are "
                              "physicalCluster, virtualClusters and slurm)");
  }
  std::string err =
      conf::parse_physical_cluster(conf::member(root.get(), "physicalCluster"), &out->cluster);
  if (err.empty())
    err = conf::parse_virtual_clusters(conf::member(root.get(), "virtualClusters"), &out->cluster);
  if (err.empty()) err = parse_slurm(conf::member(root.get(), kSlurm), &out->slurm);
  return err;
}

}  // namespace

std::string parse_hived_conf(const std::string& json_text, Config* out) {
  if (!out) return "parse_hived_conf: no output Config given";
  try {
    Config c;
    std::string err = parse(json_text, &c);
    if (err.empty()) *out = std::move(c);
    return err;
  } catch (const std::bad_alloc&) {
    return "out of memory while reading hived.conf";
  } catch (...) {
    return "internal error while reading hived.conf";
  }
}

std::string load_hived_conf_file(const std::string& path, Config* out) {
  try {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return conf::printable(path, 400) + ": cannot open: " + strerror(errno);
    std::string text;
    char buf[65536];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int e = errno;
        close(fd);
        return conf::printable(path, 400) + ": cannot read: " + strerror(e);
      }
      if (n == 0) break;
      if (text.size() + static_cast<size_t>(n) > kMaxFileBytes) {
        close(fd);
        return conf::printable(path, 400) + ": larger than " + std::to_string(kMaxFileBytes >> 20) +
               " MiB, not a hived.conf";
      }
      text.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    std::string err = parse_hived_conf(text, out);
    return err.empty() ? err : conf::printable(path, 400) + ": " + err;
  } catch (const std::bad_alloc&) {
    return conf::printable(path, 400) + ": out of memory while reading";
  }
}

}  // namespace hived
