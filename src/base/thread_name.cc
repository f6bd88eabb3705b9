#include "base/thread_name.h"

#include <pthread.h>

namespace svcplane {

void NameThisThread(std::string_view name) {
  std::string cut(name.substr(0, 15));
  pthread_setname_np(pthread_self(), cut.c_str());
}

std::string ThisThreadName() {
  char buf[16] = {};
  if (pthread_getname_np(pthread_self(), buf, sizeof(buf)) != 0) return "";
  return buf;
}

}  // namespace svcplane
