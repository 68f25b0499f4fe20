// Package buildinfo says which build of ostium is running: its version,
// the commit it was built from, when, and whether the tree had changes.
//
// A release build sets the version, commit and date with the linker
// (deploy/package/build.sh):
//
//	go build -ldflags "-X github.com/ostiumio/ostium/internal/buildinfo.version=1.2.0 \
//	  -X github.com/ostiumio/ostium/internal/buildinfo.commit=... \
//	  -X github.com/ostiumio/ostium/internal/buildinfo.date=2026-11-27T05:52:59Z"
//
// Any other build falls back on what the Go toolchain stamped into the
// binary (debug.ReadBuildInfo): the module's version and, in a build
// from a git checkout, vcs.revision, vcs.time and vcs.modified. So a
// plain `go build ./cmd/ostium` in a checkout still says which commit it
// is, and a build that knows nothing says so rather than claim a version.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Set by the linker (-ldflags -X); empty in other builds.
var (
	version string
	commit  string
	date    string
	// modified is "true" when the release build's tree had uncommitted
	// changes; build.sh refuses to make a release from one unless told.
	modified string
)

// Unknown stands for what a build did not record.
const Unknown = "unknown"

// Info is what a binary knows of its build.
type Info struct {
	// Version: the release version given to the linker, else the
	// module's version as Go stamped it (a pseudo-version such as
	// v0.0.0-20261127055259-bf68efe1a2b3+dirty in a build from a git
	// checkout), else "devel".
	Version string `json:"version"`
	// Commit is the full commit hash, Unknown when not recorded.
	Commit string `json:"commit"`
	// Date is the date the release build was given (build.sh gives the
	// commit's time, so that a rebuild is the same binary), else the
	// commit's time as Go stamped it; RFC 3339, UTC; Unknown when not
	// recorded.
	Date string `json:"date"`
	// Modified: the tree built had uncommitted changes.
	Modified bool `json:"modified"`
	// Source says where the fields came from: "ldflags", "buildinfo"
	// (the Go toolchain's stamp) or "none".
	Source   string `json:"source"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// Read is the running binary's build information.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return read(version, commit, date, modified, bi)
}

// read merges what the linker was given with what the toolchain stamped
// (bi may be nil): a value given to the linker wins, field by field.
func read(ver, rev, when, dirty string, bi *debug.BuildInfo) Info {
	in := Info{Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Source: "none"}
	stamped := map[string]string{}
	modVersion := ""
	if bi != nil {
		for _, s := range bi.Settings {
			stamped[s.Key] = s.Value
		}
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			modVersion = v
		}
		if bi.GoVersion != "" {
			in.Go = bi.GoVersion
		}
	}
	if ver != "" {
		in.Source = "ldflags"
	} else if modVersion != "" || stamped["vcs.revision"] != "" {
		in.Source = "buildinfo"
	}
	in.Version = first(ver, modVersion, "devel")
	in.Commit = first(rev, stamped["vcs.revision"], Unknown)
	in.Date = first(normalTime(when), normalTime(stamped["vcs.time"]), Unknown)
	in.Modified = first(dirty, stamped["vcs.modified"]) == "true"
	return in
}

// normalTime is t in RFC 3339 UTC to the second ("" if empty; as given
// if it is not a time, so that nothing the build said is lost).
func normalTime(t string) string {
	if t == "" {
		return ""
	}
	if p, err := time.Parse(time.RFC3339, t); err == nil {
		return p.UTC().Format(time.RFC3339)
	}
	return t
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// ShortCommit is the commit's first 12 hex digits.
func (in Info) ShortCommit() string {
	if len(in.Commit) > 12 && in.Commit != Unknown {
		return in.Commit[:12]
	}
	return in.Commit
}

// String is the one-line form: the version, then the commit (with
// "+dirty" when the tree had changes), date, Go version and platform in
// brackets, as `ostium version` prints it.
func (in Info) String() string {
	var b strings.Builder
	b.WriteString(in.Version)
	fmt.Fprintf(&b, " (commit %s", in.ShortCommit())
	if in.Modified {
		b.WriteString("+dirty")
	}
	fmt.Fprintf(&b, ", %s, %s, %s)", in.Date, in.Go, in.Platform)
	return b.String()
}
