#include "sim/simulator.h"

#include <algorithm>

#include "base/logging.h"
#include "client/errors.h"
#include "sim/node_factory.h"
#include "sim/node_lifecycle.h"

namespace svcplane::sim {

namespace core = api::core::v1;
using client::ObjectPtr;

namespace {

constexpr char kPodPrefix[] = "p/";
constexpr char kNodePrefix[] = "n/";
constexpr auto kRetryDelay = std::chrono::seconds(1);

std::string PodKey(const core::Pod& pod) {
  return pod.metadata.namespace_ + "/" + pod.metadata.name;
}

std::string InternalIp(const core::Node& node) {
  for (const core::NodeAddress& a : node.status.addresses) {
    if (a.type == "InternalIP") return a.address;
  }
  return "";
}

const core::NodeCondition* ReadyCondition(const core::Node& node) {
  for (const core::NodeCondition& c : node.status.conditions) {
    if (c.type == "Ready") return &c;
  }
  return nullptr;
}

// The lifecycle monitor's mark: Ready=Unknown because the kubelet went silent.
bool MarkedUnknown(const core::Node& node) {
  const core::NodeCondition* c = ReadyCondition(node);
  return c != nullptr && c->status == "Unknown";
}

// Writes each Event as the kubelet of the node it came from (source.host), so one broadcaster
// serves every simulated node.
class KubeletEventSink final : public client::record::EventSink {
 public:
  using Kubelets = std::function<client::Clientset&(const std::string& node)>;
  explicit KubeletEventSink(Kubelets kubelet) : kubelet_(std::move(kubelet)) {}

  Result<ObjectPtr<core::Event>> Create(const core::Event& event) override {
    return kubelet_(event.source.host).Events().Create(event);
  }
  Result<ObjectPtr<core::Event>> Update(const core::Event& event) override {
    return kubelet_(event.source.host).Events().Update(event);
  }
  Result<ObjectPtr<core::Event>> Patch(const core::Event& event, std::string_view patch) override {
    return kubelet_(event.source.host)
        .Events()
        .Patch(event.metadata.namespace_, event.metadata.name, client::PatchType::kStrategicMerge,
               patch);
  }

