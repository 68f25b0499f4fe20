package quick

import (
	"fmt"
	"strconv"
	"strings"
)

// Share is one operation of the mixed mode and its part of the mix, in
// percent.
type Share struct {
	Op    string // get, put, delete, stat, list
	Ratio int
}

// DefaultMix is the mixed mode's mix when --mix is not given: as warp's
// mixed mode, reads and stats of the prepared objects, and each worker
// writing its own objects and deleting its oldest.
const DefaultMix = "get=45,stat=30,put=15,delete=10"

// mixOps are the operations a mix may name, and the operation type each
// is reported as.
var mixOps = map[string]string{"get": "read", "put": "write", "delete": "delete", "stat": "stat", "list": "list"}

// ParseMix reads a mix, OP=PERCENT separated by commas (get=60,put=30,
// delete=5,list=5): each operation once, whole percentages adding up to
// 100. A delete removes an object its worker put, so a mix that deletes
// must put.
func ParseMix(s string) ([]Share, error) {
	bad := func(format string, args ...any) ([]Share, error) {
		return nil, fmt.Errorf("--mix %q: %s (for example %s; operations: get, put, delete, stat, list)", s, fmt.Sprintf(format, args...), DefaultMix)
	}
	var mix []Share
	seen := map[string]bool{}
	sum, puts, deletes := 0, false, false
	for part := range strings.SplitSeq(s, ",") {
		op, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		op = strings.ToLower(strings.TrimSpace(op))
		if !ok {
			return bad("%q is not OP=PERCENT", part)
		}
		if _, known := mixOps[op]; !known {
			return bad("unknown operation %q", op)
		}
		if seen[op] {
			return bad("%s given twice", op)
		}
		seen[op] = true
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n > 100 {
			return bad("%s=%s is not a whole percentage from 0 to 100", op, v)
		}
		sum += n
		puts = puts || op == "put" && n > 0
		deletes = deletes || op == "delete" && n > 0
		if n > 0 {
			mix = append(mix, Share{op, n})
		}
	}
	if sum != 100 {
		return bad("the percentages add up to %d, not 100", sum)
	}
	if deletes && !puts {
		return bad("delete removes what the run's puts wrote: a mix that deletes must put")
	}
	return mix, nil
}

// MixString writes a mix as ParseMix reads it.
func MixString(mix []Share) string {
	var parts []string
	for _, m := range mix {
		parts = append(parts, m.Op+"="+strconv.Itoa(m.Ratio))
	}
	return strings.Join(parts, ",")
}
