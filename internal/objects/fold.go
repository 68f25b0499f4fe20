package objects

import "strings"

// cursor is a position in a key-ordered listing: just after the item after
// when it is set, else at start (included if inclusive).
type cursor[T any] struct {
	after     *T
	start     string
	inclusive bool
}

type folded[T any] struct {
	items     []T
	prefixes  []string
	truncated bool
	// last is the key (or common prefix) of the last entry returned, and
	// lastItem the last item when that entry was an item.
	last     string
	lastItem *T
}

// pageSize is the most rows fold asks the catalog for at a time. After a
// jump past a common prefix it asks for one row and doubles from there: the
// rows after a prefix are often another prefix, and each row fetched past it
// is read for nothing (a top level of 100 folders over a million keys read
// 100,000 rows when every fetch was a full page).
const pageSize = 1000

// fold runs S3's listing algorithm over a key-ordered source: keys under
// prefix with a delimiter after it roll up into common prefixes, each counted
// once toward max, and the listing resumes past a whole common prefix rather
// than reading every key under it.
func fold[T any](prefix, delim string, max int, c cursor[T], key func(T) string,
	fetch func(c cursor[T], limit int) ([]T, error)) (folded[T], error) {
	var out folded[T]
	if max <= 0 {
		return out, nil
	}
	// A marker inside a common prefix resumes after that prefix, or the
	// prefix would be listed twice.
	marker := c.start
	if c.after != nil {
		marker = key(*c.after)
	}
	if cp := commonPrefix(marker, prefix, delim); cp != "" && (c.after != nil || !c.inclusive) {
		c = cursor[T]{start: cp + "\xff"}
	}
	if c.after == nil && c.start < prefix {
		c = cursor[T]{start: prefix, inclusive: true}
	}
	count, batch := 0, pageSize
	for {
		limit := min(batch, max-count+1)
		rows, err := fetch(c, limit)
		if err != nil {
			return out, err
		}
		if len(rows) == 0 {
			return out, nil
		}
		jumped := false
		for i := range rows {
			k := key(rows[i])
			if count == max {
				out.truncated = true
				return out, nil
			}
			if cp := commonPrefix(k, prefix, delim); cp != "" {
				out.prefixes = append(out.prefixes, cp)
				out.last, out.lastItem = cp, nil
				count++
				// No valid UTF-8 key contains 0xff, so this sorts after
				// every key under cp.
				c = cursor[T]{start: cp + "\xff"}
				jumped = true
				break
			}
			out.items = append(out.items, rows[i])
			out.last, out.lastItem = k, &rows[i]
			count++
			c = cursor[T]{after: &rows[i]}
		}
		if !jumped && len(rows) < limit {
			return out, nil
		}
		if jumped {
			batch = 1
		} else {
			batch = min(2*batch, pageSize)
		}
	}
}

// commonPrefix returns the common prefix k rolls up into, or "".
func commonPrefix(k, prefix, delim string) string {
	if delim == "" || !strings.HasPrefix(k, prefix) {
		return ""
	}
	i := strings.Index(k[len(prefix):], delim)
	if i < 0 {
		return ""
	}
	return k[:len(prefix)+i+len(delim)]
}
