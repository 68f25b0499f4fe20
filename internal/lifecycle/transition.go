package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/storageclass"
)

// Transitions move objects to another storage class, which here is
// another platform: the worker copies a due version's blobs there and
// switches its catalog row (Mover), as AWS's lifecycle moves objects
// between its classes.

// Transition moves current versions to StorageClass after Days or on
// Date.
type Transition struct {
	Days         *int   `xml:"Days,omitempty" json:"days,omitempty"`
	Date         *Date  `xml:"Date,omitempty" json:"date,omitempty"`
	StorageClass string `xml:"StorageClass" json:"class"`
}

// NoncurrentVersionTransition moves noncurrent versions to StorageClass
// NoncurrentDays after they became noncurrent, but for the
// NewerNoncurrentVersions newest of them.
type NoncurrentVersionTransition struct {
	NoncurrentDays          *int   `xml:"NoncurrentDays,omitempty" json:"days,omitempty"`
	NewerNoncurrentVersions *int   `xml:"NewerNoncurrentVersions,omitempty" json:"keep,omitempty"`
	StorageClass            string `xml:"StorageClass" json:"class"`
}

// TransitionMinSize is the size under which AWS transitions no object
// unless the rule's filter says otherwise by size
// (x-amz-transition-default-minimum-object-size: all_storage_classes_128K).
const TransitionMinSize = 128 << 10

// invalidClass is AWS's refusal of a class it will not store here.
func invalidClass(msg string) error { return &Error{"InvalidStorageClass", msg} }

// validTransitions checks a rule's transitions as AWS does.
func (r *Rule) validTransitions() error {
	seen := map[string]bool{}
	var days, dates bool
	minDays := -1
	for _, t := range r.Transitions {
		switch {
		case !storageclass.TransitionTarget(t.StorageClass):
			// Not among the schema's values (STANDARD is not a target).
			return malformed("The XML you provided was not well-formed or did not validate against our published schema")
		case (t.Days == nil) == (t.Date == nil):
			return malformed("The XML you provided was not well-formed or did not validate against our published schema")
		case t.Days != nil && *t.Days < 0:
			return invalidArg("'Days' in Transition action must be nonnegative")
		case t.Days != nil && *t.Days < storageclass.MinTransitionDays(t.StorageClass):
			return invalidArg(fmt.Sprintf("'Days' in Transition action must be greater than or equal to %d for storageClass '%s'",
				storageclass.MinTransitionDays(t.StorageClass), t.StorageClass))
		case t.Date != nil && !t.Date.Equal(t.Date.Truncate(24*time.Hour)):
			return invalidArg("'Date' must be at midnight GMT")
		case seen[t.StorageClass]:
			return invalidReq("'StorageClass' must be different for 'Transition' actions in same 'Rule'")
		}
		seen[t.StorageClass] = true
		days, dates = days || t.Days != nil, dates || t.Date != nil
		if t.Days != nil && (minDays < 0 || *t.Days < minDays) {
			minDays = *t.Days
		}
	}
	if days && dates {
		return invalidReq("Found mixed 'Date' and 'Days' based Transition actions in lifecycle rule")
	}
	if e := r.Expiration; e != nil && e.Days != nil && minDays >= 0 && *e.Days <= minDays {
		return invalidReq("'Days' in the Expiration action must be greater than 'Days' in the Transition action")
	}
	seen = map[string]bool{}
	for _, t := range r.NoncurrentTransitions {
		switch {
		case !storageclass.TransitionTarget(t.StorageClass):
			return malformed("The XML you provided was not well-formed or did not validate against our published schema")
		case t.NoncurrentDays == nil:
			return malformed("The XML you provided was not well-formed or did not validate against our published schema")
		case *t.NoncurrentDays < 0:
			return invalidArg("'NoncurrentDays' in NoncurrentVersionTransition action must be nonnegative")
		case *t.NoncurrentDays < storageclass.MinTransitionDays(t.StorageClass):
			return invalidArg(fmt.Sprintf("'NoncurrentDays' in NoncurrentVersionTransition action must be greater than or equal to %d for storageClass '%s'",
				storageclass.MinTransitionDays(t.StorageClass), t.StorageClass))
		case t.NewerNoncurrentVersions != nil && (*t.NewerNoncurrentVersions <= 0 || *t.NewerNoncurrentVersions > MaxNewerKept):
			return invalidArg("'NewerNoncurrentVersions' for NoncurrentVersionTransition action must be a positive integer up to 100")
		case seen[t.StorageClass]:
			return invalidReq("'StorageClass' must be different for 'NoncurrentVersionTransition' actions in same 'Rule'")
		}
		seen[t.StorageClass] = true
	}
	// Nothing restores an archived object here: AWS would keep it
	// unreadable until a restore, so these are refused rather than
	// stored as something they are not.
	for _, c := range r.TransitionClasses() {
		if storageclass.IsArchive(c) {
			return invalidClass("The storage class you specified is not valid: " + c + " needs a restore before objects can be read, which this endpoint does not offer")
		}
	}
	return nil
}

