package workload

import (
	"encoding/xml"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ostiumio/ostium/internal/bench/faults"
	"github.com/ostiumio/ostium/internal/bench/quick"
)

// Workload is a parsed workload file, COSBench XML or native YAML.
type Workload struct {
	Name        string  `yaml:"name"`
	Description string  `yaml:"description"`
	Storage     Storage `yaml:"storage"`
	Stages      []Stage `yaml:"stages"`
	// Faults is the fault schedule: commands run at set times of the run.
	Faults []faults.Fault `yaml:"faults" json:"faults,omitempty"`
}

// Storage says where a work runs: type s3, or mock/none (in process).
type Storage struct {
	Type   string            `yaml:"type"`
	Config map[string]string `yaml:"config"`
}

// Stage is a workstage: its works run at the same time.
type Stage struct {
	Line         int      `yaml:"-"` // in the file, for errors
	Name         string   `yaml:"name"`
	ClosureDelay int      `yaml:"closuredelay"` // seconds to wait after the stage
	Storage      *Storage `yaml:"storage"`
	Works        []Work   `yaml:"works"`
}

// Work is a set of workers with an operation mix and a stop condition.
type Work struct {
	Line       int               `yaml:"-"`
	Name       string            `yaml:"name"`
	Type       string            `yaml:"type"` // normal, init, prepare, cleanup, dispose, delay
	Workers    int               `yaml:"workers"`
	Interval   int               `yaml:"interval"` // seconds
	Division   string            `yaml:"division"` // none, container, object
	Runtime    int               `yaml:"runtime"`  // seconds
	Rampup     int               `yaml:"rampup"`
	Rampdown   int               `yaml:"rampdown"`
	TotalOps   int64             `yaml:"totalOps"`
	TotalBytes Bytes             `yaml:"totalBytes"`
	AFR        int64             `yaml:"afr"` // acceptable failures per million; -1 = unset
	Config     map[string]string `yaml:"config"`
	Storage    *Storage          `yaml:"storage"`
	Ops        []Operation       `yaml:"operations"`
}

// Operation is one operation of a normal work.
type Operation struct {
	Line     int               `yaml:"-"`
	Type     string            `yaml:"type"` // read, write, delete, list
	Ratio    int               `yaml:"ratio"`
	Division string            `yaml:"division"`
	Config   map[string]string `yaml:"config"`
}

// Bytes is a byte count that a YAML file may write with a unit ("10GB",
// "1TiB"), as every size the bench takes.
type Bytes int64

func (b *Bytes) UnmarshalYAML(n *yaml.Node) error {
	v, err := quick.ParseBytes(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*b = Bytes(v)
	return nil
}

// Load reads a workload file: XML (COSBench) by content, else YAML.
func Load(path string) (*Workload, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	var w *Workload
	if strings.HasPrefix(strings.TrimSpace(string(b)), "<") {
		w, err = parseXML(b)
	} else {
		w, err = parseYAML(b)
	}
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", path, err)
	}
	if err := w.validate(); err != nil {
		return nil, fmt.Errorf("workload %s: %w", path, err)
	}
	return w, nil
}

// parseYAML reads the native form strictly (an unknown key is an error)
// and notes the line of each stage, work and operation.
func parseYAML(b []byte) (*Workload, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, err
	}
	w := &Workload{}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(w); err != nil {
		return nil, err
	}
	seq := func(n *yaml.Node, key string) []*yaml.Node {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key && n.Content[i+1].Kind == yaml.SequenceNode {
				return n.Content[i+1].Content
			}
		}
		return nil
	}
	var doc *yaml.Node
	if len(root.Content) > 0 {
		doc = root.Content[0]
	}
	for i, fn := range seq(doc, "faults") {
		if i < len(w.Faults) {
			w.Faults[i].Line = fn.Line
		}
	}
	for i, sn := range seq(doc, "stages") {
		if i >= len(w.Stages) {
			break
		}
		w.Stages[i].Line = sn.Line
		for j, wn := range seq(sn, "works") {
			if j >= len(w.Stages[i].Works) {
				break
			}
			wk := &w.Stages[i].Works[j]
			wk.Line = wn.Line
			if wk.AFR == 0 {
				wk.AFR = -1 // unset: YAML cannot tell 0 from absent here
			}
			for k, on := range seq(wn, "operations") {
				if k < len(wk.Ops) {
					wk.Ops[k].Line = on.Line
				}
			}
		}
	}
	return w, nil
}

// xmlNode is any COSBench element: its attributes, children and line.
type xmlNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr
	Children []xmlNode
	Line     int
}

// UnmarshalXML reads an element and its subtree, noting where each starts.
func (n *xmlNode) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	n.Line, _ = d.InputPos()
	n.XMLName, n.Attrs = start.Name, start.Attr
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			var c xmlNode
			if err := c.UnmarshalXML(d, t); err != nil {
				return err
			}
			n.Children = append(n.Children, c)
		case xml.EndElement:
			return nil
		}
	}
}

