package objects

import (
	"errors"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func TestResolveRange(t *testing.T) {
	for _, tc := range []struct {
		r             *ByteRange
		size          int64
		start, length int64
		invalid       bool
	}{
		{nil, 10, 0, 10, false},
		{&ByteRange{First: 0, Last: 4}, 10, 0, 5, false},
		{&ByteRange{First: 5, Last: -1}, 10, 5, 5, false},
		{&ByteRange{First: 5, Last: 100}, 10, 5, 5, false},
		{&ByteRange{Suffix: 3}, 10, 7, 3, false},
		{&ByteRange{Suffix: 30}, 10, 0, 10, false},
		{&ByteRange{First: 10, Last: -1}, 10, 0, 0, true},
		{&ByteRange{First: 0, Last: -1}, 0, 0, 0, true}, // as S3: any range of an empty object is unsatisfiable
		{&ByteRange{Suffix: 1}, 0, 0, 0, true},
	} {
		s, l, err := resolveRange(tc.r, tc.size)
		if tc.invalid != errors.Is(err, ErrInvalidRange) || !tc.invalid && (s != tc.start || l != tc.length) {
			t.Errorf("resolveRange(%+v, %d) = %d, %d, %v", tc.r, tc.size, s, l, err)
		}
	}
}

func TestConditions(t *testing.T) {
	mod := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	obj := catalog.Object{ETag: `"abc"`, LastModified: mod.Add(300 * time.Millisecond)}
	before, after := mod.Add(-time.Hour), mod.Add(time.Hour)
	for _, tc := range []struct {
		c    Conditions
		read error // for GET/HEAD
		copy error // for copy sources
	}{
		{Conditions{}, nil, nil},
		{Conditions{IfMatch: `"abc"`}, nil, nil},
		{Conditions{IfMatch: `"x", "abc"`}, nil, nil},
		{Conditions{IfMatch: "*"}, nil, nil},
		{Conditions{IfMatch: `"x"`}, ErrPreconditionFailed, ErrPreconditionFailed},
		{Conditions{IfNoneMatch: `"abc"`}, ErrNotModified, ErrPreconditionFailed},
		{Conditions{IfNoneMatch: `"x"`}, nil, nil},
		{Conditions{IfModifiedSince: after}, ErrNotModified, ErrPreconditionFailed},
		{Conditions{IfModifiedSince: mod}, ErrNotModified, ErrPreconditionFailed}, // second resolution
		{Conditions{IfModifiedSince: before}, nil, nil},
		{Conditions{IfUnmodifiedSince: before}, ErrPreconditionFailed, ErrPreconditionFailed},
		{Conditions{IfUnmodifiedSince: after}, nil, nil},
		// RFC 7232 / S3: a true If-Match overrides If-Unmodified-Since, an
		// If-None-Match that is present overrides If-Modified-Since.
		{Conditions{IfMatch: `"abc"`, IfUnmodifiedSince: before}, nil, nil},
		{Conditions{IfNoneMatch: `"x"`, IfModifiedSince: after}, nil, nil},
	} {
		if err := tc.c.check(obj, true); err != tc.read {
			t.Errorf("read %+v: %v, want %v", tc.c, err, tc.read)
		}
		if err := tc.c.check(obj, false); err != tc.copy {
			t.Errorf("copy %+v: %v, want %v", tc.c, err, tc.copy)
		}
	}
}

func TestBucketNames(t *testing.T) {
	for _, ok := range []string{"abc", "my-bucket.2026", "a1b", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"} {
		if err := ValidBucketName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "ab", "Abc", "a_b", ".ab", "ab.", "a..b", "a.-b", "10.0.0.1", "xn--ab", "sthree-a", "ab-s3alias", "ab--ol-s3",
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"} {
		if !errors.Is(ValidBucketName(bad), ErrInvalidBucketName) {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestCompositeChecksum(t *testing.T) {
	// Two parts' CRC32s (of "a" and "b"), combined as S3 does.
	got, ok := compositeChecksum("CRC32", []string{"6b9S7A==", "cdNRew=="})
	if !ok || got[len(got)-2:] != "-2" {
		t.Fatalf("composite = %q %v", got, ok)
	}
	if _, ok := compositeChecksum("CRC32", []string{""}); ok {
		t.Fatal("a part without checksum must not yield a composite")
	}
}
