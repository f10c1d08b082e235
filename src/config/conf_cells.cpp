// SPDX-License-Identifier: GPL-2.0-or-later
#include "conf_cells.h"

#include <climits>
#include <map>

#include "conf_json.h"

namespace hived {
namespace conf {

namespace {

const char kPhysical[] = "physicalCluster";
const char kVirtual[] = "virtualClusters";

std::string parse_cell_type(const char* name, const json_t* v, const std::string& parent,
                            CellTypeSpec* out) {
  std::string path = key_path(parent, name);
  if (!*name) return parent + ": a cell type name (key) must not be empty";
  std::string err = check_name(name, path, kNoDot);
  if (!err.empty()) return err;
  if (!json_is_object(v)) return path + ": must be an object, got " + describe(v);
  err = check_keys(
      v, path,
      {"childCellType", "childCellNumber", "isNodeLevel", "isGpuLevel", "childIsMigSlice"});
  if (err.empty()) err = get_bool(v, path, "childIsMigSlice", &out->child_is_mig_slice);
  // A MIG profile keeps Slurm's name ("a100_3g.20gb"): requests and GrpTRES use it, and
  // cell paths match it whole.
  if (err.empty())
    err = get_string(v, path, "childCellType", true, out->child_is_mig_slice ? kPlainName : kNoDot,
                     &out->child_type);
  if (err.empty())
    err = get_int(v, path, "childCellNumber", true, 1, kMaxChildCellNumber, &out->child_count);
  if (err.empty()) err = get_bool(v, path, "isNodeLevel", &out->is_node_level);
  if (err.empty()) err = get_bool(v, path, "isGpuLevel", &out->is_gpu_level);
  out->where = path;
  out->name = name;
  return err;
}

// Pinned ids must name one cell each; the map remembers where each was first seen.
using PinnedIds = std::map<std::string, std::string>;

std::string parse_physical_cell(const json_t* v, const std::string& path, int depth,
                                PinnedIds* pinned, PhysicalCellSpec* out) {
  if (depth > kMaxCellDepth)
    return path + ": cellChildren nested deeper than " + std::to_string(kMaxCellDepth) + " levels";
  if (!json_is_object(v)) return path + ": must be an object, got " + describe(v);
  out->where = path;
  std::string err =
      check_keys(v, path, {"cellType", "cellAddress", "pinnedCellId", "cellChildren"});
  // HiveD lets children repeat their (derived) cell type; the engine checks it agrees.
  if (err.empty()) err = get_string(v, path, "cellType", depth == 0, kNoDot, &out->cell_type);
  bool present = false;
  if (err.empty()) err = get_address(v, path, "cellAddress", &out->address, &present);
  if (err.empty())
    err = get_string(v, path, "pinnedCellId", false, kPlainName, &out->pinned_id, &present);
  if (!err.empty()) return err;
  if (present) {
    auto ins = pinned->emplace(out->pinned_id, path);
    if (!ins.second)
      return key_path(path, "pinnedCellId") + ": duplicate pinnedCellId " + quoted(out->pinned_id) +
             ", already given to " + ins.first->second;
  }
  const json_t* children = nullptr;
  err = get_array(v, path, "cellChildren", false, &children);
  if (!err.empty() || !children) return err;
  std::string cpath = key_path(path, "cellChildren");
  out->children.resize(json_array_size(children));
  for (size_t i = 0; i < out->children.size(); i++) {
    err = parse_physical_cell(json_array_get(children, i), index_path(cpath, i), depth + 1, pinned,
                              &out->children[i]);
    if (!err.empty()) return err;
  }
  return "";
}

std::string parse_virtual_cell(const json_t* v, const std::string& path, VirtualCellSpec* out) {
  if (!json_is_object(v)) return path + ": must be an object, got " + describe(v);
  out->where = path;
  std::string err = check_keys(v, path, {"cellType", "cellNumber"});
  if (err.empty()) err = get_string(v, path, "cellType", true, kPlainName, &out->cell_type);
  if (err.empty()) err = get_int(v, path, "cellNumber", true, 0, INT_MAX, &out->count);
  if (!err.empty()) return err;
  // "A.B.C" names one level per segment; an empty segment is always a typo.
  const std::string& t = out->cell_type;
  if (t.front() == '.' || t.back() == '.' || t.find("..") != std::string::npos)
    return key_path(path, "cellType") + ": empty level in cell type path " + quoted(t) +
           " (write TOP.LEVEL.LEVEL or a single cell type)";
  return "";
}

std::string parse_vc(const char* name, const json_t* v, const std::string& path,
                     PinnedIds* pinned_by_vc, VcSpec* out) {
  if (!*name) return std::string(kVirtual) + ": a VC name (key) must not be empty";
  out->where = path;
  out->name = name;
  std::string err = check_name(name, path, kPlainName);
  if (!err.empty() || json_is_null(v)) return err;  // null: a VC declared with no cells
  if (!json_is_object(v)) return path + ": must be an object, got " + describe(v);
  err = check_keys(v, path, {"virtualCells", "pinnedCells"});
  const json_t* cells = nullptr;
  if (err.empty()) err = get_array(v, path, "virtualCells", false, &cells);
  if (!err.empty()) return err;
  std::string cpath = key_path(path, "virtualCells");
  out->virtual_cells.resize(cells ? json_array_size(cells) : 0);
  for (size_t i = 0; i < out->virtual_cells.size(); i++) {
    err =
        parse_virtual_cell(json_array_get(cells, i), index_path(cpath, i), &out->virtual_cells[i]);
    if (!err.empty()) return err;
  }
  const json_t* pins = nullptr;
  err = get_array(v, path, "pinnedCells", false, &pins);
  if (!err.empty() || !pins) return err;
  std::string ppath = key_path(path, "pinnedCells");
  for (size_t i = 0; i < json_array_size(pins); i++) {
    const json_t* p = json_array_get(pins, i);
    std::string where = index_path(ppath, i);
    if (!json_is_object(p)) return where + ": must be an object, got " + describe(p);
    std::string id;
    err = check_keys(p, where, {"pinnedCellId"});
    if (err.empty()) err = get_string(p, where, "pinnedCellId", true, kPlainName, &id);
    if (!err.empty()) return err;
    auto ins = pinned_by_vc->emplace(id, where);
    if (!ins.second)
      return key_path(where, "pinnedCellId") + ": pinned cell " + quoted(id) +
             " is already given at " + ins.first->second + " (a pinned cell belongs to one VC)";
    out->pinned_cells.push_back(id);
    out->pinned_cells_where.push_back(where);
  }
  return "";
}

}  // namespace

std::string parse_physical_cluster(const json_t* pc, ClusterSpec* out) {
  if (!pc) return "";
  if (!json_is_object(pc))
    return std::string(kPhysical) + ": must be an object, got " + describe(pc);
  // skuTypes (HiveD's per-GPU cpu/memory for Kubernetes) is accepted and ignored: in
  // Slurm, cores and memory come from the job and cons_tres.
  std::string err = check_keys(pc, kPhysical, {"cellTypes", "physicalCells", "skuTypes"});
  const json_t* types = nullptr;
  if (err.empty()) err = get_object(pc, kPhysical, "cellTypes", false, &types);
  if (!err.empty()) return err;
  if (types) {
    std::string tpath = key_path(kPhysical, "cellTypes");
    const char* name;
    json_t* v;
    // jansson keeps insertion order, so cell types come out in file order.
    json_object_foreach(const_cast<json_t*>(types), name, v) {
      CellTypeSpec ct;
      err = parse_cell_type(name, v, tpath, &ct);
      if (!err.empty()) return err;
      out->cell_types.push_back(std::move(ct));
    }
  }
  const json_t* cells = nullptr;
  err = get_array(pc, kPhysical, "physicalCells", false, &cells);
  if (!err.empty() || !cells) return err;
  std::string cpath = key_path(kPhysical, "physicalCells");
  PinnedIds pinned;
  out->physical_cells.resize(json_array_size(cells));
  for (size_t i = 0; i < out->physical_cells.size(); i++) {
    err = parse_physical_cell(json_array_get(cells, i), index_path(cpath, i), 0, &pinned,
                              &out->physical_cells[i]);
    if (!err.empty()) return err;
  }
  return "";
}

std::string parse_virtual_clusters(const json_t* vcs, ClusterSpec* out) {
  if (!vcs) return "";
  if (!json_is_object(vcs))
    return std::string(kVirtual) + ": must be an object, got " + describe(vcs);
  PinnedIds pinned_by_vc;
  const char* name;
  json_t* v;
  json_object_foreach(const_cast<json_t*>(vcs), name, v) {
    VcSpec vc;
    std::string err = parse_vc(name, v, key_path(kVirtual, name), &pinned_by_vc, &vc);
    if (!err.empty()) return err;
    out->vcs.push_back(std::move(vc));
  }
  return "";
}

}  // namespace conf
}  // namespace hived
