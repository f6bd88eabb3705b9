#include "apiserver/http/internal/server_state.h"

#include "apiserver/http/internal/connection.h"

namespace svcplane::apiserver::http::internal {

void ServerState::Register(const std::shared_ptr<Connection>& c) {
  std::lock_guard lock(mu);
  connections.emplace(c.get(), c);
}

void ServerState::Unregister(Connection* c) {
  {
    std::lock_guard lock(mu);
    connections.erase(c);
  }
  cv.notify_all();
}

}  // namespace svcplane::apiserver::http::internal
