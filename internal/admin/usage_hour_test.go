package admin

import (
	"testing"
	"time"
)

// The open hour is the current one once the meter has flushed the hour
// before for the last time; until then it is the hour just ended.
func TestOpenHour(t *testing.T) {
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	for _, tc := range []struct{ now, hour, closes string }{
		{"2026-11-27T14:20:00Z", "2026-11-27T14:00:00Z", "2026-11-27T15:00:10Z"},
		{"2026-11-27T15:00:05Z", "2026-11-27T14:00:00Z", "2026-11-27T15:00:10Z"}, // the last flush of 14:00-15:00 may be to come
		{"2026-11-27T15:00:10Z", "2026-11-27T15:00:00Z", "2026-11-27T16:00:10Z"},
	} {
		hour, closes := openHour(at(tc.now), 10*time.Second)
		if !hour.Equal(at(tc.hour)) || !closes.Equal(at(tc.closes)) {
			t.Errorf("at %s: open hour %s closing %s, want %s closing %s", tc.now, hour, closes, tc.hour, tc.closes)
		}
	}
	if _, closes := openHour(at("2026-11-27T14:20:00Z"), 0); !closes.Equal(at("2026-11-27T15:00:10Z")) {
		t.Errorf("with no interval set: closes %s, want the default 10 s after the hour", closes)
	}
}
