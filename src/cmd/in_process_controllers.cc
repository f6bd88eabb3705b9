#include "cmd/in_process_controllers.h"

#include <spdlog/spdlog.h>

#include "base/thread_name.h"
#include "client/informers/informer_factory.h"

namespace svcplane::cmd {

namespace manager = controllers::manager;

// One leadership term: its own informers (a new term starts from a fresh list) and manager.
struct InProcessControllers::Term {
  std::unique_ptr<client::informers::InformerFactory> informers;
  std::unique_ptr<manager::ControllerManager> manager;  // after informers: destroyed first
};

InProcessControllers::InProcessControllers(
    client::Clientset& manager_client,
    std::function<client::Clientset&(std::string_view controller)> client_for,
    manager::ControllerManagerOptions options, const manager::ControllerRegistry& registry)
    : loopback_(manager_client),
      client_for_(std::move(client_for)),
      options_(std::move(options)),
      registry_(registry) {}

InProcessControllers::~InProcessControllers() { Stop(); }

Result<std::shared_ptr<InProcessControllers::Term>> InProcessControllers::NewTerm() {
  auto term = std::make_shared<Term>();
  // In-process informers list without paging: the loopback client hands out shared objects,
  // so one unpaged list is the cheapest way to fill a cache.
  term->informers = client::informers::MakeInformerFactory(loopback_, {}, {.page_size = 0});
  auto cm = manager::ControllerManager::Create(
      options_, registry_,
      {.client = loopback_, .client_for = client_for_, .informers = term->informers.get()});
  if (!cm.ok()) return cm.status();
  term->manager = std::move(*cm);
  return term;
}

Status InProcessControllers::Start(std::function<void(const Status&)> on_failure) {
  on_failure_ = std::move(on_failure);
  auto first = NewTerm();
  if (!first.ok()) return first.status();
  thread_ =
      std::jthread([this, first = std::move(*first)](std::stop_token stop) { Loop(first, stop); });
  return Status::Ok();
}

void InProcessControllers::Stop() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
}

void InProcessControllers::Loop(std::shared_ptr<Term> term, std::stop_token stop) {
  NameThisThread("svc-controllers");
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      current_ = term;
    }
    Status st = term->manager->Run(stop);
    term->informers->Shutdown();
    {
      std::lock_guard<std::mutex> lock(mu_);
      current_.reset();
    }
    term.reset();
    if (stop.stop_requested()) return;
    if (!options_.leader_election.leader_elect || st.code() != Code::kUnavailable) {
      on_failure_(st);
      return;
    }
    spdlog::warn("controllers stopped ({}): standing by for the next election", st.message());
    auto next = NewTerm();
    if (!next.ok()) {
      on_failure_(next.status());
      return;
    }
    term = std::move(*next);
  }
}

manager::HttpReply InProcessControllers::ServeHttp(std::string_view target) const {
  std::shared_ptr<Term> term;
  {
    std::lock_guard<std::mutex> lock(mu_);
    term = current_;
  }
  if (!term) return {.status = 503, .body = "controllers between leadership terms\n"};
  return term->manager->ServeHttp(target);
}

}  // namespace svcplane::cmd
