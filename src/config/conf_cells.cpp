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

Status parse_cell_type(const char* name, const json_t* v, const std::string& parent,
                       CellTypeSpec* out) {
  std::string path = key_path(parent, name);
  if (!*name) return config_error(parent + ": a cell type name (key) must not be empty");
  Status st = check_name(name, path, kNoDot);
  if (!st.ok()) return st;
  if (!json_is_object(v)) return config_error(path + ": must be an object, got " + describe(v));
  st = check_keys(
      v, path,
      {"childCellType", "childCellNumber", "isNodeLevel", "isGpuLevel", "childIsMigSlice"});
  if (st.ok()) st = get_bool(v, path, "childIsMigSlice", &out->child_is_mig_slice);
  // A MIG profile keeps Slurm's name ("a100_3g.20gb"): requests and GrpTRES use it, and
  // cell paths match it whole.
  if (st.ok())
    st = get_string(v, path, "childCellType", true, out->child_is_mig_slice ? kPlainName : kNoDot,
                    &out->child_type);
  if (st.ok())
    st = get_int(v, path, "childCellNumber", true, 1, kMaxChildCellNumber, &out->child_count);
  if (st.ok()) st = get_bool(v, path, "isNodeLevel", &out->is_node_level);
  if (st.ok()) st = get_bool(v, path, "isGpuLevel", &out->is_gpu_level);
  out->where = path;
  out->name = name;
  return st;
}

// Pinned ids must name one cell each; the map remembers where each was first seen.
using PinnedIds = std::map<std::string, std::string>;

