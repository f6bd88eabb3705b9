#include "client/typed/list_decoder.h"

#include <thread>

#include "base/thread_name.h"

namespace svcplane::client::typed::internal {
namespace {

class ListDecodeThread {
 public:
  ListDecodeThread()
      : thread_([this] {
          NameThisThread("list-decode");
          Loop();
        }) {}

  void Post(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> l(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }

 private:
  void Loop() {
    while (true) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [this] { return !jobs_.empty(); });
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;  // guarded by mu_
  std::thread thread_;
};

}  // namespace

void PostToListDecodeThread(std::function<void()> job) {
  // Never destroyed: the thread waits for jobs until the process exits (joining it from a
  // static destructor could wait on a job that outlives main).
  static ListDecodeThread* const thread = new ListDecodeThread;
  thread->Post(std::move(job));
}

}  // namespace svcplane::client::typed::internal
