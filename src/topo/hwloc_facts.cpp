// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/hwloc_facts.h"
#include "topo/conf_lines.h"

#include <hwloc.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

namespace hived {
namespace topo {
namespace {

// Display controllers of BMCs show up as DRM GPU devices but run no jobs.
bool bmc_vendor(unsigned vendor) {
  return vendor == 0x1a03 /* ASPEED */ || vendor == 0x102b /* Matrox */;
}

std::string busid(const hwloc_obj_attr_u::hwloc_pcidev_attr_s& p) {
  char buf[32];
  snprintf(buf, sizeof buf, "%04x:%02x:%02x.%01x", p.domain, p.bus, p.dev, p.func);
  return buf;
}

struct Found {
  hwloc_obj_t pci = nullptr;  // the PCI device, or null for an OS device without one
  hwloc_obj_t osdev = nullptr;
  std::string model;
  std::string drm;  // "renderD128" / "card1" when present
  unsigned vendor = 0;
  std::string bus;
};

class Topology {
 public:
  ~Topology() {
    if (ok_) hwloc_topology_destroy(t_);
  }
  Status Load(const std::string& xml) {
    if (hwloc_topology_init(&t_) != 0) return config_error("hwloc: cannot initialise a topology");
    ok_ = true;
    hwloc_topology_set_io_types_filter(t_, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (!xml.empty() && hwloc_topology_set_xml(t_, xml.c_str()) != 0)
      return config_error(xml + ": hwloc cannot read it as topology XML");
    if (hwloc_topology_load(t_) != 0)
      return config_error((xml.empty() ? std::string("hwloc") : xml) +
                          ": loading the topology failed");
    return Status::Ok();
  }
  hwloc_topology_t get() const { return t_; }

 private:
  hwloc_topology_t t_{};
  bool ok_ = false;
};

}  // namespace

std::string gpu_type_from_model(const std::string& model) {
  static const char* const kVendorWords[] = {"nvidia",      "tesla",  "geforce",  "quadro",
                                             "amd",         "radeon", "instinct", "intel",
                                             "corporation", "(r)",    "(tm)"};
  std::vector<std::string> words;
  std::string w;
  for (size_t i = 0; i <= model.size(); i++) {
    char c = i < model.size() ? model[i] : ' ';
    if (isspace(static_cast<unsigned char>(c))) {
      if (!w.empty()) words.push_back(w);
      w.clear();
    } else {
      w += static_cast<char>(tolower(static_cast<unsigned char>(c)));
    }
  }
  std::string out;
  for (const auto& word : words) {
    bool vendor = false;
    for (const char* v : kVendorWords) vendor = vendor || word == v;
    if (vendor) continue;
    // Memory sizes and form factors end the model name.
    bool size = word.size() > 2 && word.compare(word.size() - 2, 2, "gb") == 0 &&
                isdigit(static_cast<unsigned char>(word[0]));
    if (size || word == "pcie" || word.compare(0, 3, "sxm") == 0 || word.compare(0, 3, "hbm") == 0)
      break;
    std::string part;
    for (char c : word)
      if (isalnum(static_cast<unsigned char>(c)) || c == '_')
        part += c;
      else
        break;
    if (!part.empty()) out += (out.empty() ? "" : "_") + part;
    if (part.size() != word.size()) break;  // "a100-sxm4-40gb": the rest is the variant
  }
  return out.empty() ? "gpu" : out;
}

Status read_hwloc_node(const HwlocOptions& opts, HwlocNode* out) {
  Topology topo;
  Status st = topo.Load(opts.xml_path);
  if (!st.ok()) return st;
  hwloc_topology_t t = topo.get();
  HwlocNode r;
  NodeFacts& n = r.facts;
  hwloc_obj_t root = hwloc_get_root_obj(t);
  n.name = opts.node_name;
  if (n.name.empty()) {
    const char* host = hwloc_obj_get_info_by_name(root, "HostName");
    n.name = host && *host ? host : "localhost";
    n.name = n.name.substr(0, n.name.find('.'));
  }
  n.where = opts.xml_path.empty() ? "hwloc" : opts.xml_path;
  int packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  int cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  int pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  n.sockets = packages > 0 ? packages : 1;
  n.cores_per_socket = cores > 0 ? std::max(1, cores / n.sockets) : std::max(1, pus / n.sockets);
  n.threads_per_core = cores > 0 ? std::max(1, pus / cores) : 1;
  if (cores > 0 && cores % n.sockets != 0)
    r.notes.push_back(
        "sockets have different core counts: Cores= may not match Slurm's core numbering");

  // GPUs: PCI devices with a GPU or co-processor OS device (one per device, however many
  // OS devices - nvml0, cuda0, card1 - the drivers create for it).
  std::vector<Found> found;
  std::map<hwloc_obj_t, size_t> by_pci;
  for (hwloc_obj_t os = nullptr; (os = hwloc_get_next_osdev(t, os));) {
    auto type = os->attr->osdev.type;
    if (type != HWLOC_OBJ_OSDEV_GPU && type != HWLOC_OBJ_OSDEV_COPROC) continue;
    hwloc_obj_t pci = os->parent;
    while (pci && pci->type != HWLOC_OBJ_PCI_DEVICE) pci = pci->parent;
    if (pci && bmc_vendor(pci->attr->pcidev.vendor_id)) continue;
    size_t k;
    if (pci && by_pci.count(pci)) {
      k = by_pci[pci];
    } else {
      k = found.size();
      found.emplace_back();
      found[k].pci = pci;
      found[k].osdev = os;
      if (pci) {
        by_pci[pci] = k;
        found[k].vendor = pci->attr->pcidev.vendor_id;
        found[k].bus = busid(pci->attr->pcidev);
      }
    }
    const char* model = hwloc_obj_get_info_by_name(os, "GPUModel");
    if (model && found[k].model.empty()) found[k].model = model;
    std::string name = os->name ? os->name : "";
    if (name.compare(0, 7, "renderD") == 0 ||
        (name.compare(0, 4, "card") == 0 && found[k].drm.empty()))
      found[k].drm = name;
  }
  // NVML and Slurm number GPUs in PCI bus order.
  std::stable_sort(found.begin(), found.end(),
                   [](const Found& a, const Found& b) { return a.bus < b.bus; });

  int total_cores = std::max(cores, 1);
  int nvidia = 0;
  for (size_t i = 0; i < found.size(); i++) {
    Found& f = found[i];
    GpuFact g;
    g.index = static_cast<int>(i);
    if (f.model.empty() && f.pci) {
      const char* dev = hwloc_obj_get_info_by_name(f.pci, "PCIDevice");
      if (dev) f.model = dev;
    }
    g.type = !opts.gpu_type.empty() ? opts.gpu_type : gpu_type_from_model(f.model);
    if (f.vendor == 0x10de)
      g.file = "/dev/nvidia" + std::to_string(nvidia++);  // NVIDIA's own count, in bus order
    else if (!f.drm.empty())
      g.file = "/dev/dri/" + f.drm;
    else
      g.file = f.osdev->name ? std::string("/dev/") + f.osdev->name : "";
    g.where = f.bus.empty() ? n.where : n.where + " PCI " + f.bus;
    hwloc_obj_t obj = f.pci ? f.pci : f.osdev;
    hwloc_obj_t local = hwloc_get_non_io_ancestor_obj(t, obj);
    if (local && local->cpuset) {
      std::vector<int> near;
      for (int c = 0; c < cores; c++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, c);
        if (core && hwloc_bitmap_intersects(core->cpuset, local->cpuset)) near.push_back(c);
      }
      // All cores of a multi-socket node say nothing; Slurm reads a missing Cores= the same way.
      if (!near.empty() && (static_cast<int>(near.size()) < total_cores || n.sockets == 1))
        g.cores = near;
    }
    std::vector<std::string> path;
    for (hwloc_obj_t p = obj->parent; p && p->type == HWLOC_OBJ_BRIDGE; p = p->parent)
      if (p->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI)
        path.push_back(busid(p->attr->bridge.upstream.pci));
    std::reverse(path.begin(), path.end());
    g.pcie_path = path;
    n.gpus.push_back(std::move(g));
  }
  n.gpus_known = true;
  if (!found.empty()) {
    r.notes.push_back(
        "no NVML data: Links= is omitted (hwloc does not see NVLink; with AutoDetect=nvml slurmd "
        "adds the links)");
  }
  *out = std::move(r);
  return Status::Ok();
}

}  // namespace topo
}  // namespace hived