// TransitionClasses lists the classes a rule's transitions name.
func (r *Rule) TransitionClasses() []string {
	var out []string
	for _, t := range r.Transitions {
		out = append(out, t.StorageClass)
	}
	for _, t := range r.NoncurrentTransitions {
		out = append(out, t.StorageClass)
	}
	return out
}

// TransitionClasses lists the classes the configuration's transitions
// name, each once.
func (c *Configuration) TransitionClasses() []string {
	seen := map[string]bool{}
	var out []string
	for i := range c.Rules {
		for _, cl := range c.Rules[i].TransitionClasses() {
			if !seen[cl] {
				seen[cl] = true
				out = append(out, cl)
			}
		}
	}
	return out
}

// rank orders classes from hot to cold: AWS moves objects only down
// this waterfall, never back up.
func rank(class string) int {
	switch class {
	case "", storageclass.Standard, storageclass.ReducedRedundancy:
		return 0
	case storageclass.StandardIA, storageclass.IntelligentTiering:
		return 1
	case storageclass.OneZoneIA:
		return 2
	case storageclass.GlacierIR:
		return 3
	}
	return 4
}

// sizeFiltered tells whether the rule's filter says by size which
// objects it takes (then AWS's 128 KiB default minimum does not apply).
func (r *Rule) sizeFiltered() bool {
	f := r.Filter
	return f != nil && (f.ObjectSizeGreaterThan != nil || f.ObjectSizeLessThan != nil ||
		f.And != nil && (f.And.ObjectSizeGreaterThan != nil || f.And.ObjectSizeLessThan != nil))
}

// transition says which class, if any, version v is due to move to at
// now: of the transitions due, the coldest, and only down the
// waterfall from the class it is in.
func (c *Configuration) transition(v Version, now time.Time, day time.Duration) Due {
	if v.DeleteMarker {
		return Due{}
	}
	best := Due{}
	bestRank := rank(v.StorageClass)
	consider := func(class, id string) {
		if r := rank(class); r > bestRank {
			best, bestRank = Due{Action: Move, RuleID: id, Class: class}, r
		}
	}
	for i := range c.Rules {
		r := &c.Rules[i]
		if !r.matches(v.Key, v.Size, v.Tags, false) || v.Size < TransitionMinSize && !r.sizeFiltered() {
			continue
		}
		if v.IsLatest {
			for _, t := range r.Transitions {
				switch {
				case t.Days != nil && !now.Before(DueAt(v.LastModified, *t.Days, day)),
					t.Date != nil && !now.Before(t.Date.Time):
					consider(t.StorageClass, r.ID)
				}
			}
			continue
		}
		for _, t := range r.NoncurrentTransitions {
			if t.NewerNoncurrentVersions != nil && v.NewerNoncurrent < *t.NewerNoncurrentVersions {
				continue
			}
			if !now.Before(DueAt(v.NoncurrentSince, *t.NoncurrentDays, day)) {
				consider(t.StorageClass, r.ID)
			}
		}
	}
	return best
}

// ErrNoPlatform is a transition to a class that has no platform (any
// more) for the bucket: the worker leaves the version where it is.
var ErrNoPlatform = errors.New("lifecycle: the storage class has no platform")

// Mover moves what a transition made due (objects.Service.LifecycleMove):
// version o's blobs to class's platform, then its catalog row, only
// while o is as listed; it fails with ErrChanged once o changed or
// went, and with ErrNoPlatform when class has no platform. It returns
// the bytes copied.
type Mover interface {
	LifecycleMove(ctx context.Context, b catalog.Bucket, o catalog.Object, class string) (int64, error)
}

// move applies a due transition through the worker's Mover.
func (w *Worker) move(ctx context.Context, b catalog.Bucket, o *catalog.Object, due Due, st *Stats) error {
	if w.mv == nil {
		return nil
	}
	st.Due++
	defer func() { w.o.Metrics.SetBacklog(st.Due - st.Moved) }()
	if err := w.pace(ctx); err != nil {
		return err
	}
	n, err := w.mv.LifecycleMove(ctx, b, *o, due.Class)
	switch {
	case err == nil:
		st.Moved++
		st.MovedBytes += n
		w.o.Metrics.Count("transitioned", 1)
		w.o.Metrics.Moved(n)
	case errors.Is(err, ErrChanged):
		// Replaced or removed since the listing: judged again next pass.
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		st.Failed++
		w.o.Metrics.Count("failed", 1)
		slog.Warn("lifecycle transition failed", "bucket", b.Name, "key", o.Key, "version", o.VersionID, "class", due.Class, "rule", due.RuleID, "err", err)
	}
	return nil
}
