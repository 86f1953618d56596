package lessons

import (
	"io/fs"
	"slices"
	"testing"
)

// TestHasPyTorchMatchesModels: the lessons the page offers a PyTorch download on are
// exactly those whose model (built with the defaults) is a PyTorchExporter or a
// PyTorchProgram; an exporter's inputs and H_t agree in length with its steps, and every
// file names one of its lesson's scripts, a step and the page's numbers there.
func TestHasPyTorchMatchesModels(t *testing.T) {
	for _, l := range Catalog() {
		v := l.Params.Defaults()
		if l.Slug == "beam-search" { // the toy is no network
			v["mode"] = beamTrained
		}
		m, err := l.Build(v)
		if err != nil {
			t.Fatal(l.Slug, err)
		}
		pe, isNN := Unwrap(m).(PyTorchExporter)
		pp, isProgram := Unwrap(m).(PyTorchProgram)
		if (isNN || isProgram) != HasPyTorch(l.Slug) {
			t.Errorf("%s: model is a PyTorchExporter %v, a PyTorchProgram %v; HasPyTorch: %v", l.Slug, isNN, isProgram, HasPyTorch(l.Slug))
		}
		if !HasPyTorch(l.Slug) {
			continue
		}
		var f PyTorchFile
		if isProgram {
			f, err = pp.PyTorchFile(0)
		} else {
			f, err = pe.PyTorch().File(0)
		}
		if err != nil {
			t.Errorf("%s: %v", l.Slug, err)
			continue
		}
		if !slices.Contains(PyTorchScripts(l.Slug), f.Script) || f.Step < 1 || len(f.H) == 0 || len(f.Tensors) == 0 {
			t.Errorf("%s: script %q (the lesson's: %v), step %d, %d numbers, %d tensors", l.Slug, f.Script, PyTorchScripts(l.Slug), f.Step, len(f.H), len(f.Tensors))
		}
		pc, hasCompanions := Unwrap(m).(PyTorchCompanions)
		if hasCompanions != (len(Companions(l.Slug)) > 0) {
			t.Errorf("%s: model is a PyTorchCompanions %v; the lesson names %d models beside it", l.Slug, hasCompanions, len(Companions(l.Slug)))
		}
		for _, c := range Companions(l.Slug) {
			if !hasCompanions {
				break
			}
			f, err := pc.PyTorchCompanion(c.Name, 0)
			if err != nil || !slices.Contains(PyTorchScripts(l.Slug), f.Script) || f.Step < 1 || len(f.H) == 0 || len(f.Tensors) == 0 || c.Label == "" {
				t.Errorf("%s, model %s: %v; script %q (the lesson's: %v), step %d, %d numbers, %d tensors, label %q", l.Slug, c.Name, err, f.Script, PyTorchScripts(l.Slug), f.Step, len(f.H), len(f.Tensors), c.Label)
			}
		}
		if hasCompanions {
			if _, err := pc.PyTorchCompanion("no-such-model", 0); err == nil {
				t.Errorf("%s: a model of no name beside it downloads", l.Slug)
			}
		}
		if !isNN {
			continue
		}
		p := pe.PyTorch()
		stack := p.Stack()
		top := stack[len(stack)-1]
		width := len(top) * top[0].HiddenSize() // the top layer's [→H_t, ←H_t]
		if p.Steps() != m.Steps() || (p.X == nil) == (p.Inputs == nil) || len(p.H) != m.Steps() || len(p.H[0]) != width {
			t.Errorf("%s: %d inputs, %d rows of numbers, %d H_t of %d (want %d), for %d steps", l.Slug, len(p.Inputs), len(p.X), len(p.H), len(p.H[0]), width, m.Steps())
		}
	}
}

// TestPyTorchScripts: every script a lesson names is in lessons/pytorch with its
// introduction, and every script there is some lesson's.
func TestPyTorchScripts(t *testing.T) {
	named := map[string]bool{}
	for _, p := range pyTorchModels {
		for _, s := range p.scripts {
			named[s] = true
			if PyTorchSnippet(s) == "" || PyTorchIntro(s) == "" {
				t.Errorf("%s: empty, or no introduction", s)
			}
		}
	}
	files, err := fs.Glob(pyTorchScripts, "pytorch/*.py")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !named[f[len("pytorch/"):]] {
			t.Errorf("%s is no lesson's script", f)
		}
	}
}
