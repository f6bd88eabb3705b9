// Start-up cost of the OpenAPI documents: all of them (v3 per group-version, Swagger 2.0 JSON and
// its gnostic protobuf) are built once when the server starts and then served as bytes.

#include <boost/json.hpp>

#include "apiserver/openapi/internal/gnostic.h"
#include "apiserver/openapi/openapi.h"
#include "benchmark/benchmark.h"

namespace {

using svcplane::apiserver::openapi::Documents;

void BM_BuildAllDocuments(benchmark::State& state) {
  size_t proto = 0, json = 0;
  for (auto _ : state) {
    Documents d;
    proto = d.SwaggerProtobuf().size();
    json = d.SwaggerJson().size();
    benchmark::DoNotOptimize(d);
  }
  state.counters["v2_protobuf_bytes"] = static_cast<double>(proto);
  state.counters["v2_json_bytes"] = static_cast<double>(json);
}
BENCHMARK(BM_BuildAllDocuments)->Unit(benchmark::kMillisecond);

// The protobuf step alone, from the Swagger JSON tree.
void BM_EncodeV2Protobuf(benchmark::State& state) {
  Documents d;
  const boost::json::object swagger = boost::json::parse(d.SwaggerJson()).as_object();
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        svcplane::apiserver::openapi::internal::EncodeGnosticDocument(swagger));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * d.SwaggerProtobuf().size()));
}
BENCHMARK(BM_EncodeV2Protobuf)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
