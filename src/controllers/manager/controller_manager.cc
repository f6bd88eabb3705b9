#include "controllers/manager/controller_manager.h"

#include <spdlog/spdlog.h>

#include <condition_variable>

#include "base/thread_name.h"

namespace svcplane::controllers::manager {

namespace {

constexpr char kComponent[] = "svcplane-controller-manager";

}  // namespace

Result<std::unique_ptr<ControllerManager>> ControllerManager::Create(
    ControllerManagerOptions options, const ControllerRegistry& registry, ManagerDeps deps) {
  SVC_RETURN_IF_ERROR(Validate(options));
  auto enabled = registry.Enabled(options.controllers);
  if (!enabled.ok()) return enabled.status();
  std::unique_ptr<ControllerManager> m(
      new ControllerManager(std::move(options), std::move(*enabled), std::move(deps)));
  if (m->options_.leader_election.leader_elect) {
    const auto& le = m->options_.leader_election;
    client::leaderelection::LeaderElectionConfig config;
    config.lock = std::make_shared<client::leaderelection::LeaseLock>(
        m->client_.Leases(),
        client::leaderelection::LeaseLockConfig{.namespace_ = le.resource_namespace,
                                                .name = le.resource_name,
                                                .identity = m->identity_,
                                                .recorder = m->recorder_.get()});
    config.lease_duration = le.lease_duration;
    config.renew_deadline = le.renew_deadline;
    config.retry_period = le.retry_period;
    // kcm keeps the lease on exit; we hand it over at once on a clean stop (SIGTERM), which
    // shortens a rolling restart by up to a lease duration. A crash still waits it out.
    config.release_on_cancel = true;
    config.name = le.resource_name;
    config.clock = &m->clock_;
    config.metrics = &m->metrics_;
    config.random01 = m->deps_.random01;
    ControllerManager* self = m.get();
    config.callbacks.on_started_leading = [self](std::stop_token stop) { self->Lead(stop); };
    config.callbacks.on_stopped_leading = [self] {
      self->leading_ = false;
      if (!self->internal_stop_.stop_requested()) {
        spdlog::error("leaderelection lost");
        self->lost_ = true;
        self->internal_stop_.request_stop();
      }
    };
    config.callbacks.on_new_leader = [self](const std::string& id) {
      if (id != self->identity_) spdlog::info("new leader elected: {}", id);
    };
    auto elector = client::leaderelection::LeaderElector::Create(std::move(config));
    if (!elector.ok()) return elector.status();
    m->elector_ = std::move(*elector);
  }
  return m;
}

ControllerManager::ControllerManager(ControllerManagerOptions options,
                                     std::vector<const ControllerDescriptor*> enabled,
                                     ManagerDeps deps)
    : options_(std::move(options)),
      enabled_(std::move(enabled)),
      client_(deps.client),
      informers_(deps.informers),
      clock_(deps.clock ? *deps.clock : RealClock::Get()),
      identity_(deps.identity.empty() ? client::leaderelection::DefaultIdentity() : deps.identity),
      deps_(deps),
      sink_(client_.Events()),
      broadcaster_(std::make_unique<client::record::EventBroadcaster>(
          sink_, client::record::BroadcasterOptions{.clock = &clock_})),
      recorder_(broadcaster_->NewRecorder({.component = kComponent, .host = identity_})) {}

ControllerManager::~ControllerManager() {
  internal_stop_.request_stop();
  JoinControllerThreads();
  broadcaster_->Shutdown();
}

Status ControllerManager::Run(std::stop_token stop) {
  std::stop_callback forward(stop, [this] { internal_stop_.request_stop(); });
  const std::stop_token token = internal_stop_.get_token();
  spdlog::info("controller manager {} starting; controllers: {}", identity_, [&] {
    std::string names;
    for (const auto* d : enabled_) names += (names.empty() ? "" : ",") + d->name;
    return names.empty() ? std::string("(none)") : names;
  }());
  if (elector_ != nullptr) {
    elector_->Run(token);  // Lead() runs on the elector's leader thread meanwhile
  } else {
    Lead(token);
  }
  // Informers stop delivering first: controllers' handlers stay registered with the informers
  // (the contract has no removal), so what they point at (kept by ctx.keep_alive) is released
  // only once no handler can run any more.
  if (informers_ != nullptr) informers_->Shutdown();
  JoinControllerThreads();
  broadcaster_->Shutdown();
  std::vector<std::shared_ptr<void>> release;
  {
    std::lock_guard<std::mutex> l(mu_);
    release.swap(kept_alive_);
  }
  release.clear();  // outside the lock: destructors may log or join
  std::lock_guard<std::mutex> l(mu_);
  if (!start_error_.ok()) return start_error_;
  if (lost_) return UnavailableError("leaderelection lost");
  return Status::Ok();
}

void ControllerManager::Lead(std::stop_token stop) {
  leading_ = true;
  if (Status st = StartControllers(stop); !st.ok()) {
    spdlog::error("{}", st.message());
    {
      std::lock_guard<std::mutex> l(mu_);
      start_error_ = st;
    }
    internal_stop_.request_stop();
    return;
  }
  if (informers_ != nullptr) {
    informers_->Start();
    while (!stop.stop_requested() && !informers_->WaitForCacheSync(std::chrono::seconds(1))) {
    }
  }
  if (!stop.stop_requested()) {
    started_ = true;
    spdlog::info("all controllers started");
  }
  // Block until leadership or the process ends: the controllers run on their own threads.
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock<std::mutex> l(mu);
  cv.wait(l, stop, [] { return false; });
  started_ = false;
}

Status ControllerManager::StartControllers(std::stop_token stop) {
  const ControllerContext shared{
      .client = client_,
      .informers = informers_,
      .events = *broadcaster_,
      .options = options_,
      .metrics = metrics_,
      .clock = clock_,
      .stop = stop,
      .spawn =
          [this, stop](std::string name, std::function<void(std::stop_token)> fn) {
            Spawn(std::move(name), std::move(fn), stop);
          },
      .keep_alive =
          [this](std::shared_ptr<void> object) {
            std::lock_guard<std::mutex> l(mu_);
            kept_alive_.push_back(std::move(object));
          },
  };
  for (const ControllerDescriptor* d : enabled_) {
    if (stop.stop_requested()) return Status::Ok();
    spdlog::info("starting {}", d->name);
    // As kube-controller-manager's --use-service-account-credentials: each controller writes
    // with its own client; the shared informers, events and the election keep the manager's.
    ControllerContext ctx{
        .client = deps_.client_for ? deps_.client_for(d->name) : client_,
        .informers = shared.informers,
        .events = shared.events,
        .options = shared.options,
        .metrics = shared.metrics,
        .clock = shared.clock,
        .stop = shared.stop,
        .spawn = shared.spawn,
        .keep_alive = shared.keep_alive,
    };
    if (Status st = d->start(ctx); !st.ok()) {
      return Status(st.code(), "error starting \"" + d->name + "\": " + st.message());
    }
    std::lock_guard<std::mutex> l(mu_);
    started_names_.push_back(d->name);
  }
  return Status::Ok();
}

void ControllerManager::Spawn(std::string name, std::function<void(std::stop_token)> fn,
                              std::stop_token stop) {
  std::lock_guard<std::mutex> l(mu_);
  threads_.emplace_back([name = std::move(name), fn = std::move(fn), stop] {
    NameThisThread(name);
    fn(stop);
    spdlog::debug("{} stopped", name);
  });
}

void ControllerManager::JoinControllerThreads() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> l(mu_);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
}

