package admin

import (
	"fmt"
	"net/http"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/ostiumio/ostium/internal/iam"
)

// Runtime profiles of the node for `ostium support bundle`, to the
// provider's root only: a goroutine dump names every bucket and key in
// flight. They are written with runtime/pprof here rather than by
// mounting net/http/pprof, whose import registers the same handlers,
// unauthenticated, on http.DefaultServeMux.
const (
	debugPrefix = Prefix + "/debug/pprof/"
	// maxCPUSeconds bounds a CPU profile: it holds a connection and a
	// little of every core for that long.
	maxCPUSeconds = 60
)

func (h *Handler) debugProfile(w http.ResponseWriter, r *http.Request) {
	closeUnread(w, r) // a profile request carries no body
	id, err := h.authenticate(r)
	if err != nil {
		writeErr(w, err)
		return
	}
	if !isRoot(id) {
		writeErr(w, errDenied)
		return
	}
	name := r.PathValue("profile")
	debug, _ := strconv.Atoi(r.URL.Query().Get("debug"))
	if name == "profile" {
		secs, err := 5, error(nil)
		if v := r.URL.Query().Get("seconds"); v != "" {
			secs, err = strconv.Atoi(v)
		}
		if err != nil || secs < 1 || secs > maxCPUSeconds {
			writeErr(w, newErr(http.StatusBadRequest, "InvalidArgument", "seconds must be 1 to %d", maxCPUSeconds))
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		if err := pprof.StartCPUProfile(w); err != nil {
			// One CPU profile at a time in a process.
			writeErr(w, newErr(http.StatusConflict, "ProfileInProgress", "A CPU profile is being taken: %v", err))
			return
		}
		select {
		case <-time.After(time.Duration(secs) * time.Second):
		case <-r.Context().Done():
		}
		pprof.StopCPUProfile()
		return
	}
	p := pprof.Lookup(name)
	if p == nil {
		writeErr(w, newErr(http.StatusNotFound, "NoSuchProfile", "No profile %q (goroutine, heap, allocs, block, mutex, threadcreate, profile)", name))
		return
	}
	if debug > 0 {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	} else {
		w.Header().Set("Content-Type", "application/octet-stream")
	}
	if err := p.WriteTo(w, debug); err != nil {
		// Headers are gone; what was written is all the client gets.
		fmt.Fprintf(w, "\nprofile %s: %v\n", name, err)
	}
}

func isRoot(id *iam.Identity) bool { return id != nil && id.Root }
