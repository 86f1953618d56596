package lessons

import (
	"fmt"
	"reflect"
	"regexp"
	"testing"

	"unroll/sim"
)

// TestLessonContract: every lesson's page contract holds at its defaults. Each panel's
// arrays are declared in Lesson.Arrays; every declared array is produced by the model
// (per step or static, as declared) with one axis per dimension, a label, and a labels
// key naming a static list as long as its last dimension; every static and per-step
// meta key a panel declares is in the model's frames; the model's passes cover its
// steps; facts have labels and plain values; and no fact label is a code name. The
// browser test (web's TestBrowserContract) checks the other half: that the page
// reads nothing undeclared.
func TestLessonContract(t *testing.T) {
	for _, l := range testedLessons() {
		t.Run(l.Slug, func(t *testing.T) {
			m, err := l.Model(l.Params.Defaults())
			if err != nil {
				t.Fatal(err)
			}
			checkContract(t, l, m)
		})
	}
}

func checkContract(t *testing.T, l *Lesson, m sim.Model) {
	t.Helper()
	static := m.Static()
	staticArrays := map[string][]int{}
	for _, a := range static.Arrays {
		staticArrays[a.Name] = a.Shape
	}
	stepArrays := map[string][]int{}
	stepMeta := map[string]bool{}
	checkFacts(t, "static", static.Facts)
	for s := 1; s <= m.Steps(); s++ {
		f := m.At(s)
		for _, a := range f.Arrays {
			stepArrays[a.Name] = a.Shape
		}
		for k := range f.Meta {
			stepMeta[k] = true
		}
		checkFacts(t, fmt.Sprintf("step %d", s), f.Facts)
	}
	declared := map[string]bool{}
	for _, a := range l.Arrays {
		if declared[a.Name] {
			t.Errorf("array %q is declared twice", a.Name)
		}
		declared[a.Name] = true
		shape, ok := stepArrays[a.Name]
		if !a.PerStep {
			shape, ok = staticArrays[a.Name]
		}
		if !ok && !onlyOptional(l, a.Name) {
			t.Errorf("array %q is declared (per step: %v) but the model does not produce it so", a.Name, a.PerStep)
			continue
		}
		if !ok { // a panel the page hides while the model has none of its arrays (yours_test.go covers them)
			continue
		}
		if a.Label == "" {
			t.Errorf("array %q has no label", a.Name)
		}
		if len(a.Axes) != len(shape) {
			t.Errorf("array %q declares axes %v for shape %v", a.Name, a.Axes, shape)
		}
		if a.Dir != "" && (!a.PerStep || (a.Dir != Forward && a.Dir != Backward)) {
			t.Errorf("array %q: direction %q (per step: %v)", a.Name, a.Dir, a.PerStep)
		}
		if a.Labels != "" {
			list := reflect.ValueOf(static.Meta[a.Labels])
			if list.Kind() != reflect.Slice || len(shape) == 0 || list.Len() != shape[len(shape)-1] {
				t.Errorf("array %q names its entries by static %q, which is not a list of %v", a.Name, a.Labels, shape)
			}
		}
	}
	for _, eq := range l.Equations {
		for _, sym := range eq.Symbols {
			if !declared[sym.Array] {
				t.Errorf("equation symbol %s names array %q, which Lesson.Arrays does not declare (the symbol readout reads it)", sym.ID, sym.Array)
			}
		}
	}
	for _, p := range l.Panels {
		for _, name := range p.Arrays {
			if !declared[name] {
				t.Errorf("panel %s reads array %q, which Lesson.Arrays does not declare", p.ID, name)
			}
		}
		for _, k := range p.Static {
			if _, ok := static.Meta[k]; !ok {
				t.Errorf("panel %s declares the static key %q, which the model's static frame does not have", p.ID, k)
			}
		}
		for _, k := range p.Meta {
			if !stepMeta[k] {
				t.Errorf("panel %s declares the per-step key %q, which no step's meta has", p.ID, k)
			}
		}
	}
	if tr, ok := m.(sim.Trainer); ok {
		if l.Loss == "" {
			t.Errorf("the lesson trains but declares no Loss array")
		}
		f, err := tr.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, a := range f.Arrays {
			found = found || a.Name == l.Loss
		}
		if l.Loss != "" && !found {
			t.Errorf("a training step's frame has no loss array %q", l.Loss)
		}
		for _, p := range l.Panels {
			for _, k := range p.Train {
				if _, ok := f.Meta[k]; !ok {
					t.Errorf("panel %s declares the training key %q, which a training step's meta does not have", p.ID, k)
				}
			}
		}
	}
	for _, p := range l.Panels {
		if len(p.Train) > 0 && !l.Trains {
			t.Errorf("panel %s reads training progress, but the lesson does not train", p.ID)
		}
	}
	covered := 0
	for _, p := range sim.PassesOf(m) {
		covered += p.Steps
	}
	if covered != m.Steps() {
		t.Errorf("the passes cover %d of %d steps", covered, m.Steps())
	}
}

