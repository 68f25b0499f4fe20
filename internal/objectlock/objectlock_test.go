package objectlock

import (
	"errors"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Config
		ok   bool
	}{
		{"enabled without default", Config{Enabled: true}, true},
		{"governance days", Config{Enabled: true, DefaultMode: Governance, Days: 1}, true},
		{"compliance years", Config{Enabled: true, DefaultMode: Compliance, Years: 100}, true},
		{"not enabled", Config{}, false},
		{"days and years (AWS: one of them)", Config{Enabled: true, DefaultMode: Governance, Days: 1, Years: 1}, false},
		{"neither days nor years", Config{Enabled: true, DefaultMode: Governance}, false},
		{"zero is not positive", Config{Enabled: true, DefaultMode: Governance, Days: 0, Years: 0}, false},
		{"negative days", Config{Enabled: true, DefaultMode: Governance, Days: -1}, false},
		{"negative years", Config{Enabled: true, DefaultMode: Compliance, Years: -3}, false},
		{"too many days", Config{Enabled: true, DefaultMode: Governance, Days: MaxDays + 1}, false},
		{"too many years", Config{Enabled: true, DefaultMode: Governance, Years: MaxYears + 1}, false},
		{"unknown mode", Config{Enabled: true, DefaultMode: "governance", Days: 1}, false},
		{"period without mode", Config{Enabled: true, Days: 1}, false},
	} {
		err := tc.c.Validate()
		if (err == nil) != tc.ok {
			t.Errorf("%s: Validate = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v is not ErrInvalid", tc.name, err)
		}
	}
}