 private:
  Kubelets kubelet_;
};

}  // namespace

Status RecreateBinder::Bind(const core::Pod& pod, const std::string& node_name) {
  core::Pod bound = pod;
  bound.spec.node_name = node_name;
  bound.metadata.uid.clear();
  bound.metadata.resource_version.clear();
  bound.metadata.creation_timestamp = {};
  bound.metadata.rest->managed_fields.clear();
  bound.metadata.rest->generation = 0;
  bound.status = {};
  client::DeleteOptions del;
  del.grace_period_seconds = 0;
  del.precondition_uid = pod.metadata.uid;
  if (Status st = cs_.Pods().Delete(pod.metadata.namespace_, pod.metadata.name, del); !st.ok()) {
    return st;
  }
  auto created = cs_.Pods().Create(bound);
  return created.status();
}

Status ClientBinder::Bind(const core::Pod& pod, const std::string& node_name) {
  if (!unsupported_.load(std::memory_order_relaxed)) {
    Status st =
        cs_.BindPod(pod.metadata.namespace_, pod.metadata.name, node_name, pod.metadata.uid);
    const bool no_subresource =
        st.code() == Code::kMethodNotAllowed ||
        (st.code() == Code::kNotFound &&
         st.message() == "the server could not find the requested resource");
    if (!no_subresource) return st;
    if (!unsupported_.exchange(true)) {
      spdlog::warn("sim: pods/binding not served ({}); binding by recreating Pods instead",
                   st.ToString());
    }
  }
  return fallback_.Bind(pod, node_name);
}

Simulator::Simulator(client::Clientset& cs, client::informers::InformerFactory& informers,
                     SimOptions opts, const Clock& clock, std::unique_ptr<Binder> binder,
                     SimClients clients)
    : cs_(cs),
      node_lifecycle_(clients.node_lifecycle ? *clients.node_lifecycle : cs),
      kubelet_(std::move(clients.kubelet)),
      informers_(informers),
      opts_(std::move(opts)),
      clock_(clock),
      binder_(binder              ? std::move(binder)
              : clients.scheduler ? std::make_unique<ClientBinder>(*clients.scheduler)
                                  : std::make_unique<ClientBinder>(cs)),
      heartbeats_([this](const std::string& node) -> client::Clientset& { return Kubelet(node); },
                  opts_, clock, /*seed=*/0x5eed),
      queue_(client::QueueConfig{"", nullptr, &clock}),
      event_sink_(std::make_unique<KubeletEventSink>(
          [this](const std::string& node) -> client::Clientset& { return Kubelet(node); })),
      events_(std::make_unique<client::record::EventBroadcaster>(
          *event_sink_, client::record::BroadcasterOptions{.clock = &clock})) {
  RegisterHandlers();
}

Simulator::~Simulator() { Shutdown(); }

void Simulator::RegisterHandlers() {
  auto& pods = informers_.Pods();
  pods.AddIndexer(kPodNodeIndex,
                  [](const core::Pod& p) {
                    return p.spec.node_name.empty() ? std::vector<std::string>{}
                                                    : std::vector<std::string>{p.spec.node_name};
                  })
      .IgnoreError();  // fails only once the informer runs; the lister then has no such index
  client::informers::ResourceEventHandler<core::Pod> ph;
  ph.on_add = [this](const ObjectPtr<core::Pod>& p, bool) {
    const std::string key = PodKey(*p);
    {
      std::lock_guard<std::mutex> l(mu_);
      placer_.Observe(key, p->spec.node_name);
    }
    queue_.Add(kPodPrefix + key);
  };
  ph.on_update = [this](const ObjectPtr<core::Pod>&, const ObjectPtr<core::Pod>& p) {
    const std::string key = PodKey(*p);
    {
      std::lock_guard<std::mutex> l(mu_);
      placer_.Observe(key, p->spec.node_name);
    }
    queue_.Add(kPodPrefix + key);
  };
  ph.on_delete = [this](const ObjectPtr<core::Pod>& p, bool) {
    const std::string key = PodKey(*p);
    std::lock_guard<std::mutex> l(mu_);
    placer_.Forget(key);
    if (auto it = ip_pools_.find(p->spec.node_name); it != ip_pools_.end()) {
      it->second.Release(p->metadata.uid);
    }
    bound_seen_.erase(key);
    terminate_at_.erase(key);
  };
  pods.AddEventHandler(std::move(ph));

  client::informers::ResourceEventHandler<core::Node> nh;
  nh.on_add = [this](const ObjectPtr<core::Node>& n, bool) {
    {
      std::lock_guard<std::mutex> l(mu_);
      node_snapshot_stale_ = true;
    }
    ApplyHeartbeatAnnotation(*n);
    queue_.Add(kNodePrefix + n->metadata.name);
  };
  nh.on_update = [this](const ObjectPtr<core::Node>& old, const ObjectPtr<core::Node>& n) {
    {
      std::lock_guard<std::mutex> l(mu_);
      node_snapshot_stale_ = true;
    }
    if (NodeIsReady(*old) != NodeIsReady(*n) || MarkedUnknown(*old) != MarkedUnknown(*n)) {
      EnqueuePodsOn(n->metadata.name);
    }
    ApplyHeartbeatAnnotation(*n);
    queue_.Add(kNodePrefix + n->metadata.name);
  };
  nh.on_delete = [this](const ObjectPtr<core::Node>&, bool) {
    std::lock_guard<std::mutex> l(mu_);
    node_snapshot_stale_ = true;
  };
  informers_.Nodes().AddEventHandler(std::move(nh));
  informers_.Leases();  // the lifecycle monitor reads its lister
}

Status Simulator::Start() {
  if (started_.exchange(true)) return Status::Ok();
  core::Namespace ns;
  ns.metadata.name = kNodeLeaseNamespace;
  // Created only when missing: the API server's bootstrap makes it, and a creator's
  // permission is checked before the existence of what it creates.
  if (auto got = cs_.Namespaces().Get("", ns.metadata.name); !got.ok()) {
    if (!client::IsNotFound(got.status())) return got.status();
    if (auto created = cs_.Namespaces().Create(ns);
        !created.ok() && !client::IsAlreadyExists(created.status())) {
      return created.status();
    }
  }
  heartbeats_.Start();  // before the Nodes: each Lease is created as its Node registers
  if (Status st = RegisterNodes(); !st.ok()) return st;
  for (int i = 0; i < std::max(1, opts_.workers); ++i) {
    threads_.emplace_back([this] { Work(); });
  }
  threads_.emplace_back([this] { MonitorLoop(); });
  return Status::Ok();
}

Status Simulator::RegisterNodes() {
  std::atomic<int> next{0};
  std::mutex err_mu;
  Status first_error;
  auto work = [&] {
    for (int i = next++; i < opts_.nodes; i = next++) {
      auto node = MakeNode(opts_, i, clock_.WallNow());
      Status st = node.status();
      if (node.ok()) {
        client::Clientset& kubelet = Kubelet(node->metadata.name);
        auto created = kubelet.Nodes().Create(*node);
        st = created.status();
        if (client::IsAlreadyExists(st)) {
          auto cur = kubelet.Nodes().Get("", node->metadata.name);
          st = !cur.ok()                ? cur.status()
               : IsSimulatedNode(**cur) ? Status::Ok()
                                        : AlreadyExistsError("node \"" + node->metadata.name +
                                                             "\" exists and is not simulated");
        }
      }
      if (!st.ok()) {
        std::lock_guard<std::mutex> l(err_mu);
        if (first_error.ok()) first_error = st;
        return;
      }
      heartbeats_.Add(NodeName(opts_, i), ZoneOf(opts_, i));
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, std::min(opts_.workers, opts_.nodes)); ++t) {
    pool.emplace_back(work);
  }
  for (std::thread& t : pool) t.join();
  if (!first_error.ok()) return first_error;
  for (int i = 0; i < opts_.nodes; ++i) node_names_.push_back(NodeName(opts_, i));
  std::lock_guard<std::mutex> l(mu_);
  stats_.nodes_registered = opts_.nodes;
  return Status::Ok();
}

void Simulator::Shutdown() {
  {
    std::lock_guard<std::mutex> l(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  queue_.ShutDown();
  heartbeats_.Shutdown();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  events_->Shutdown();
}

void Simulator::StopHeartbeats(const std::string& zone) { heartbeats_.StopZone(zone); }
void Simulator::ResumeHeartbeats(const std::string& zone) {
  heartbeats_.ResumeZone(zone);
  for (const std::string& n : heartbeats_.NodesInZone(zone)) queue_.Add(kNodePrefix + n);
}
void Simulator::StopNodeHeartbeats(const std::string& node) { heartbeats_.StopNode(node); }
void Simulator::ResumeNodeHeartbeats(const std::string& node) {
  heartbeats_.ResumeNode(node);
  queue_.Add(kNodePrefix + node);
}

void Simulator::ApplyHeartbeatAnnotation(const core::Node& node) {
  auto it = node.metadata.annotations.find(kHeartbeatsAnnotation);
  const bool stop = it != node.metadata.annotations.end() && it->second == "stopped";
  const std::string& name = node.metadata.name;
  bool was_stopped;
  {
    std::lock_guard<std::mutex> l(mu_);
    was_stopped = annotation_stopped_.count(name) > 0;
    if (stop) {
      annotation_stopped_.insert(name);
    } else {
      annotation_stopped_.erase(name);
    }
  }
  if (stop && !was_stopped) StopNodeHeartbeats(name);
  if (!stop && was_stopped) ResumeNodeHeartbeats(name);
}

SimStats Simulator::Stats() const {
  std::lock_guard<std::mutex> l(mu_);
  SimStats s = stats_;
  s.heartbeats = heartbeats_.Stats();
  return s;
}

void Simulator::CountError(const Status& st) {
  std::lock_guard<std::mutex> l(mu_);
  ++stats_.write_errors;
  if (stats_.write_errors % 1000 == 1) {
    spdlog::warn("sim: write failed ({} so far): {}", stats_.write_errors, st.ToString());
  }
}

void Simulator::EnqueuePodsOn(const std::string& node) {
  for (const auto& p : informers_.Pods().lister().ByIndex(kPodNodeIndex, node)) {
    queue_.Add(kPodPrefix + PodKey(*p));
  }
}

void Simulator::Work() {
  while (auto item = queue_.Get()) {
    const std::string& key = *item;
    if (key.rfind(kPodPrefix, 0) == 0) {
      SyncPod(key.substr(2));
    } else {
      SyncNode(key.substr(2));
    }
    queue_.Done(key);
  }
}

void Simulator::SyncPod(const std::string& key) {
  const size_t slash = key.find('/');
  auto pod = informers_.Pods().lister().Get(key.substr(0, slash), key.substr(slash + 1));
  if (!pod) return;
  if (NeedsScheduling(*pod, opts_.scheduler_name)) {
    Schedule(pod, key);
    return;
  }
  if (pod->spec.node_name.empty()) return;
  auto node = informers_.Nodes().lister().Get("", pod->spec.node_name);
  if (!node) return;
  if (MarkedUnknown(*node)) {
    // The lifecycle monitor's part (MarkPodsNotReady), for every node, simulated or not.
    if (auto st = NotReadyStatus(*pod, clock_.WallNow())) {
      core::Pod copy = *pod;
      copy.status = std::move(*st);
      auto res = node_lifecycle_.Pods().UpdateStatus(copy);
      if (res.ok()) {
        std::lock_guard<std::mutex> l(mu_);
        ++stats_.pods_marked_not_ready;
      } else if (!client::IsConflict(res.status()) && !client::IsNotFound(res.status())) {
        CountError(res.status());
        queue_.AddAfter(kPodPrefix + key, kRetryDelay);
      }
    }
    return;
  }
  // The kubelet stand-in acts only for our nodes whose kubelet is "alive".
  if (!IsSimulatedNode(*node) || !heartbeats_.Alive(node->metadata.name)) return;
  if (pod->metadata.deletion_timestamp) {
    Terminate(pod, key);
    return;
  }
  if (pod->status.phase == "Succeeded" || pod->status.phase == "Failed") return;
  RunKubelet(pod, *node, key);
}

void Simulator::Schedule(const ObjectPtr<core::Pod>& pod, const std::string& key) {
  std::string node_name;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (node_snapshot_stale_) {
      node_snapshot_ = informers_.Nodes().lister().List();
      std::sort(node_snapshot_.begin(), node_snapshot_.end(),
                [](const auto& a, const auto& b) { return a->metadata.name < b->metadata.name; });
      node_snapshot_stale_ = false;
    }
    int idx = placer_.Pick(*pod, node_snapshot_);
    if (idx >= 0) node_name = node_snapshot_[idx]->metadata.name;
  }
  if (node_name.empty()) {
    queue_.AddAfter(kPodPrefix + key, kRetryDelay);  // no Ready node fits yet
    return;
  }
  Status st = binder_->Bind(*pod, node_name);
  std::lock_guard<std::mutex> l(mu_);
  if (st.ok()) {
    ++stats_.pods_bound;
    return;
  }
  placer_.Forget(key);
  // NotFound/Conflict: the Pod changed or went away; its informer event brings it back if needed.
  if (!client::IsNotFound(st) && !client::IsConflict(st)) {
    ++stats_.write_errors;
    queue_.AddAfter(kPodPrefix + key, kRetryDelay);
  }
}

void Simulator::RunKubelet(const ObjectPtr<core::Pod>& pod, const core::Node& node,
                           const std::string& key) {
  const TimePoint now = clock_.Now();
  // Once Running (or after a restart of the simulator), no stage waits any more: the status
  // just follows the node's health.
  const bool running = pod->status.phase == "Running" && !pod->status.pod_ip.empty();
  std::string invalid;
  const ReadyPlan plan = PlanReady(opts_, *pod, &invalid);
  Duration until_running = Duration::zero();  // > 0: its containers are still being created
  std::string ip;
  {
    std::lock_guard<std::mutex> l(mu_);
    const auto [seen, first] = bound_seen_.emplace(key, now);
    if (first && !invalid.empty()) {
      ++stats_.invalid_annotations;
      spdlog::warn("sim: pod {}: {}; using the default readiness delay", key, invalid);
    }
    if (!running) {
      const TimePoint create_at = seen->second + CreateDelay(opts_, *pod);
      if (now < create_at) {
        queue_.AddAfter(kPodPrefix + key, create_at - now);
        return;
      }
      const TimePoint running_at = create_at + plan.delay;
      if (now < running_at) until_running = running_at - now;
    }
    auto pool = ip_pools_.find(node.metadata.name);
    if (pool == ip_pools_.end()) {
      auto cidr = Ipv4Cidr::Parse(node.spec.pod_cidr);
      if (!cidr.ok()) return;  // not ours to fix: a node without a podCIDR gets no Pod IPs
      pool = ip_pools_.emplace(node.metadata.name, PodIpPool(*cidr)).first;
    }
    if (!pod->status.pod_ip.empty()) {
      pool->second.Reserve(pod->metadata.uid, pod->status.pod_ip);
      ip = pod->status.pod_ip;
    } else {
      auto assigned = pool->second.Assign(pod->metadata.uid);
      if (!assigned.ok()) {
        ++stats_.write_errors;
        queue_.AddAfter(kPodPrefix + key, kRetryDelay);
        return;
      }
      ip = *assigned;
    }
  }
  core::PodStatus want;
  if (until_running > Duration::zero()) {
    want = CreatingStatus(*pod, InternalIp(node), ip, clock_.WallNow());
    queue_.AddAfter(kPodPrefix + key, until_running);
  } else {
    want = RunningStatus(*pod, InternalIp(node), ip, plan.ready && NodeIsReady(node),
                         clock_.WallNow());
  }
  if (!StatusDiffers(pod->status, want)) return;
  core::Pod copy = *pod;
  copy.status = std::move(want);
  auto res = Kubelet(node.metadata.name).Pods().UpdateStatus(copy);
  if (res.ok()) {
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.pod_status_writes;
  } else if (!client::IsConflict(res.status()) && !client::IsNotFound(res.status())) {
    CountError(res.status());
    queue_.AddAfter(kPodPrefix + key, kRetryDelay);
  }
}

// As the kubelet (and kwok's pod-delete stage): the containers get their grace period, and
// until they stop the Pod keeps its status — Running and Ready — so EndpointSlices show it
// serving and terminating. Then the kubelet removes the object: grace 0, for this UID only.
void Simulator::Terminate(const ObjectPtr<core::Pod>& pod, const std::string& key) {
  const TimePoint now = clock_.Now();
  TimePoint delete_at;
  bool first;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto [it, inserted] = terminate_at_.emplace(key, TimePoint{});
    if (inserted) it->second = now + TerminateDelay(opts_, *pod, clock_.WallNow());
    delete_at = it->second;
    first = inserted;
  }
  if (first) RecordKilling(*pod);
  if (now < delete_at) {
    queue_.AddAfter(kPodPrefix + key, delete_at - now);
    return;
  }
  client::DeleteOptions del;
  del.grace_period_seconds = 0;
  del.precondition_uid = pod->metadata.uid;
  Status st =
      Kubelet(pod->spec.node_name).Pods().Delete(pod->metadata.namespace_, pod->metadata.name, del);
  if (st.ok()) {
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.pods_deleted;
  } else if (!client::IsNotFound(st) && !client::IsConflict(st)) {
    CountError(st);
    queue_.AddAfter(kPodPrefix + key, kRetryDelay);
  }
}

client::record::EventRecorder& Simulator::KubeletRecorder(const std::string& node) {
  std::lock_guard<std::mutex> l(mu_);
  auto& r = recorders_[node];
  if (!r) r = events_->NewRecorder({.component = "kubelet", .host = node});
  return *r;
}

void Simulator::RecordKilling(const core::Pod& pod) {
  // Containers that were never created are not stopped.
  if (pod.status.pod_ip.empty()) return;
  client::record::EventRecorder& recorder = KubeletRecorder(pod.spec.node_name);
  for (const core::Container& c : pod.spec.containers) {
    api::meta::ObjectReference ref = client::record::ReferenceTo(pod, "Pod", "v1");
    ref.field_path = "spec.containers{" + c.name + "}";
    recorder.Eventf(ref, client::record::kEventTypeNormal, "Killing", "Stopping container {}",
                    c.name);
  }
  std::lock_guard<std::mutex> l(mu_);
  stats_.killing_events += static_cast<int64_t>(pod.spec.containers.size());
}

void Simulator::SyncNode(const std::string& name) {
  auto node = informers_.Nodes().lister().Get("", name);
  if (!node || !IsSimulatedNode(*node) || !heartbeats_.Alive(name) || NodeIsReady(*node)) return;
  // The kubelet is back (or never left): it posts a healthy status again.
  core::Node copy = *node;
  SetHealthyConditions(copy, clock_.WallNow());
  auto res = Kubelet(name).Nodes().UpdateStatus(copy);
  if (!res.ok() && !client::IsConflict(res.status()) && !client::IsNotFound(res.status())) {
    CountError(res.status());
    queue_.AddAfter(kNodePrefix + name, kRetryDelay);
  }
}

void Simulator::MonitorLoop() {
  std::unique_lock<std::mutex> l(stop_mu_);
  while (!stopping_) {
    clock_.WaitUntil(l, stop_cv_, clock_.Now() + opts_.node_monitor_period,
                     [this] { return stopping_; });
    if (stopping_) return;
    l.unlock();
    MonitorNodes();
    l.lock();
  }
}

void Simulator::MonitorNodes() {
  if (!informers_.Nodes().HasSynced() || !informers_.Leases().HasSynced()) return;
  const WallTime now = clock_.WallNow();
  const auto& leases = informers_.Leases().lister();
  for (const auto& node : informers_.Nodes().lister().List()) {
    auto lease = leases.Get(kNodeLeaseNamespace, node->metadata.name);
    if (!HeartbeatExpired(*node, lease.get(), now, opts_.node_monitor_grace)) continue;
    if (auto status = UnknownStatus(*node, now)) {
      core::Node copy = *node;
      copy.status = std::move(*status);
      auto res = node_lifecycle_.Nodes().UpdateStatus(copy);
      if (res.ok()) {
        std::lock_guard<std::mutex> l(mu_);
        ++stats_.nodes_marked_unknown;
      } else if (!client::IsConflict(res.status()) && !client::IsNotFound(res.status())) {
        CountError(res.status());
      }
    } else {
      // Already Unknown: make sure every Pod on it was marked (new Pods, failed writes).
      EnqueuePodsOn(node->metadata.name);
    }
  }
}

}  // namespace svcplane::sim