func (n xmlNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n xmlNode) child(name string) *xmlNode {
	for i := range n.Children {
		if n.Children[i].XMLName.Local == name {
			return &n.Children[i]
		}
	}
	return nil
}

func parseXML(b []byte) (*Workload, error) {
	var root xmlNode
	if err := xml.Unmarshal(b, &root); err != nil {
		return nil, err
	}
	if root.XMLName.Local != "workload" {
		return nil, fmt.Errorf("the root element is <%s>, not <workload>", root.XMLName.Local)
	}
	w := &Workload{Name: root.attr("name"), Description: root.attr("description")}
	var err error
	storage := func(n *xmlNode) (*Storage, error) {
		s := n.child("storage")
		if s == nil {
			return nil, nil
		}
		cfg, err := parseConfig(s.attr("config"))
		return &Storage{Type: s.attr("type"), Config: cfg}, err
	}
	if s, err := storage(&root); err != nil {
		return nil, err
	} else if s != nil {
		w.Storage = *s
	}
	if w.Faults, err = parseFaults(root.child("faults")); err != nil {
		return nil, err
	}
	flow := root.child("workflow")
	if flow == nil {
		return nil, fmt.Errorf("no <workflow>")
	}
	num := func(n xmlNode, name string, def int64) (int64, error) {
		v := n.attr(name)
		if v == "" {
			return def, nil
		}
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil && name == "totalBytes" {
			// A byte count may carry a unit (10GB, 1TiB), as every size
			// the bench takes.
			x, err = quick.ParseBytes(v)
		}
		if err != nil {
			return 0, fmt.Errorf("line %d: <%s %s=%q>: not a number", n.Line, n.XMLName.Local, name, v)
		}
		return x, nil
	}
	for _, sn := range flow.Children {
		if sn.XMLName.Local != "workstage" {
			continue
		}
		st := Stage{Name: sn.attr("name"), Line: sn.Line}
		delay, err := num(sn, "closuredelay", 0)
		if err != nil {
			return nil, err
		}
		st.ClosureDelay = int(delay)
		if st.Storage, err = storage(&sn); err != nil {
			return nil, err
		}
		for _, wn := range sn.Children {
			if wn.XMLName.Local != "work" {
				continue
			}
			wk := Work{Name: wn.attr("name"), Type: wn.attr("type"), Division: wn.attr("division"), Line: wn.Line}
			fields := []struct {
				name string
				dst  *int64
				def  int64
			}{{"totalOps", &wk.TotalOps, 0}, {"totalBytes", (*int64)(&wk.TotalBytes), 0}, {"afr", &wk.AFR, -1}}
			for _, f := range fields {
				if *f.dst, err = num(wn, f.name, f.def); err != nil {
					return nil, err
				}
			}
			for _, f := range []struct {
				name string
				dst  *int
				def  int64
			}{{"workers", &wk.Workers, 0}, {"interval", &wk.Interval, 5}, {"runtime", &wk.Runtime, 0},
				{"rampup", &wk.Rampup, 0}, {"rampdown", &wk.Rampdown, 0}} {
				v, err := num(wn, f.name, f.def)
				if err != nil {
					return nil, err
				}
				*f.dst = int(v)
			}
			if wk.Config, err = parseConfig(wn.attr("config")); err != nil {
				return nil, err
			}
			if wk.Storage, err = storage(&wn); err != nil {
				return nil, err
			}
			for _, on := range wn.Children {
				if on.XMLName.Local != "operation" {
					continue
				}
				ratio, err := num(on, "ratio", 0)
				if err != nil {
					return nil, err
				}
				op := Operation{Type: on.attr("type"), Ratio: int(ratio), Division: on.attr("division"), Line: on.Line}
				if op.Config, err = parseConfig(on.attr("config")); err != nil {
					return nil, err
				}
				wk.Ops = append(wk.Ops, op)
			}
			st.Works = append(st.Works, wk)
		}
		w.Stages = append(w.Stages, st)
	}
	return w, err
}