func TestDefaultUntil(t *testing.T) {
	if got := (Config{Enabled: true}).DefaultUntil(now); !got.IsZero() {
		t.Errorf("no default: %v", got)
	}
	if got := (Config{Enabled: true, DefaultMode: Governance, Days: 2}).DefaultUntil(now); !got.Equal(now.Add(48 * time.Hour)) {
		t.Errorf("2 days: %v", got)
	}
	if got := (Config{Enabled: true, DefaultMode: Compliance, Years: 1}).DefaultUntil(now); !got.Equal(time.Date(2027, 11, 23, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("1 year: %v", got)
	}
}

func TestEncodeDecode(t *testing.T) {
	c := Config{Enabled: true, DefaultMode: Compliance, Years: 3}
	got, err := Decode(c.Encode())
	if err != nil || got != c {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	if got, err := Decode(""); err != nil || got.Enabled {
		t.Fatalf("empty: %+v, %v", got, err)
	}
	if _, err := Decode("{"); err == nil {
		t.Fatal("garbage decoded")
	}
}

func TestMayRemove(t *testing.T) {
	future, past := now.Add(time.Hour), now.Add(-time.Hour)
	for _, tc := range []struct {
		name   string
		l      Lock
		bypass bool
		ok     bool
	}{
		{"nothing", Lock{}, false, true},
		{"compliance in force", Lock{Mode: Compliance, RetainUntil: future}, false, false},
		{"compliance in force, bypass", Lock{Mode: Compliance, RetainUntil: future}, true, false},
		{"compliance expired", Lock{Mode: Compliance, RetainUntil: past}, false, true},
		{"compliance ends now", Lock{Mode: Compliance, RetainUntil: now}, false, true},
		{"governance in force", Lock{Mode: Governance, RetainUntil: future}, false, false},
		{"governance in force, bypass", Lock{Mode: Governance, RetainUntil: future}, true, true},
		{"governance expired", Lock{Mode: Governance, RetainUntil: past}, false, true},
		{"legal hold", Lock{LegalHold: true}, false, false},
		{"legal hold, bypass", Lock{LegalHold: true}, true, false},
		{"legal hold over expired retention", Lock{Mode: Governance, RetainUntil: past, LegalHold: true}, true, false},
	} {
		err := MayRemove(tc.l, tc.bypass, now)
		if (err == nil) != tc.ok {
			t.Errorf("%s: MayRemove = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrLocked) {
			t.Errorf("%s: %v is not ErrLocked", tc.name, err)
		}
		if got := tc.l.Protected(now); got == tc.ok && !tc.bypass {
			t.Errorf("%s: Protected = %v", tc.name, got)
		}
	}
}

func TestMayChange(t *testing.T) {
	soon, later, past := now.Add(time.Hour), now.Add(48*time.Hour), now.Add(-time.Hour)
	gov := Lock{Mode: Governance, RetainUntil: later}
	comp := Lock{Mode: Compliance, RetainUntil: later}
	for _, tc := range []struct {
		name   string
		cur    Lock
		next   Retention
		bypass bool
		ok     bool
	}{
		{"set on none", Lock{}, Retention{Compliance, soon}, false, true},
		{"replace expired compliance", Lock{Mode: Compliance, RetainUntil: past}, Retention{Governance, soon}, false, true},
		{"extend governance", gov, Retention{Governance, later.Add(time.Hour)}, false, true},
		{"same governance", gov, Retention{Governance, later}, false, true},
		// As AWS (403 AccessDenied): raising the mode alters governance
		// settings, which needs the bypass.
		{"governance to compliance", gov, Retention{Compliance, later}, false, false},
		{"governance to compliance, bypass", gov, Retention{Compliance, later}, true, true},
		{"governance to later compliance", gov, Retention{Compliance, later.Add(time.Hour)}, false, false},
		{"shorten governance", gov, Retention{Governance, soon}, false, false},
		{"shorten governance, bypass", gov, Retention{Governance, soon}, true, true},
		{"remove governance", gov, Retention{}, false, false},
		{"remove governance, bypass", gov, Retention{}, true, true},
		{"governance to shorter compliance", gov, Retention{Compliance, soon}, false, false},
		{"extend compliance", comp, Retention{Compliance, later.Add(time.Hour)}, false, true},
		{"shorten compliance", comp, Retention{Compliance, soon}, false, false},
		{"shorten compliance, bypass", comp, Retention{Compliance, soon}, true, false},
		{"compliance to governance", comp, Retention{Governance, later.Add(time.Hour)}, false, false},
		{"compliance to governance, bypass", comp, Retention{Governance, later.Add(time.Hour)}, true, false},
		{"remove compliance, bypass", comp, Retention{}, true, false},
	} {
		err := MayChange(tc.cur, tc.next, tc.bypass, now)
		if (err == nil) != tc.ok {
			t.Errorf("%s: MayChange = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func TestValidRetention(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Retention
		ok   bool
	}{
		{"none", Retention{}, true},
		{"governance future", Retention{Governance, now.Add(time.Second)}, true},
		{"date in the past (AWS: must be in the future)", Retention{Compliance, now.Add(-time.Second)}, false},
		{"date now", Retention{Compliance, now}, false},
		{"mode without date", Retention{Mode: Governance}, false},
		{"date without mode", Retention{Until: now.Add(time.Hour)}, false},
		{"lower-case mode", Retention{"compliance", now.Add(time.Hour)}, false},
	} {
		if err := ValidRetention(tc.r, now); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func TestParse(t *testing.T) {
	for _, s := range []string{"2030-01-02T03:04:05Z", "2030-01-02T03:04:05.000Z", "2030-01-02T04:04:05+01:00"} {
		d, err := ParseDate(s)
		if err != nil || !d.Equal(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)) {
			t.Errorf("ParseDate(%q) = %v, %v", s, d, err)
		}
	}
	for _, s := range []string{"", "2030-01-02", "tomorrow", "Wed, 02 Jan 2030 03:04:05 GMT"} {
		if _, err := ParseDate(s); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseDate(%q) = %v", s, err)
		}
	}
	if FormatDate(time.Date(2030, 1, 2, 3, 4, 5, 6e6, time.UTC)) != "2030-01-02T03:04:05.006Z" {
		t.Error("FormatDate")
	}
	if on, err := ParseLegalHold("ON"); !on || err != nil {
		t.Error("ON")
	}
	if on, err := ParseLegalHold("OFF"); on || err != nil {
		t.Error("OFF")
	}
	if _, err := ParseLegalHold("on"); err == nil {
		t.Error("lower-case on accepted; the values are ON and OFF")
	}
	if m, ok := ParseMode("GOVERNANCE"); !ok || m != Governance {
		t.Error("ParseMode")
	}
}
