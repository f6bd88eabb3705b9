// Writes every discovery and OpenAPI document to a directory, for kubectl_check.py: a fake API
// server in Python serves these exact bytes to a real kubectl.
#include <fstream>
#include <iostream>
#include <string>

#include "apiserver/discovery/discovery.h"
#include "apiserver/openapi/openapi.h"

namespace {

void Write(const std::string& dir, const std::string& name, const std::string& body) {
  std::ofstream(dir + "/" + name, std::ios::binary) << body;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: docs_dump <dir> <host:port>\n";
    return 2;
  }
  const std::string dir = argv[1];
  svcplane::apiserver::discovery::Documents d(argv[2]);
  svcplane::apiserver::openapi::Documents o;
  Write(dir, "version", d.Version());
  Write(dir, "api", d.LegacyApi());
  Write(dir, "apis", d.LegacyApis());
  Write(dir, "aggregated_api", d.AggregatedApi());
  Write(dir, "aggregated_apis", d.AggregatedApis());
  Write(dir, "api_v1", *d.ResourceList("", "v1"));
  for (const char* g : {"discovery.k8s.io", "coordination.k8s.io"}) {
    Write(dir, std::string("apis_") + g, *d.Group(g));
    Write(dir, std::string("apis_") + g + "_v1", *d.ResourceList(g, "v1"));
  }
  Write(dir, "openapi_v3", o.Index());
  for (const char* p : {"api/v1", "apis/discovery.k8s.io/v1", "apis/coordination.k8s.io/v1"}) {
    std::string name = std::string("openapi_v3_") + p;
    for (char& c : name) c = c == '/' ? '_' : c;
    Write(dir, name, *o.GroupVersion(p));
  }
  return 0;
}
