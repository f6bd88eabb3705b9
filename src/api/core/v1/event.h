#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/meta/types.h"

namespace svcplane::api::core::v1 {

using meta::F;
using meta::kAlways;
using meta::kOmitEmpty;
using meta::Tag;

struct EventSource {
  std::string component;
  std::string host;
  meta::UnknownFields unknown;
  bool operator==(const EventSource&) const = default;
};
constexpr auto FieldsOf(Tag<EventSource>) {
  return std::make_tuple(F("component", &EventSource::component, kOmitEmpty, 1),
                         F("host", &EventSource::host, kOmitEmpty, 2));
}

struct EventSeries {
  int32_t count = 0;
  meta::MicroTime last_observed_time;
  meta::UnknownFields unknown;
  bool operator==(const EventSeries&) const = default;
};
constexpr auto FieldsOf(Tag<EventSeries>) {
  return std::make_tuple(F("count", &EventSeries::count, kOmitEmpty, 1),
                         F("lastObservedTime", &EventSeries::last_observed_time, kAlways, 2));
}

struct Event {
  std::string kind;
  std::string api_version;
  meta::ObjectMeta metadata;
  meta::ObjectReference involved_object;
  std::string reason;
  std::string message;
  EventSource source;
  meta::Time first_timestamp;
  meta::Time last_timestamp;
  int32_t count = 0;
  std::string type;
  meta::MicroTime event_time;
  std::optional<EventSeries> series;
  std::string action;
  std::optional<meta::ObjectReference> related;
  std::string reporting_component;
  std::string reporting_instance;
  meta::UnknownFields unknown;
  bool operator==(const Event&) const = default;
};
constexpr auto FieldsOf(Tag<Event>) {
  using T = Event;
  return std::make_tuple(
      F("kind", &T::kind), F("apiVersion", &T::api_version),
      F("metadata", &T::metadata, kAlways, 1), F("involvedObject", &T::involved_object, kAlways, 2),
      F("reason", &T::reason, kOmitEmpty, 3), F("message", &T::message, kOmitEmpty, 4),
      F("source", &T::source, kAlways, 5), F("firstTimestamp", &T::first_timestamp, kAlways, 6),
      F("lastTimestamp", &T::last_timestamp, kAlways, 7), F("count", &T::count, kOmitEmpty, 8),
      F("type", &T::type, kOmitEmpty, 9), F("eventTime", &T::event_time, kAlways, 10),
      F("series", &T::series, kOmitEmpty, 11), F("action", &T::action, kOmitEmpty, 12),
      F("related", &T::related, kOmitEmpty, 13),
      F("reportingComponent", &T::reporting_component, kAlways, 14),
      F("reportingInstance", &T::reporting_instance, kAlways, 15));
}

}  // namespace svcplane::api::core::v1