// parseFaults reads <faults><fault name="" stage="" at="10s"
// timeout="30s" fatal="true" command="..."/></faults>, an element of
// Ostium's that COSBench does not have (it sits beside <workflow>).
func parseFaults(n *xmlNode) ([]faults.Fault, error) {
	if n == nil {
		return nil, nil
	}
	var fs []faults.Fault
	for _, c := range n.Children {
		if c.XMLName.Local != "fault" {
			return nil, fmt.Errorf("line %d: <%s> in <faults>: only <fault> belongs there", c.Line, c.XMLName.Local)
		}
		f := faults.Fault{Line: c.Line, Name: c.attr("name"), Stage: c.attr("stage"), Command: c.attr("command")}
		for _, d := range []struct {
			name string
			dst  *faults.Duration
		}{{"at", &f.At}, {"timeout", &f.Timeout}} {
			if v := c.attr(d.name); v != "" {
				x, err := faults.ParseDuration(v)
				if err != nil {
					return nil, fmt.Errorf("line %d: <fault %s>: %w", c.Line, d.name, err)
				}
				*d.dst = x
			}
		}
		if c.attr("at") == "" {
			return nil, fmt.Errorf("line %d: <fault> lacks at (when to run it)", c.Line)
		}
		switch v := c.attr("fatal"); v {
		case "", "false":
		case "true":
			f.Fatal = true
		default:
			return nil, fmt.Errorf("line %d: <fault fatal=%q>: true or false", c.Line, v)
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// spans are the stages as a fault schedule sees them: how long each
// lasts, when its works' runtimes say.
func (w *Workload) spans() []faults.Span {
	var out []faults.Span
	for _, st := range w.Stages {
		sp := faults.Span{Name: st.Name, Closure: time.Duration(st.ClosureDelay) * time.Second}
		for _, wk := range st.Works {
			timed := wk.Type == "delay" || (wk.Type == "" || wk.Type == "normal") && wk.Runtime > 0 && wk.TotalOps <= 0 && wk.TotalBytes <= 0
			if !timed {
				sp.Length = 0
				break
			}
			sp.Length = max(sp.Length, time.Duration(wk.Rampup+wk.Runtime+wk.Rampdown)*time.Second)
		}
		out = append(out, sp)
	}
	return out
}

// validate checks, before anything runs, what COSBench requires of a
// workload; each error names the line and the reason.
func (w *Workload) validate() error {
	if len(w.Stages) == 0 {
		return fmt.Errorf("no workstage")
	}
	if err := faults.Validate(w.Faults, w.spans()); err != nil {
		return err
	}
	for _, st := range w.Stages {
		for _, wk := range st.Works {
			at := func(line int, format string, args ...any) error {
				return fmt.Errorf("line %d: stage %q work %q: %s", line, st.Name, wk.Name, fmt.Sprintf(format, args...))
			}
			// The container names are checked once the rest of the work
			// is known to be right.
			type named struct {
				line int
				n    naming
			}
			var containers []named
			// A set-up work walks its ids once, as COSBench's: a selector
			// that draws (c, u) would never end it.
			walks := func(line int, n naming, keys ...string) error {
				for _, k := range keys {
					sel := map[string]Selector{"containers": n.containers, "objects": n.objects}[k]
					if sel.Kind != 'r' {
						return at(line, "a %s work walks a range: %s wants r(LO,HI), not %c(...)", wk.Type, k, sel.Kind)
					}
				}
				return nil
			}
			names := func(line int, cfg map[string]string, need ...string) error {
				n, err := parseNaming(cfg, need...)
				if err != nil {
					return at(line, "%v", err)
				}
				containers = append(containers, named{line, n})
				return nil
			}
			switch wk.Type {
			case "", "normal":
				if wk.Runtime <= 0 && wk.TotalOps <= 0 && wk.TotalBytes <= 0 {
					return at(wk.Line, "needs a stop condition: runtime, totalOps or totalBytes")
				}
				sum := 0
				for _, op := range wk.Ops {
					sum += op.Ratio
					need := []string{"containers", "objects"}
					switch op.Type {
					case "read", "delete", "list":
					case "write":
						need = append(need, "sizes")
					case "filewrite":
						return at(op.Line, "filewrite (PUT from local files) is not supported")
					default:
						return at(op.Line, "unknown operation %q", op.Type)
					}
					if err := names(op.Line, merge(wk.Config, op.Config), need...); err != nil {
						return err
					}
				}
				if sum != 100 {
					return at(wk.Line, "operation ratios add up to %d, not 100", sum)
				}
			case "init", "dispose":
				if err := names(wk.Line, wk.Config, "containers"); err != nil {
					return err
				}
				if err := walks(wk.Line, containers[len(containers)-1].n, "containers"); err != nil {
					return err
				}
			case "prepare", "cleanup":
				need := []string{"containers", "objects"}
				if wk.Type == "prepare" {
					need = append(need, "sizes")
				}
				if err := names(wk.Line, wk.Config, need...); err != nil {
					return err
				}
				if err := walks(wk.Line, containers[len(containers)-1].n, "containers", "objects"); err != nil {
					return err
				}
			case "delay":
			default:
				return at(wk.Line, "unknown work type %q", wk.Type)
			}
			if wk.Type != "delay" && wk.Workers <= 0 {
				return at(wk.Line, "workers must be positive")
			}
			switch wk.Division {
			case "", "none", "container", "object":
			default:
				return at(wk.Line, "unknown division %q", wk.Division)
			}
			// An S3 endpoint refuses what its naming rules do not allow,
			// at the init stage or the first write; the in-process mock
			// takes any name.
			if typ := storageOf(w, &st, &wk).Type; typ == "s3" || typ == "" {
				for _, c := range containers {
					if err := checkContainers(c.n); err != nil {
						return at(c.line, "%v", err)
					}
				}
			}
		}
	}
	return nil
}
