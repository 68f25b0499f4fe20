// Package docs_test checks the wording of the guides users and operators
// read (docs/, deploy/, the READMEs): they explain the product and
// decide, and never point at how its work was tracked or organised (an
// issue number, a ticket, the sessions that built it), which a reader
// cannot look up and does not need.
package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository, from this package's directory.
const root = "../.."

// guides are the files and trees checked.
var guides = []string{"README.md", "docs", "deploy", "bench/README.md", "test/e2e/README.md", "test/security/README.md"}

// banned are the phrasings of work tracking. Words with an ordinary
// meaning here (a console or database session, a CA that issues a
// certificate, TLS session tickets) are not matched.
var banned = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bissues?\s*#?\d+`), // "issue 16", "issue #3"
	regexp.MustCompile(`(?i)\b(the|this|that|an?|later|earlier|next|previous|feature|[a-z]+-[a-z]+)\s+issues?\b('s)?`), // "the issue asks", "a later issue", "the data-protection issue"
	regexp.MustCompile(`(?i)\bissues?\s+(asks?|wants?|says|requires?|calls for)\b`),
	regexp.MustCompile(`(?i)\btickets?\b`),
	regexp.MustCompile(`(?i)\b(\w+ other|coding|agent|helper|work)\s+sessions?\b`), // "four other sessions", "a coding session"
	regexp.MustCompile(`(?i)\bother sessions'`),
	regexp.MustCompile(`(?i)\b(the|this|my|your) brief\b`),
}

// allowed strips what may contain the words in their ordinary sense:
// links (an upstream project's issue tracker) and TLS session tickets.
var allowed = regexp.MustCompile(`(?i)https?://\S+|\S+/issues/\d+|tls-tickets|session tickets?|sessions of the user`)

func TestGuidesDoNotReferToWorkTracking(t *testing.T) {
	var files []string
	for _, g := range guides {
		err := filepath.WalkDir(filepath.Join(root, g), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && !strings.HasSuffix(path, ".json") { // dashboards: generated
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 5 {
		t.Fatalf("found %d guides under %s; is the repository laid out as expected?", len(files), root)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			text := allowed.ReplaceAllString(line, "")
			for _, re := range banned {
				if m := re.FindString(text); m != "" {
					rel, _ := filepath.Rel(root, f)
					t.Errorf("%s:%d: %q refers to how the work was organised; write it as guidance: %s", rel, i+1, m, strings.TrimSpace(line))
				}
			}
		}
	}
}

// The check itself catches what it is for and lets ordinary words pass.
func TestWordingRules(t *testing.T) {
	bad := []string{"The issue asks to weigh two designs.", "as issue 16's tests show", "see ticket OPS-12",
		"2 cores shared with seven other sessions (load 11)", "other sessions' compilers", "the data-protection issue",
		"Issue #4 adds it", "a later issue adds them"}
	good := []string{"a console session ends after 30 m", "other sessions of the user are deleted", "no-tls-tickets",
		"the CA issues a certificate", "see github.com/s3tools/s3cmd/issues/613", "no session waits on a lock",
		"the session's server (pytest)", "Issue a new key pair"}
	hit := func(line string) bool {
		text := allowed.ReplaceAllString(line, "")
		for _, re := range banned {
			if re.MatchString(text) {
				return true
			}
		}
		return false
	}
	for _, l := range bad {
		if !hit(l) {
			t.Errorf("not caught: %q", l)
		}
	}
	for _, l := range good {
		if hit(l) {
			t.Errorf("caught, but ordinary: %q", l)
		}
	}
}
