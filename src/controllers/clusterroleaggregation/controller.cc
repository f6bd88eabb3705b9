#include "controllers/clusterroleaggregation/controller.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <vector>

#include "controllers/clusterroleaggregation/aggregation.h"

namespace svcplane::controllers::clusterroleaggregation {

using api::rbac::v1::ClusterRole;

namespace {
constexpr auto kRetry = std::chrono::seconds(1);
}  // namespace

AggregationController::AggregationController(client::ResourceClient<ClusterRole>& roles,
                                             const Clock& clock)
    : roles_(roles), clock_(clock) {}

void AggregationController::MarkDirty() {
  std::lock_guard<std::mutex> l(mu_);
  dirty_ = true;
  cv_.notify_all();
}

Status AggregationController::SyncAll() {
  auto list = roles_.List("");
  if (!list.ok()) return list.status();
  std::vector<const ClusterRole*> all;
  all.reserve(list->items.size());
  for (const auto& cr : list->items) all.push_back(cr.get());
  Status first = Status::Ok();
  for (const ClusterRole* cr : all) {
    if (!cr->aggregation_rule) continue;
    auto rules = AggregatedRules(*cr, all);
    Status st = rules.status();
    if (rules.ok() && !SameRules(*rules, cr->rules)) {
      ClusterRole updated = *cr;
      updated.rules = std::move(*rules);
      auto written = roles_.Update(updated);
      st = written.ok() ? Status::Ok() : written.status();
    }
    if (!st.ok()) {
      spdlog::warn("{}: syncing ClusterRole {}: {}", kControllerName, cr->metadata.name,
                   st.ToString());
      if (first.ok()) first = st;
    }
  }
  return first;
}

void AggregationController::Watch(std::stop_token stop) {
  std::stop_callback wake(stop, [this] {
    std::lock_guard<std::mutex> l(mu_);
    cv_.notify_all();
  });
  while (!stop.stop_requested()) {
    Status st = Status::Ok();
    auto list = roles_.List("");
    if (list.ok()) {
      MarkDirty();  // whatever happened while we were not watching
      client::CancelToken cancel;
      std::stop_callback on_stop(stop, [&] { cancel.Cancel(); });
      client::ListOptions opts;
      opts.watch = true;
      opts.resource_version = list->resource_version;
      opts.allow_watch_bookmarks = true;
      st = roles_.Watch(
          "", opts,
          [this](client::WatchEvent<ClusterRole> ev) {
            if (ev.type != client::WatchEventType::kBookmark) MarkDirty();
            return true;
          },
          cancel);
    } else {
      st = list.status();
    }
    if (stop.stop_requested()) return;
    if (!st.ok()) spdlog::warn("{}: watching ClusterRoles: {}", kControllerName, st.ToString());
    std::unique_lock<std::mutex> l(mu_);
    clock_.WaitUntil(l, cv_, clock_.Now() + kRetry, [&] { return stop.stop_requested(); });
  }
}

void AggregationController::Work(std::stop_token stop) {
  std::stop_callback wake(stop, [this] {
    std::lock_guard<std::mutex> l(mu_);
    cv_.notify_all();
  });
  while (true) {
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] { return dirty_ || stop.stop_requested(); });
      if (stop.stop_requested()) return;
      dirty_ = false;
    }
    if (!SyncAll().ok()) {
      // Try again after a pause, even if nothing else changes.
      std::unique_lock<std::mutex> l(mu_);
      clock_.WaitUntil(l, cv_, clock_.Now() + kRetry, [&] { return stop.stop_requested(); });
      dirty_ = true;
    }
  }
}

}  // namespace svcplane::controllers::clusterroleaggregation
