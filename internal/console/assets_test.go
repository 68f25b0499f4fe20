package console

import (
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// importRE finds the module specifiers of static imports and re-exports
// ("import x from './a.js'", "export { y } from '../b.js'").
var importRE = regexp.MustCompile(`(?m)^\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'`)

// With no build step nothing resolves the modules' imports before a
// browser does: a renamed file or a mistyped path would only show as a
// blank page. Every relative import of every embedded module must name an
// embedded file, and no module may import from outside the console.
func TestAssetsImportsResolve(t *testing.T) {
	web := Static()
	modules := 0
	err := fs.WalkDir(web, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".js") {
			return err
		}
		modules++
		src, err := fs.ReadFile(web, p)
		if err != nil {
			return err
		}
		for _, m := range importRE.FindAllStringSubmatch(string(src), -1) {
			spec := m[1]
			if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") {
				t.Errorf("%s imports %q: only relative imports of the console's own files are served", p, spec)
				continue
			}
			target := path.Join(path.Dir(p), spec)
			if _, err := fs.Stat(web, target); err != nil {
				t.Errorf("%s imports %q, which is not embedded (%s)", p, spec, target)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if modules < 10 {
		t.Fatalf("only %d modules embedded; is web/ missing?", modules)
	}
	index, err := fs.ReadFile(web, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range regexp.MustCompile(`(?:src|href)="/console/([^"]+)"`).FindAllStringSubmatch(string(index), -1) {
		if _, err := fs.Stat(web, ref[1]); err != nil {
			t.Errorf("index.html refers to /console/%s, which is not embedded", ref[1])
		}
	}
}

// The console's page runs under a CSP without 'unsafe-inline': an inline
// script or style attribute in the shell would be refused by the browser.
func TestAssetsNoInlineScript(t *testing.T) {
	index, err := fs.ReadFile(Static(), "index.html")
	if err != nil {
		t.Fatal(err)
	}
	s := string(index)
	if regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`).MatchString(s) || regexp.MustCompile(`\son[a-z]+="`).MatchString(s) || strings.Contains(s, ` style="`) {
		t.Fatal("index.html has inline script or style, which the console's CSP refuses")
	}
	err = fs.WalkDir(Static(), "js", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, _ := fs.ReadFile(Static(), p)
		if strings.Contains(string(src), "style:") || strings.Contains(string(src), ".style.") {
			t.Errorf("%s sets an inline style, which the console's CSP refuses: use a class", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The pure parts of the front end (part sizes, byte formats, the router,
// usage sums) have unit tests in testdata/web_test.mjs, run with Node's
// own test runner when node is installed; nothing else is needed.
func TestAssetsJSUnits(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; the browser tests cover the pages")
	}
	test, err := filepath.Abs(filepath.Join("testdata", "web_test.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--test", test)
	cmd.Env = append(os.Environ(), "OSTIUM_CONSOLE_WEB="+mustAbs(t, "web"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
