package receipt

import (
	"fmt"
	"time"
)

// FinishedUTC formats t the way typevet writes pins.finished_utc, Python's
// datetime.now(UTC).isoformat(): UTC, microseconds, and the offset as
// "+00:00" ("2026-09-30T15:16:30.783430+00:00"). As in Python, the
// fraction is left out when the microseconds are zero
// ("2026-09-30T15:16:30+00:00"). Nanoseconds are truncated to microseconds.
func FinishedUTC(t time.Time) string {
	t = t.UTC()
	s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second())
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s + "+00:00"
}
