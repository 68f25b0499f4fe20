package workload

import (
	"encoding/xml"
	"fmt"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Workload is a parsed workload file, COSBench XML or native YAML.
type Workload struct {
	Name        string  `yaml:"name"`
	Description string  `yaml:"description"`
	Storage     Storage `yaml:"storage"`
	Stages      []Stage `yaml:"stages"`
}

// Storage says where a work runs: type s3, or mock/none (in process).
type Storage struct {
	Type   string            `yaml:"type"`
	Config map[string]string `yaml:"config"`
}

// Stage is a workstage: its works run at the same time.
type Stage struct {
	Name         string   `yaml:"name"`
	ClosureDelay int      `yaml:"closuredelay"` // seconds to wait after the stage
	Storage      *Storage `yaml:"storage"`
	Works        []Work   `yaml:"works"`
}

// Work is a set of workers with an operation mix and a stop condition.
type Work struct {
	Name       string            `yaml:"name"`
	Type       string            `yaml:"type"` // normal, init, prepare, cleanup, dispose, delay
	Workers    int               `yaml:"workers"`
	Interval   int               `yaml:"interval"` // seconds
	Division   string            `yaml:"division"` // none, container, object
	Runtime    int               `yaml:"runtime"`  // seconds
	Rampup     int               `yaml:"rampup"`
	Rampdown   int               `yaml:"rampdown"`
	TotalOps   int64             `yaml:"totalOps"`
	TotalBytes int64             `yaml:"totalBytes"`
	AFR        int64             `yaml:"afr"` // acceptable failures per million; -1 = unset
	Config     map[string]string `yaml:"config"`
	Storage    *Storage          `yaml:"storage"`
	Ops        []Operation       `yaml:"operations"`
}

// Operation is one operation of a normal work.
type Operation struct {
	Type     string            `yaml:"type"` // read, write, delete, list
	Ratio    int               `yaml:"ratio"`
	Division string            `yaml:"division"`
	Config   map[string]string `yaml:"config"`
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
		w = &Workload{}
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true) // strict: an unknown key is an error
		err = dec.Decode(w)
		for i := range w.Stages {
			for j := range w.Stages[i].Works {
				if w.Stages[i].Works[j].AFR == 0 {
					w.Stages[i].Works[j].AFR = -1
				}
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", path, err)
	}
	if err := w.validate(); err != nil {
		return nil, fmt.Errorf("workload %s: %w", path, err)
	}
	return w, nil
}

// xmlNode is any COSBench element: its attributes and children.
type xmlNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []xmlNode  `xml:",any"`
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
		if err != nil {
			return 0, fmt.Errorf("<%s %s=%q>: not a number", n.XMLName.Local, name, v)
		}
		return x, nil
	}
	for _, sn := range flow.Children {
		if sn.XMLName.Local != "workstage" {
			continue
		}
		st := Stage{Name: sn.attr("name")}
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
			wk := Work{Name: wn.attr("name"), Type: wn.attr("type"), Division: wn.attr("division")}
			fields := []struct {
				name string
				dst  *int64
				def  int64
			}{{"totalOps", &wk.TotalOps, 0}, {"totalBytes", &wk.TotalBytes, 0}, {"afr", &wk.AFR, -1}}
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
				op := Operation{Type: on.attr("type"), Ratio: int(ratio), Division: on.attr("division")}
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

// validate checks what COSBench requires of a workload.
func (w *Workload) validate() error {
	if len(w.Stages) == 0 {
		return fmt.Errorf("no workstage")
	}
	for _, st := range w.Stages {
		for _, wk := range st.Works {
			where := fmt.Sprintf("stage %q work %q", st.Name, wk.Name)
			switch wk.Type {
			case "", "normal":
				if wk.Runtime <= 0 && wk.TotalOps <= 0 && wk.TotalBytes <= 0 {
					return fmt.Errorf("%s: needs runtime, totalOps or totalBytes", where)
				}
				sum := 0
				for _, op := range wk.Ops {
					sum += op.Ratio
					switch op.Type {
					case "read", "write", "delete", "list":
					case "filewrite":
						return fmt.Errorf("%s: filewrite (PUT from local files) is not supported", where)
					default:
						return fmt.Errorf("%s: unknown operation %q", where, op.Type)
					}
				}
				if sum != 100 {
					return fmt.Errorf("%s: operation ratios add up to %d, not 100", where, sum)
				}
			case "init", "prepare", "cleanup", "dispose", "delay":
			default:
				return fmt.Errorf("%s: unknown work type %q", where, wk.Type)
			}
			if wk.Type != "delay" && wk.Workers <= 0 {
				return fmt.Errorf("%s: workers must be positive", where)
			}
			switch wk.Division {
			case "", "none", "container", "object":
			default:
				return fmt.Errorf("%s: unknown division %q", where, wk.Division)
			}
		}
	}
	return nil
}
