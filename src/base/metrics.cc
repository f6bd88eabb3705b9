#include "base/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/check.h"

namespace svcplane {

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), buckets_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  SVC_CHECK(std::is_sorted(bounds_.begin(), bounds_.end())) << "histogram bounds not sorted";
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0);
}

void Histogram::Observe(double v) {
  const size_t i = std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin();
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

uint64_t Histogram::CumulativeCount(size_t i) const {
  uint64_t total = 0;
  for (size_t j = 0; j <= i && j <= bounds_.size(); ++j) {
    total += buckets_[j].load(std::memory_order_relaxed);
  }
  return total;
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i) out.push_back(start * std::pow(factor, i));
  return out;
}

MetricsRegistry::Family& MetricsRegistry::FamilyFor(const std::string& name,
                                                    const std::string& help, Type type) {
  auto [it, inserted] = families_.try_emplace(name);
  if (inserted) {
    it->second.type = type;
    it->second.help = help;
  }
  SVC_CHECK(it->second.type == type) << "metric " << name << " registered with two types";
  return it->second;
}

Counter& MetricsRegistry::GetCounter(const std::string& name, const std::string& help,
                                     MetricLabels labels) {
  std::lock_guard<std::mutex> l(mu_);
  auto& slot = FamilyFor(name, help, Type::kCounter).counters[std::move(labels)];
  if (!slot) slot = std::make_unique<Counter>();
  return *slot;
}

Gauge& MetricsRegistry::GetGauge(const std::string& name, const std::string& help,
                                 MetricLabels labels) {
  std::lock_guard<std::mutex> l(mu_);
  auto& slot = FamilyFor(name, help, Type::kGauge).gauges[std::move(labels)];
  if (!slot) slot = std::make_unique<Gauge>();
  return *slot;
}

Histogram& MetricsRegistry::GetHistogram(const std::string& name, const std::string& help,
                                         MetricLabels labels, std::vector<double> bounds) {
  std::lock_guard<std::mutex> l(mu_);
  auto& slot = FamilyFor(name, help, Type::kHistogram).histograms[std::move(labels)];
  if (!slot) slot = std::make_unique<Histogram>(std::move(bounds));
  return *slot;
}

namespace {

std::string EscapeLabelValue(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string RenderLabels(const MetricLabels& labels, const std::string& extra_key = "",
                         const std::string& extra_value = "") {
  if (labels.empty() && extra_key.empty()) return "";
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) out += ",";
    first = false;
    out += fmt::format("{}=\"{}\"", k, EscapeLabelValue(v));
  }
  if (!extra_key.empty()) {
    if (!first) out += ",";
    out += fmt::format("{}=\"{}\"", extra_key, extra_value);
  }
  return out + "}";
}

std::string FormatValue(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

}  // namespace

std::string MetricsRegistry::RenderPrometheus() const {
  std::lock_guard<std::mutex> l(mu_);
  std::string out;
  for (const auto& [name, family] : families_) {
    static constexpr const char* kTypeNames[] = {"counter", "gauge", "histogram"};
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, family.help, name,
                       kTypeNames[static_cast<int>(family.type)]);
    for (const auto& [labels, c] : family.counters) {
      out += fmt::format("{}{} {}\n", name, RenderLabels(labels), FormatValue(c->Value()));
    }
    for (const auto& [labels, g] : family.gauges) {
      out += fmt::format("{}{} {}\n", name, RenderLabels(labels), FormatValue(g->Value()));
    }
    for (const auto& [labels, h] : family.histograms) {
      for (size_t i = 0; i <= h->bounds().size(); ++i) {
        const std::string le =
            i < h->bounds().size() ? FormatValue(h->bounds()[i]) : std::string("+Inf");
        out += fmt::format("{}_bucket{} {}\n", name, RenderLabels(labels, "le", le),
                           h->CumulativeCount(i));
      }
      out += fmt::format("{}_sum{} {}\n", name, RenderLabels(labels), FormatValue(h->Sum()));
      out += fmt::format("{}_count{} {}\n", name, RenderLabels(labels), h->Count());
    }
  }
  return out;
}

}  // namespace svcplane
