package lessons

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
)

// TestHasPyTorchMatchesModels: a lesson's PyTorch field decides whether its page offers
// the download (HasPyTorch). A lesson that declares one names a note and a script, and
// its model (built with the defaults) is a PyTorchExporter or a PyTorchProgram: an
// exporter's inputs and H_t agree in length with its steps, and every file names one of
// its lesson's scripts, a step and the page's numbers there. A lesson without one
// offers none, whatever its model could export (the worked example's GRU).
func TestHasPyTorchMatchesModels(t *testing.T) {
	for _, l := range testedLessons() {
		if _, listed := Find(l.Slug); listed && HasPyTorch(l.Slug) != (l.PyTorch != nil) {
			t.Errorf("%s: HasPyTorch %v, its PyTorch field %v", l.Slug, HasPyTorch(l.Slug), l.PyTorch)
		}
		p := l.PyTorch
		if p == nil {
			continue
		}
		if p.Note == "" || len(p.Scripts) == 0 {
			t.Errorf("%s: a PyTorch download with the note %q and the scripts %v", l.Slug, p.Note, p.Scripts)
		}
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
		if !isNN && !isProgram {
			t.Errorf("%s: declares a PyTorch download, but its model, a %T, is neither a PyTorchExporter nor a PyTorchProgram", l.Slug, Unwrap(m))
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
		if !slices.Contains(p.Scripts, f.Script) || f.Step < 1 || len(f.H) == 0 || len(f.Tensors) == 0 {
			t.Errorf("%s: script %q (the lesson's: %v), step %d, %d numbers, %d tensors", l.Slug, f.Script, p.Scripts, f.Step, len(f.H), len(f.Tensors))
		}
		pc, hasCompanions := Unwrap(m).(PyTorchCompanions)
		if hasCompanions != (len(p.Companions) > 0) {
			t.Errorf("%s: model is a PyTorchCompanions %v; the lesson names %d models beside it", l.Slug, hasCompanions, len(p.Companions))
		}
		for _, c := range p.Companions {
			if !hasCompanions {
				break
			}
			f, err := pc.PyTorchCompanion(c.Name, 0)
			if err != nil || !slices.Contains(p.Scripts, f.Script) || f.Step < 1 || len(f.H) == 0 || len(f.Tensors) == 0 || c.Label == "" {
				t.Errorf("%s, model %s: %v; script %q (the lesson's: %v), step %d, %d numbers, %d tensors, label %q", l.Slug, c.Name, err, f.Script, p.Scripts, f.Step, len(f.H), len(f.Tensors), c.Label)
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
		e := pe.PyTorch()
		stack := e.Stack()
		top := stack[len(stack)-1]
		width := len(top) * top[0].HiddenSize() // the top layer's [→H_t, ←H_t]
		if e.Steps() != m.Steps() || (e.X == nil) == (e.Inputs == nil) || len(e.H) != m.Steps() || len(e.H[0]) != width {
			t.Errorf("%s: %d inputs, %d rows of numbers, %d H_t of %d (want %d), for %d steps", l.Slug, len(e.Inputs), len(e.X), len(e.H), len(e.H[0]), width, m.Steps())
		}
	}
}

// TestPyTorchScripts: every script a lesson names is in lessons/pytorch with its
// introduction beside it (<name>.html), every script and introduction there is some
// lesson's, and every file of lessons/pytorch/notes is some lesson's note or the label
// of one of its companions, one paragraph.
func TestPyTorchScripts(t *testing.T) {
	named := map[string]bool{}
	shown := map[string]bool{} // notes and labels
	for _, l := range testedLessons() {
		if l.PyTorch == nil {
			continue
		}
		shown[l.PyTorch.Note] = true
		for _, c := range l.PyTorch.Companions {
			shown[c.Label] = true
		}
		for _, s := range l.PyTorch.Scripts {
			named[s] = true
			if PyTorchSnippet(s) == "" || PyTorchIntro(s) == "" {
				t.Errorf("%s: empty, or no introduction", s)
			}
		}
	}
	scripts, err := fs.Glob(pyTorchScripts, "pytorch/*.py")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range scripts {
		if !named[path.Base(f)] {
			t.Errorf("%s is no lesson's script", f)
		}
	}
	intros, err := fs.Glob(pyTorchPages, "pytorch/*.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range intros {
		if !named[strings.TrimSuffix(path.Base(f), ".html")+".py"] {
			t.Errorf("%s introduces no lesson's script", f)
		}
	}
	notes, err := fs.Glob(pyTorchPages, "pytorch/notes/*.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(intros, notes...) {
		html := pyTorchHTML(strings.TrimPrefix(f, "pytorch/"))
		if strings.HasPrefix(f, "pytorch/notes/") && !shown[html] {
			t.Errorf("%s is no lesson's note and no companion's label", f)
		}
		if html == "" || html != strings.Join(strings.Fields(html), " ") {
			t.Errorf("%s: want one paragraph, without blank lines or runs of spaces", f)
		}
	}
}
