package receipt

import (
	"testing"
	"time"
)

func TestFinishedUTC(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		t      time.Time
		want   string
	}{
		{name: "receipt value", t: time.Date(2026, 9, 30, 15, 16, 30, 783430000, time.UTC), want: "2026-09-30T15:16:30.783430+00:00"},
		{name: "whole second", reason: "Python isoformat drops a zero fraction", t: time.Date(2026, 9, 30, 15, 16, 30, 0, time.UTC), want: "2026-09-30T15:16:30+00:00"},
		{name: "nanoseconds truncated", t: time.Date(2026, 1, 2, 3, 4, 5, 999, time.UTC), want: "2026-01-02T03:04:05+00:00"},
		{name: "leading zero microseconds", t: time.Date(2026, 1, 2, 3, 4, 5, 1000, time.UTC), want: "2026-01-02T03:04:05.000001+00:00"},
		{name: "other zone", reason: "converted to UTC first", t: time.Date(2026, 9, 30, 8, 16, 30, 783430000, time.FixedZone("MST", -7*3600)), want: "2026-09-30T15:16:30.783430+00:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FinishedUTC(tt.t); got != tt.want {
				t.Errorf("FinishedUTC = %q, want %q", got, tt.want)
			}
		})
	}
}