Status parse_physical_cell(const json_t* v, const std::string& path, int depth, PinnedIds* pinned,
                           PhysicalCellSpec* out) {
  if (depth > kMaxCellDepth)
    return config_error(path + ": cellChildren nested deeper than " +
                        std::to_string(kMaxCellDepth) + " levels");
  if (!json_is_object(v)) return config_error(path + ": must be an object, got " + describe(v));
  out->where = path;
  Status st = check_keys(v, path, {"cellType", "cellAddress", "pinnedCellId", "cellChildren"});
  // HiveD lets children repeat their (derived) cell type; the engine checks it agrees.
  if (st.ok()) st = get_string(v, path, "cellType", depth == 0, kNoDot, &out->cell_type);
  bool present = false;
  if (st.ok()) st = get_address(v, path, "cellAddress", &out->address, &present);
  if (st.ok())
    st = get_string(v, path, "pinnedCellId", false, kPlainName, &out->pinned_id, &present);
  if (!st.ok()) return st;
  if (present) {
    auto ins = pinned->emplace(out->pinned_id, path);
    if (!ins.second)
      return config_error(key_path(path, "pinnedCellId") + ": duplicate pinnedCellId " +
                          quoted(out->pinned_id) + ", already given to " + ins.first->second);
  }
  const json_t* children = nullptr;
  st = get_array(v, path, "cellChildren", false, &children);
  if (!st.ok() || !children) return st;
  std::string cpath = key_path(path, "cellChildren");
  out->children.resize(json_array_size(children));
  for (size_t i = 0; i < out->children.size(); i++) {
    st = parse_physical_cell(json_array_get(children, i), index_path(cpath, i), depth + 1, pinned,
                             &out->children[i]);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status parse_virtual_cell(const json_t* v, const std::string& path, VirtualCellSpec* out) {
  if (!json_is_object(v)) return config_error(path + ": must be an object, got " + describe(v));
  out->where = path;
  Status st = check_keys(v, path, {"cellType", "cellNumber"});
  if (st.ok()) st = get_string(v, path, "cellType", true, kPlainName, &out->cell_type);
  if (st.ok()) st = get_int(v, path, "cellNumber", true, 0, INT_MAX, &out->count);
  if (!st.ok()) return st;
  // "A.B.C" names one level per segment; an empty segment is always a typo.
  const std::string& t = out->cell_type;
  if (t.front() == '.' || t.back() == '.' || t.find("..") != std::string::npos)
    return config_error(key_path(path, "cellType") + ": empty level in cell type path " +
                        quoted(t) + " (write TOP.LEVEL.LEVEL or a single cell type)");
  return Status::Ok();
}

Status parse_vc(const char* name, const json_t* v, const std::string& path, PinnedIds* pinned_by_vc,
                VcSpec* out) {
  if (!*name) return config_error(std::string(kVirtual) + ": a VC name (key) must not be empty");
  out->where = path;
  out->name = name;
  Status st = check_name(name, path, kPlainName);
  if (!st.ok() || json_is_null(v)) return st;  // null: a VC declared with no cells
  if (!json_is_object(v)) return config_error(path + ": must be an object, got " + describe(v));
  st = check_keys(v, path, {"virtualCells", "pinnedCells"});
  const json_t* cells = nullptr;
  if (st.ok()) st = get_array(v, path, "virtualCells", false, &cells);
  if (!st.ok()) return st;
  std::string cpath = key_path(path, "virtualCells");
  out->virtual_cells.resize(cells ? json_array_size(cells) : 0);
  for (size_t i = 0; i < out->virtual_cells.size(); i++) {
    st = parse_virtual_cell(json_array_get(cells, i), index_path(cpath, i), &out->virtual_cells[i]);
    if (!st.ok()) return st;
  }
  const json_t* pins = nullptr;
  st = get_array(v, path, "pinnedCells", false, &pins);
  if (!st.ok() || !pins) return st;
  std::string ppath = key_path(path, "pinnedCells");
  for (size_t i = 0; i < json_array_size(pins); i++) {
    const json_t* p = json_array_get(pins, i);
    std::string where = index_path(ppath, i);
    if (!json_is_object(p)) return config_error(where + ": must be an object, got " + describe(p));
    std::string id;
    st = check_keys(p, where, {"pinnedCellId"});
    if (st.ok()) st = get_string(p, where, "pinnedCellId", true, kPlainName, &id);
    if (!st.ok()) return st;
    auto ins = pinned_by_vc->emplace(id, where);
    if (!ins.second)
      return config_error(key_path(where, "pinnedCellId") + ": pinned cell " + quoted(id) +
                          " is already given at " + ins.first->second +
                          " (a pinned cell belongs to one VC)");
    out->pinned_cells.push_back(id);
    out->pinned_cells_where.push_back(where);
  }
  return Status::Ok();
}

}  // namespace

Status parse_physical_cluster(const json_t* pc, ClusterSpec* out) {
  if (!pc) return Status::Ok();
  if (!json_is_object(pc))
    return config_error(std::string(kPhysical) + ": must be an object, got " + describe(pc));
  // skuTypes (HiveD's per-GPU cpu/memory for Kubernetes) is accepted and ignored: in
  // Slurm, cores and memory come from the job and cons_tres.
  Status st = check_keys(pc, kPhysical, {"cellTypes", "physicalCells", "skuTypes"});
  const json_t* types = nullptr;
  if (st.ok()) st = get_object(pc, kPhysical, "cellTypes", false, &types);
  if (!st.ok()) return st;
  if (types) {
    std::string tpath = key_path(kPhysical, "cellTypes");
    const char* name;
    json_t* v;
    // jansson keeps insertion order, so cell types come out in file order.
    json_object_foreach(const_cast<json_t*>(types), name, v) {
      CellTypeSpec ct;
      st = parse_cell_type(name, v, tpath, &ct);
      if (!st.ok()) return st;
      out->cell_types.push_back(std::move(ct));
    }
  }
  const json_t* cells = nullptr;
  st = get_array(pc, kPhysical, "physicalCells", false, &cells);
  if (!st.ok() || !cells) return st;
  std::string cpath = key_path(kPhysical, "physicalCells");
  PinnedIds pinned;
  out->physical_cells.resize(json_array_size(cells));
  for (size_t i = 0; i < out->physical_cells.size(); i++) {
    st = parse_physical_cell(json_array_get(cells, i), index_path(cpath, i), 0, &pinned,
                             &out->physical_cells[i]);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status parse_virtual_clusters(const json_t* vcs, ClusterSpec* out) {
  if (!vcs) return Status::Ok();
  if (!json_is_object(vcs))
    return config_error(std::string(kVirtual) + ": must be an object, got " + describe(vcs));
  PinnedIds pinned_by_vc;
  const char* name;
  json_t* v;
  json_object_foreach(const_cast<json_t*>(vcs), name, v) {
    VcSpec vc;
    Status st = parse_vc(name, v, key_path(kVirtual, name), &pinned_by_vc, &vc);
    if (!st.ok()) return st;
    out->vcs.push_back(std::move(vc));
  }
  return Status::Ok();
}

}  // namespace conf
}  // namespace hived
