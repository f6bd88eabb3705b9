#pragma once

#include <cstdint>

namespace svcplane {

// Howard Hinnant's days_from_civil / civil_from_days: exact for the proleptic Gregorian calendar
// and far cheaper than gmtime_r/timegm, which the timestamp encoders on hot paths avoid.

// Days since 1970-01-01 of year `y`, month `m` (1-12), day `d` (1-31).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
// The date `days` days after 1970-01-01 (negative: before).
void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d);

}  // namespace svcplane
