package buildinfo

import (
	"runtime/debug"
	"testing"
)

func stamp(version string, settings ...string) *debug.BuildInfo {
	bi := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "github.com/ostiumio/ostium", Version: version}}
	for i := 0; i+1 < len(settings); i += 2 {
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
	}
	return bi
}

func TestReadMergesLinkerAndToolchain(t *testing.T) {
	vcs := stamp("v0.0.0-20200102030405-0123456789ab+dirty",
		"vcs.revision", "0123456789abcdef", "vcs.time", "2020-01-02T04:04:05+01:00", "vcs.modified", "true")
	for _, c := range []struct {
		name                  string
		ver, rev, when, dirty string
		bi                    *debug.BuildInfo
		version, commit, date string
		modified              bool
		source                string
	}{
		{name: "toolchain only", bi: vcs,
			version: "v0.0.0-20200102030405-0123456789ab+dirty", commit: "0123456789abcdef", date: "2020-01-02T03:04:05Z", modified: true, source: "buildinfo"},
		{name: "linker wins field by field", ver: "1.2.0", rev: "fedcba", when: "2026-11-27T05:00:00Z", dirty: "false", bi: vcs,
			version: "1.2.0", commit: "fedcba", date: "2026-11-27T05:00:00Z", source: "ldflags"},
		{name: "linker version alone", ver: "1.2.0", bi: vcs,
			version: "1.2.0", commit: "0123456789abcdef", date: "2020-01-02T03:04:05Z", modified: true, source: "ldflags"},
		{name: "(devel) is no version", bi: stamp("(devel)"),
			version: "devel", commit: Unknown, date: Unknown, source: "none"},
		{name: "no build information", bi: nil,
			version: "devel", commit: Unknown, date: Unknown, source: "none"},
	} {
		in := read(c.ver, c.rev, c.when, c.dirty, c.bi)
		if in.Version != c.version || in.Commit != c.commit || in.Date != c.date || in.Modified != c.modified || in.Source != c.source {
			t.Errorf("%s: %+v", c.name, in)
		}
	}
}

func TestString(t *testing.T) {
	in := Info{Version: "1.2.0", Commit: "0123456789abcdef0123", Date: "2026-11-27T05:00:00Z", Modified: true, Go: "go1.99", Platform: "linux/arm64"}
	if got, want := in.String(), "1.2.0 (commit 0123456789ab+dirty, 2026-11-27T05:00:00Z, go1.99, linux/arm64)"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
