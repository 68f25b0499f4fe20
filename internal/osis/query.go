package osis

import (
	"net/url"
	"strconv"
	"strings"
)

// Paging: offset from 0, limit 1 to maxLimit (defaultLimit when absent).
const (
	defaultLimit = 100
	maxLimit     = 1000
)

type paging struct{ offset, limit int64 }

func parsePaging(q url.Values) (paging, error) {
	p := paging{limit: defaultLimit}
	if s := q.Get("offset"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return p, errBadRequest("offset must be a whole number from 0")
		}
		p.offset = n
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 || n > maxLimit {
			return p, errBadRequest("limit must be a whole number from 1 to %d", maxLimit)
		}
		p.limit = n
	}
	return p, nil
}

// page cuts one page out of all.
func page[T any](all []T, p paging) Page[T] {
	out := Page[T]{Items: []T{}, PageInfo: PageInfo{Total: int64(len(all)), Offset: p.offset, Limit: p.limit}}
	if p.offset < int64(len(all)) {
		end := min(int64(len(all)), p.offset+p.limit)
		out.Items = all[p.offset:end]
	}
	return out
}

// filter is a query's conditions: the spec's FIQL-like form,
// "key==value" terms joined by ";" (and), keys from a fixed set per call.
type filter map[string]string

const maxFilter = 2048

func parseFilter(s string, keys ...string) (filter, error) {
	f := filter{}
	if s == "" {
		return f, nil
	}
	if len(s) > maxFilter {
		return nil, errBadRequest("The filter is over %d bytes", maxFilter)
	}
	for _, term := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(term, "==")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, errBadRequest("A filter is key==value terms joined by ';', not %q", term)
		}
		known := false
		for _, kk := range keys {
			known = known || kk == k
		}
		if !known {
			return nil, errBadRequest("Unknown filter key %q; this query takes %s", k, strings.Join(keys, ", "))
		}
		if old, dup := f[k]; dup && old != v {
			return nil, errBadRequest("The filter names %s twice", k)
		}
		f[k] = v
	}
	return f, nil
}

// one is the value of the first of keys the filter has ("" = none).
func (f filter) one(keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := f[k]; ok {
			return v, true
		}
	}
	return "", false
}
