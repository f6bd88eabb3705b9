#include "apiserver/allocator/service_allocator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>

#include "api/validation/field_errors.h"

namespace svcplane::apiserver::allocator {

using api::core::v1::Service;
namespace v = api::validation;

namespace {

constexpr std::string_view kSingleStack = "SingleStack";
constexpr std::string_view kPreferDualStack = "PreferDualStack";
constexpr std::string_view kRequireDualStack = "RequireDualStack";

bool IsHeadless(const Service& svc) {
  return !svc.spec.cluster_ips.empty() && svc.spec.cluster_ips[0] == "None";
}
bool NeedsNodePorts(const Service& svc) {
  return svc.spec.type == "NodePort" || svc.spec.type == "LoadBalancer";
}
bool ShouldAllocateNodePorts(const Service& svc) {
  if (svc.spec.type == "NodePort") return true;
  if (svc.spec.type == "LoadBalancer") {
    return svc.spec.allocate_load_balancer_node_ports.value_or(true);
  }
  return false;
}
bool NeedsHealthCheck(const Service& svc) {
  return svc.spec.type == "LoadBalancer" && svc.spec.external_traffic_policy == "Local";
}
std::string Policy(const Service& svc) { return svc.spec.ip_family_policy.value_or(""); }
std::string OtherFamily(std::string_view f) { return std::string(f == kIPv4 ? kIPv6 : kIPv4); }
std::string RenderPolicy(const Service& svc) {
  return svc.spec.ip_family_policy ? v::GoQuote(*svc.spec.ip_family_policy) : "null";
}

Status Invalid(const Service& svc, v::FieldErrorList errs) {
  return v::ToInvalidStatus("Service", svc.metadata.name, errs);
}

// PreferDualStack services keep their shape across cluster (de)upgrades unless the user asks.
bool IsMatchingPreferDualStack(const Service& svc, const Service* old) {
  if (!old || !svc.spec.ip_family_policy) return false;
  if (old->spec.type != svc.spec.type) return false;
  if (svc.spec.type != "ClusterIP" && svc.spec.type != "NodePort" &&
      svc.spec.type != "LoadBalancer") {
    return false;
  }
  if (Policy(svc) != kPreferDualStack) return false;
  if (old->spec.ip_family_policy && Policy(*old) != kPreferDualStack) return false;
  return old->spec.cluster_ips == svc.spec.cluster_ips &&
         old->spec.ip_families == svc.spec.ip_families;
}

// The IPs are well-formed and clusterIP agrees with clusterIPs[0]; when not, allocation stays
// out of the way and validation reports the problem with upstream's texts.
bool LooselyValid(const Service& svc) {
  const auto& ips = svc.spec.cluster_ips;
  if (!svc.spec.cluster_ip.empty() && (ips.empty() || ips[0] != svc.spec.cluster_ip)) return false;
  if (svc.spec.cluster_ip.empty() && !ips.empty()) return false;
  if (ips.size() > 2) return false;
  for (size_t i = 0; i < ips.size(); ++i) {
    if (i == 0 && ips[i] == "None") {
      if (ips.size() > 1) return false;
      continue;
    }
    if (FamilyOf(ips[i]).empty()) return false;
  }
  if (ips.size() == 2 && !IsHeadless(svc) && FamilyOf(ips[0]) == FamilyOf(ips[1])) return false;
  for (size_t i = 0; i < svc.spec.ip_families.size(); ++i) {
    const auto& f = svc.spec.ip_families[i];
    if (f != kIPv4 && f != kIPv6) return false;
    if (i == 1 && f == svc.spec.ip_families[0]) return false;
    if (i < ips.size() && !IsHeadless(svc) && FamilyOf(ips[i]) != f) return false;
  }
  std::string p = Policy(svc);
  if (svc.spec.ip_family_policy && p != kSingleStack && p != kPreferDualStack &&
      p != kRequireDualStack) {
    return false;
  }
  return true;
}

}  // namespace

struct ServiceAllocator::Txn {
  bool dry_run = false;
  std::vector<std::function<void()>> on_commit;  // deferred releases
  std::vector<std::function<void()>> on_revert;  // give back what was taken
  void Finish(bool stored) {
    if (dry_run) return;
    for (auto& f : stored ? on_commit : on_revert) f();
    on_commit.clear();
    on_revert.clear();
  }
};

ServiceAllocator::ServiceAllocator(storage::Store* store, ServiceAllocatorOptions options) {
  for (size_t i = 0; i < options.cidrs.size(); ++i) {
    std::string key(i == 0 ? kServiceIpsKey : kSecondaryServiceIpsKey);
    ips_.push_back(std::make_unique<IpAllocator>(store, options.cidrs[i], key));
  }
  ports_ = std::make_unique<PortAllocator>(store, options.node_ports);
}

IpAllocator* ServiceAllocator::ForFamily(std::string_view family) {
  for (auto& a : ips_) {
    if (a->family() == family) return a.get();
  }
  return nullptr;
}

Result<FinishFn> ServiceAllocator::Begin(Service& svc, const Service* old, bool dry_run) {
  auto txn = std::make_shared<Txn>();
  txn->dry_run = dry_run;
  FinishFn finish = [txn](bool stored) { txn->Finish(stored); };
  if (!LooselyValid(svc)) return finish;
  Status st = InitIpFamilyFields(svc, old);
  if (st.ok())
    st = old ? UpdateClusterIps(svc, *old, dry_run, *txn) : AllocClusterIps(svc, dry_run, *txn);
  if (st.ok()) {
    st = old ? UpdateNodePorts(svc, *old, dry_run, *txn) : InitNodePorts(svc, dry_run, *txn);
  }
  if (!st.ok()) {
    txn->Finish(false);
    return st;
  }
  return finish;
}

// initIPFamilyFields: policy and families defaulted from the request, the old object and the
// cluster's configuration, with upstream's errors for impossible combinations.
Status ServiceAllocator::InitIpFamilyFields(Service& svc, const Service* old) {
  if (svc.spec.type == "ExternalName") return Status::Ok();
  if (IsMatchingPreferDualStack(svc, old)) return Status::Ok();
  auto& spec = svc.spec;
  if (!spec.ip_family_policy) {
    if (old && old->spec.ip_family_policy) {
      spec.ip_family_policy = old->spec.ip_family_policy;
    } else if (spec.cluster_ip == "None" && spec.selector.empty()) {
      spec.ip_family_policy = std::string(kRequireDualStack);
    } else {
      spec.ip_family_policy = std::string(kSingleStack);
    }
  }
  const v::FieldPath policy_path = v::Path("spec").Child("ipFamilyPolicy");
  v::FieldErrorList errs;
  if (old) {
    if (Policy(svc) == kSingleStack) {
      if (old->spec.cluster_ips == spec.cluster_ips && spec.cluster_ips.size() > 1) {
        spec.cluster_ips.resize(1);
      }
      if (old->spec.ip_families == spec.ip_families && spec.ip_families.size() > 1) {
        spec.ip_families.resize(1);
      }
    } else {
      if (spec.cluster_ips.size() < old->spec.cluster_ips.size() && !spec.cluster_ips.empty()) {
        errs.push_back(v::InvalidRendered(policy_path, RenderPolicy(svc),
                                          "must be 'SingleStack' to release the secondary "
                                          "cluster IP"));
      }
      if (spec.ip_families.size() < old->spec.ip_families.size() && !spec.ip_families.empty()) {
        errs.push_back(v::InvalidRendered(policy_path, RenderPolicy(svc),
                                          "must be 'SingleStack' to release the secondary IP "
                                          "family"));
      }
    }
  }
  if (Policy(svc) == kSingleStack) {
    if (spec.cluster_ips.size() == 2) {
      errs.push_back(v::InvalidRendered(
          policy_path, RenderPolicy(svc),
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are "
          "specified"));
    }
    if (spec.ip_families.size() == 2) {
      errs.push_back(v::InvalidRendered(
          policy_path, RenderPolicy(svc),
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are "
          "specified"));
    }
  }
  for (size_t i = 0; i < spec.cluster_ips.size(); ++i) {
    if (spec.cluster_ips[i] == "None") break;
    std::string fam(FamilyOf(spec.cluster_ips[i]));
    if (i >= spec.ip_families.size()) {
      if (!ForFamily(fam)) {
        errs.push_back(v::InvalidRendered(v::Path("spec").Child("clusterIPs").Index(int64_t(i)),
                                          v::GoStringSlice(spec.cluster_ips),
                                          fam + " is not configured on this cluster"));
      } else {
        spec.ip_families.push_back(fam);
      }
    }
  }
  if (!errs.empty()) return Invalid(svc, errs);

  const std::string primary(ips_[0]->family());
  if (spec.cluster_ip == "None" && spec.selector.empty()) {
    if (spec.ip_families.empty()) spec.ip_families.push_back(primary);
    if (spec.ip_families.size() < 2 && Policy(svc) != kSingleStack) {
      spec.ip_families.push_back(OtherFamily(spec.ip_families[0]));
    }
    return Status::Ok();
  }
  if (Policy(svc) == kRequireDualStack && ips_.size() < 2) {
    errs.push_back(v::InvalidRendered(policy_path, RenderPolicy(svc),
                                      "this cluster is not configured for dual-stack services"));
  }
  for (size_t i = 0; i < spec.ip_families.size(); ++i) {
    if (!ForFamily(spec.ip_families[i])) {
      errs.push_back(v::Invalid(v::Path("spec").Child("ipFamilies").Index(int64_t(i)),
                                spec.ip_families[i], "not configured on this cluster"));
    }
  }
  if (!errs.empty()) return Invalid(svc, errs);
  if (spec.ip_families.empty()) spec.ip_families.push_back(primary);
  if (Policy(svc) != kSingleStack && spec.ip_families.size() == 1 && ips_.size() == 2) {
    spec.ip_families.push_back(OtherFamily(spec.ip_families[0]));
  }
  return Status::Ok();
}

Status ServiceAllocator::AllocClusterIps(Service& svc, bool dry_run, Txn& txn) {
  if (svc.spec.type == "ExternalName" || IsHeadless(svc)) return Status::Ok();
  std::vector<size_t> indexes;
  for (size_t i = 0; i < svc.spec.ip_families.size(); ++i) {
    if (i >= svc.spec.cluster_ips.size()) svc.spec.cluster_ips.emplace_back();
    indexes.push_back(i);
  }
  return AllocIps(svc, indexes, dry_run, txn);
}

Status ServiceAllocator::AllocIps(Service& svc, const std::vector<size_t>& indexes, bool dry_run,
                                  Txn& txn) {
  auto& ips = svc.spec.cluster_ips;
  for (size_t i : indexes) {
    IpAllocator* alloc = ForFamily(svc.spec.ip_families[i]);
    if (!alloc) return InternalError("no allocator for " + svc.spec.ip_families[i]);
    if (ips[i].empty()) {
      auto next = alloc->AllocateNext(dry_run);
      if (!next.ok()) return next.status();
      if (!*next) {
        return InternalError("Internal error occurred: failed to allocate a serviceIP: " +
                             alloc->ErrorText(AllocError::kFull));
      }
      ips[i] = **next;
      if (!dry_run) txn.on_revert.push_back([alloc, ip = ips[i]] { (void)alloc->Release(ip); });
      continue;
    }
    auto err = alloc->Allocate(ips[i], dry_run);
    if (!err.ok()) return err.status();
    if (*err != AllocError::kNone) {
      return Invalid(svc, {v::InvalidRendered(
                              v::Path("spec").Child("clusterIPs"), v::GoStringSlice(ips),
                              "failed to allocate IP " + ips[i] + ": " + alloc->ErrorText(*err))});
    }
    if (!dry_run) txn.on_revert.push_back([alloc, ip = ips[i]] { (void)alloc->Release(ip); });
  }
  if (!ips.empty()) svc.spec.cluster_ip = ips[0];
  return Status::Ok();
}

void ServiceAllocator::ReleaseIpLater(std::string ip, Txn& txn) {
  IpAllocator* alloc = ForFamily(FamilyOf(ip));
  if (!alloc) return;  // the family is no longer configured
  txn.on_commit.push_back([alloc, ip = std::move(ip)] { (void)alloc->Release(ip); });
}

// updateClusterIPs: type changes to/from ExternalName and dual-stack up/downgrades.
Status ServiceAllocator::UpdateClusterIps(Service& svc, const Service& old, bool dry_run,
                                          Txn& txn) {
  if (IsMatchingPreferDualStack(svc, &old)) return Status::Ok();
  if (old.spec.type == "ExternalName" && svc.spec.type != "ExternalName") {
    return AllocClusterIps(svc, dry_run, txn);
  }
  if (IsHeadless(old)) return Status::Ok();
  if (old.spec.type != "ExternalName" && svc.spec.type == "ExternalName") {
    for (const auto& ip : old.spec.cluster_ips) ReleaseIpLater(ip, txn);
    return Status::Ok();
  }
  const bool upgraded = old.spec.ip_families.size() == 1 && svc.spec.ip_families.size() == 2;
  const bool downgraded = old.spec.ip_families.size() == 2 && svc.spec.ip_families.size() == 1;
  if (upgraded) {
    if (svc.spec.cluster_ips.size() < 2) svc.spec.cluster_ips.resize(2);
    return AllocIps(svc, {1}, dry_run, txn);
  }
  if (downgraded && old.spec.cluster_ips.size() > 1) {
    ReleaseIpLater(old.spec.cluster_ips[1], txn);
  }
  return Status::Ok();
}

Status ServiceAllocator::AllocPort(Service& svc, size_t index, int port, bool dry_run, Txn& txn) {
  auto err = ports_->Allocate(port, dry_run);
  if (!err.ok()) return err.status();
  if (*err != AllocError::kNone) {
    return Invalid(
        svc, {v::Invalid(v::Path("spec").Child("ports").Index(int64_t(index)).Child("nodePort"),
                         int64_t{port}, ports_->ErrorText(*err))});
  }
  if (!dry_run) txn.on_revert.push_back([this, port] { (void)ports_->Release(port); });
  return Status::Ok();
}

Result<int> ServiceAllocator::AllocNextPort(bool dry_run, Txn& txn) {
  auto next = ports_->AllocateNext(dry_run);
  if (!next.ok()) return next.status();
  if (!*next) return Status(Code::kInternal, ports_->ErrorText(AllocError::kFull));
  int port = **next;
  if (!dry_run) txn.on_revert.push_back([this, port] { (void)ports_->Release(port); });
  return port;
}

void ServiceAllocator::ReleasePortLater(int port, Txn& txn) {
  txn.on_commit.push_back([this, port] { (void)ports_->Release(port); });
}

// initNodePorts: ports sharing a service port number share one node port (TCP+UDP on 53).
Status ServiceAllocator::InitNodePorts(Service& svc, bool dry_run, Txn& txn) {
  if (NeedsNodePorts(svc)) {
    std::map<int32_t, int32_t> by_service_port;
    auto& ports = svc.spec.ports;
    for (size_t i = 0; i < ports.size(); ++i) {
      auto& sp = ports[i];
      if (sp.node_port == 0 && !ShouldAllocateNodePorts(svc)) continue;
      int32_t allocated = by_service_port.count(sp.port) ? by_service_port[sp.port] : 0;
      if (allocated == 0) {
        int32_t requested = 0;
        for (const auto& other : ports) {
          if (other.port == sp.port && other.node_port != 0) {
            requested = other.node_port;
            break;
          }
        }
        if (requested != 0) {
          SVC_RETURN_IF_ERROR(AllocPort(svc, i, requested, dry_run, txn));
          sp.node_port = requested;
        } else {
          auto next = AllocNextPort(dry_run, txn);
          if (!next.ok()) {
            return InternalError("Internal error occurred: failed to allocate a nodePort: " +
                                 next.status().message());
          }
          sp.node_port = *next;
        }
        by_service_port[sp.port] = sp.node_port;
      } else if (sp.node_port != allocated) {
        if (sp.node_port == 0) {
          sp.node_port = allocated;
        } else {
          SVC_RETURN_IF_ERROR(AllocPort(svc, i, sp.node_port, dry_run, txn));
        }
      }
    }
  }
  if (NeedsHealthCheck(svc)) return AllocHealthCheckNodePort(svc, dry_run, txn);
  return Status::Ok();
}

Status ServiceAllocator::AllocHealthCheckNodePort(Service& svc, bool dry_run, Txn& txn) {
  int32_t hc = svc.spec.health_check_node_port;
  if (hc != 0) {
    auto err = ports_->Allocate(hc, dry_run);
    if (!err.ok()) return err.status();
    if (*err != AllocError::kNone) {
      return InternalError(
          "Internal error occurred: failed to allocate requested HealthCheck "
          "NodePort " +
          std::to_string(hc) + ": " + ports_->ErrorText(*err));
    }
    if (!dry_run) txn.on_revert.push_back([this, hc] { (void)ports_->Release(hc); });
    return Status::Ok();
  }
  auto next = AllocNextPort(dry_run, txn);
  if (!next.ok()) {
    return InternalError("Internal error occurred: failed to allocate a HealthCheck NodePort 0: " +
                         next.status().message());
  }
  svc.spec.health_check_node_port = *next;
  return Status::Ok();
}

Status ServiceAllocator::UpdateNodePorts(Service& svc, const Service& old, bool dry_run, Txn& txn) {
  if (NeedsNodePorts(old) && (svc.spec.type == "ExternalName" || svc.spec.type == "ClusterIP")) {
    for (int p : CollectNodePorts(old, false)) ReleasePortLater(p, txn);
  }
  if (NeedsNodePorts(svc)) {
    std::vector<int> old_ports = CollectNodePorts(old, false);
    auto in_old = [&](int p) {
      return std::find(old_ports.begin(), old_ports.end(), p) != old_ports.end();
    };
    std::set<int> taken_now;
    std::set<std::pair<std::string, int32_t>> seen;
    auto& ports = svc.spec.ports;
    for (size_t i = 0; i < ports.size(); ++i) {
      auto& sp = ports[i];
      if (sp.node_port == 0 && !ShouldAllocateNodePorts(svc)) continue;
      if (sp.node_port != 0) {
        if (!in_old(sp.node_port) && !taken_now.count(sp.node_port)) {
          SVC_RETURN_IF_ERROR(AllocPort(svc, i, sp.node_port, dry_run, txn));
          taken_now.insert(sp.node_port);
        }
      } else {
        auto next = AllocNextPort(dry_run, txn);
        if (!next.ok()) {
          return InternalError("Internal error occurred: failed to allocate a nodePort: " +
                               next.status().message());
        }
        sp.node_port = *next;
      }
      if (!seen.insert({sp.protocol, sp.node_port}).second) {
        return InternalError("duplicate nodePort: {" + sp.protocol + " " +
                             std::to_string(sp.node_port) + "}");
      }
    }
    std::vector<int> new_ports = CollectNodePorts(svc, false);
    for (int p : old_ports) {
      if (std::find(new_ports.begin(), new_ports.end(), p) == new_ports.end()) {
        ReleasePortLater(p, txn);
      }
    }
  }
  // Health-check node port: allocate on becoming LoadBalancer+Local, release on leaving it.
  const bool needed = NeedsHealthCheck(old), needs = NeedsHealthCheck(svc);
  if (!needed && needs) return AllocHealthCheckNodePort(svc, dry_run, txn);
  if (needed && !needs) {
    if (old.spec.health_check_node_port != 0) {
      ReleasePortLater(old.spec.health_check_node_port, txn);
    }
    svc.spec.health_check_node_port = 0;
  } else if (needed && needs && svc.spec.health_check_node_port == 0) {
    svc.spec.health_check_node_port = old.spec.health_check_node_port;
  }
  return Status::Ok();
}

std::vector<int> CollectNodePorts(const Service& svc, bool with_health_check) {
  std::vector<int> out;
  auto add = [&](int p) {
    if (p != 0 && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  for (const auto& p : svc.spec.ports) add(p.node_port);
  if (with_health_check) add(svc.spec.health_check_node_port);
  return out;
}

void ServiceAllocator::ReleaseAll(const Service& svc) {
  if (svc.spec.type != "ExternalName" && !IsHeadless(svc)) {
    for (const auto& ip : svc.spec.cluster_ips) {
      IpAllocator* alloc = ForFamily(FamilyOf(ip));
      if (!alloc) continue;
      if (Status st = alloc->Release(ip); !st.ok()) {
        spdlog::warn("releasing cluster IP {} of {}/{}: {} (the repair loop will free it)", ip,
                     svc.metadata.namespace_, svc.metadata.name, st.message());
      }
    }
  }
  for (int p : CollectNodePorts(svc, true)) {
    if (Status st = ports_->Release(p); !st.ok()) {
      spdlog::warn("releasing node port {} of {}/{}: {} (the repair loop will free it)", p,
                   svc.metadata.namespace_, svc.metadata.name, st.message());
    }
  }
}

}  // namespace svcplane::apiserver::allocator
