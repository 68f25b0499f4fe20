package s3

// Row is one row of the honoured table, for the tests outside the
// package that walk it over real HTTP.
type Row struct {
	Name   string
	Query  bool
	Ops    []string
	Values []string
	How    string
	Status int
	Code   string
	Note   string
}

// Table returns the honoured table.
func Table() []Row {
	var out []Row
	for _, f := range fields {
		r := Row{Name: f.name, Query: f.query, Values: f.values, How: f.how.String(), Note: f.note}
		for op := Op(1); op < opCount; op++ {
			if f.ops.has(op) {
				r.Ops = append(r.Ops, op.String())
			}
		}
		if f.how == refused {
			e := f.err
			if e == nil {
				e = errNotImplemented
			}
			r.Status, r.Code = e.Status, e.Code
		}
		out = append(out, r)
	}
	return out
}
