package console

import (
	"embed"
	"io/fs"
)

// Assets holds the console's pages, scripts and styles. They are plain
// files (ES modules, HTML, CSS) served as they are, so a fresh clone runs
// the console with no front-end tool installed and there is no built
// output that could drift from its sources.
//
//go:embed web
var Assets embed.FS

// Static is the console's files rooted at web/, as /console/ serves them.
func Static() fs.FS {
	sub, err := fs.Sub(Assets, "web")
	if err != nil {
		// fs.Sub fails only for an invalid path, and "web" is a constant.
		panic(err)
	}
	return sub
}

func init() { webRoot = Static() }