// codeName matches a label that is a program's name, unknown_percent_en, rather than
// the lecture's words or symbols (H_t, ‖∂L/∂H_1‖ keep their subscripts).
var codeName = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)+$`)

// checkFacts: a fact has a label in words or symbols (not a code name) and a plain
// value.
func checkFacts(t *testing.T, where string, facts []sim.Fact) {
	t.Helper()
	seen := map[string]bool{}
	for _, f := range facts {
		if f.Label == "" || codeName.MatchString(f.Label) {
			t.Errorf("%s: fact label %q reads as a code name", where, f.Label)
		}
		if seen[f.Label] {
			t.Errorf("%s: fact %q twice", where, f.Label)
		}
		seen[f.Label] = true
		switch f.Value.(type) {
		case string, bool, int, float64:
		default:
			t.Errorf("%s: fact %q has a %T value", where, f.Label, f.Value)
		}
	}
}

// unlabelled is the adapter under a model that Lesson.Model built (what Plot.Series
// and Plot.Grid read), or m itself.
func unlabelled(m sim.Model) sim.Model {
	if v, ok := m.(interface{ unwrap() sim.Model }); ok {
		return v.unwrap()
	}
	return m
}

// TestModelKeepsInterfaces: the model Lesson.Model builds is a sim.Trainer exactly when
// the lesson trains and its adapter is one, a sim.Timeline exactly when its adapter is,
// with the adapter's passes, and unlabelled finds the adapter.
func TestModelKeepsInterfaces(t *testing.T) {
	for _, l := range testedLessons() {
		t.Run(l.Slug, func(t *testing.T) {
			raw, err := l.Build(l.Params.Defaults())
			if err != nil {
				t.Fatal(err)
			}
			m, err := l.Model(l.Params.Defaults())
			if err != nil {
				t.Fatal(err)
			}
			_, rawTrains := raw.(sim.Trainer)
			_, trains := m.(sim.Trainer)
			if trains != rawTrains || trains != l.Trains {
				t.Errorf("Model's model is a Trainer: %v; Build's: %v; Trains: %v", trains, rawTrains, l.Trains)
			}
			_, rawTimeline := raw.(sim.Timeline)
			_, timeline := m.(sim.Timeline)
			if timeline != rawTimeline {
				t.Errorf("Model's model is a Timeline: %v; Build's: %v", timeline, rawTimeline)
			}
			if !reflect.DeepEqual(sim.PassesOf(m), sim.PassesOf(raw)) || m.Steps() != raw.Steps() {
				t.Errorf("Model's passes %v, Build's %v", sim.PassesOf(m), sim.PassesOf(raw))
			}
			if reflect.TypeOf(unlabelled(m)) != reflect.TypeOf(raw) {
				t.Errorf("unlabelled gives a %T, Build a %T", unlabelled(m), raw)
			}
		})
	}
}

// onlyOptional reports whether every panel that draws array name is Optional (and one does).
func onlyOptional(l *Lesson, name string) bool {
	drawn := false
	for _, p := range l.Panels {
		for _, a := range p.Arrays {
			if a == name {
				if !p.Optional {
					return false
				}
				drawn = true
			}
		}
	}
	return drawn
}