std::vector<std::string> ControllerManager::started_controllers() const {
  std::lock_guard<std::mutex> l(mu_);
  return started_names_;
}

HttpReply ControllerManager::ServeHttp(std::string_view target) const {
  std::string_view path = target.substr(0, target.find('?'));
  const bool verbose = target.find("verbose") != std::string_view::npos;
  if (path == "/metrics") {
    return {200, "text/plain; version=0.0.4; charset=utf-8", metrics_.RenderPrometheus()};
  }
  if (path != "/livez" && path != "/readyz" && path != "/healthz") {
    return {404, "text/plain; charset=utf-8", "404 page not found\n"};
  }
  std::vector<std::pair<std::string, bool>> checks = {{"ping", true}};
  if (elector_ != nullptr) {
    checks.emplace_back("leaderElection",
                        elector_->Check(deps_.leader_election_watchdog_tolerance).ok());
  }
  if (path == "/readyz") {
    // A standby is ready (it is doing its job: waiting); a leader once its caches synced.
    checks.emplace_back("controllers-started", !leading_.load() || started_.load());
  }
  bool ok = !lost_.load();
  std::string lines;
  for (const auto& [name, passed] : checks) {
    ok = ok && passed;
    lines += passed ? "[+]" + name + " ok\n" : "[-]" + name + " failed: reason withheld\n";
  }
  const std::string endpoint(path.substr(1));
  if (ok)
    return {200, "text/plain; charset=utf-8",
            verbose ? lines + endpoint + " check passed\n" : "ok"};
  return {500, "text/plain; charset=utf-8", lines + endpoint + " check failed\n"};
}

}  // namespace svcplane::controllers::manager
