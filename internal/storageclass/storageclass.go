// Package storageclass maps S3's storage classes to a node's platforms.
// STANDARD is where a bucket places its blobs (its own platform, its
// tenant's, the node's default); any other class the provider maps (and
// a tenant's own map overrides the provider's, class by class) sends
// the blobs of objects of that class to its platform. A class that is
// not mapped is stored as STANDARD is and reported as asked, as before
// classes had platforms. Archive classes (GLACIER, DEEP_ARCHIVE), whose
// objects AWS will not read until restored, are refused: nothing here
// restores.
package storageclass

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Classes.
const (
	Standard           = "STANDARD"
	ReducedRedundancy  = "REDUCED_REDUNDANCY"
	StandardIA         = "STANDARD_IA"
	OneZoneIA          = "ONEZONE_IA"
	IntelligentTiering = "INTELLIGENT_TIERING"
	GlacierIR          = "GLACIER_IR"
	Glacier            = "GLACIER"
	DeepArchive        = "DEEP_ARCHIVE"
)

// Mappable are the classes a provider may give a platform of their own.
var Mappable = []string{ReducedRedundancy, StandardIA, OneZoneIA, IntelligentTiering, GlacierIR}

// IsMappable tells whether class may have a platform of its own.
func IsMappable(class string) bool {
	for _, c := range Mappable {
		if c == class {
			return true
		}
	}
	return false
}

// IsArchive tells whether class is one whose objects AWS reads only
// after a restore.
func IsArchive(class string) bool { return class == Glacier || class == DeepArchive }

// TransitionTarget tells whether a lifecycle rule may name class as
// AWS's schema allows (Transition's StorageClass enumeration).
func TransitionTarget(class string) bool {
	switch class {
	case StandardIA, OneZoneIA, IntelligentTiering, GlacierIR, Glacier, DeepArchive:
		return true
	}
	return false
}

// MinTransitionDays is the least number of days AWS lets a transition
// (or a noncurrent one) to class wait: objects must spend 30 days in
// STANDARD before they move to an infrequent-access class.
func MinTransitionDays(class string) int {
	if class == StandardIA || class == OneZoneIA {
		return 30
	}
	return 0
}

// Map maps classes to platform names.
type Map map[string]string

// Parse reads a map as Encode wrote it; "" is an empty map.
func Parse(s string) (Map, error) {
	if s == "" {
		return Map{}, nil
	}
	var m Map
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("storageclass: decode: %w", err)
	}
	return m, nil
}

// Encode is the map as the catalog keeps it ("" for an empty map).
func (m Map) Encode() string {
	if len(m) == 0 {
		return ""
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// Validate checks each class is one that may be mapped and each platform
// one that has (has nil: any name).
func (m Map) Validate(has func(string) bool) error {
	for _, c := range m.Classes() {
		p := m[c]
		switch {
		case c == Standard:
			return fmt.Errorf("storage_classes.%s: STANDARD is where each bucket places its blobs (bucket or tenant platform), not a class to map", c)
		case IsArchive(c):
			return fmt.Errorf("storage_classes.%s: archive classes cannot be mapped: their objects are read only after a restore, which is not offered", c)
		case !IsMappable(c):
			return fmt.Errorf("storage_classes.%s: not a storage class (one of %s)", c, strings.Join(Mappable, ", "))
		case p == "":
			return fmt.Errorf("storage_classes.%s: names no platform", c)
		case has != nil && !has(p):
			return fmt.Errorf("storage_classes.%s: platform %q is not configured", c, p)
		}
	}
	return nil
}

// Classes lists the map's classes, sorted.
func (m Map) Classes() []string {
	out := make([]string, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// Resolve is the platform of class by the first of maps that maps it
// (a tenant's, then the provider's, then the node's), and whether one
// does. STANDARD and "" are never mapped.
func Resolve(class string, maps ...Map) (string, bool) {
	if class == "" || class == Standard {
		return "", false
	}
	for _, m := range maps {
		if p, ok := m[class]; ok && p != "" {
			return p, true
		}
	}
	return "", false
}
