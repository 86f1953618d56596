package exports

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"unroll/figures"
	"unroll/lessons"
	"unroll/sim"
)

// tableKinds are the panel kinds drawn as tables or diagrams (this file's tests);
// a scene is drawn as a picture (scene_test.go).
var tableKinds = []lessons.PanelKind{lessons.Table, lessons.TopK, lessons.TopKs, lessons.Tokens, lessons.NGrams, lessons.Graph, lessons.Tree, lessons.EncDec, lessons.Samples}

// built is a lesson's model at its defaults.
func built(t *testing.T, l *lessons.Lesson) sim.Model {
	t.Helper()
	m, err := l.Build(l.Params.Defaults())
	if err != nil {
		t.Fatalf("%s: %v", l.Slug, err)
	}
	return m
}

// viewAt is lesson l's view of model m at step s.
func viewAt(t *testing.T, l *lessons.Lesson, m sim.Model, s int) View {
	t.Helper()
	v, err := NewView(context.Background(), l, m, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// lessonNamed is the catalog's lesson with the slug.
func lessonNamed(t testing.TB, slug string) *lessons.Lesson {
	t.Helper()
	for _, l := range lessons.Catalog() {
		if l.Slug == slug {
			return l
		}
	}
	t.Fatalf("no lesson %q", slug)
	return nil
}

// panelNamed is lesson l's panel with the ID.
func panelNamed(t *testing.T, l *lessons.Lesson, id string) lessons.Panel {
	t.Helper()
	p, ok := Find(l, id)
	if !ok {
		t.Fatalf("%s has no panel %q", l.Slug, id)
	}
	return p
}

// pdfText is the text pdftotext finds in a PDF, or "" with ok false when poppler's
// pdftotext is not installed.
func pdfText(t *testing.T, pdf []byte) (string, bool) {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		return "", false
	}
	path := filepath.Join(t.TempDir(), "f.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out), true
}

// squeeze drops every white space, so that text compares however a viewer spaced it.
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// ascii is s without the characters beyond ASCII, which a PDF's single-byte font
// encoding may not carry through pdftotext (the PDF's fonts are changing).
func ascii(s string) string {
	return strings.Map(func(r rune) rune {
		if r > 0x7e {
			return -1
		}
		return r
	}, s)
}

// svgText is the character data of an SVG, checked to be well-formed XML.
func svgText(t *testing.T, svg []byte) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	var b strings.Builder
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not XML: %v", err)
		}
		if c, ok := tok.(xml.CharData); ok {
			b.Write(c)
		}
	}
	return b.String()
}

// plainTitle is the panel title's prose before its first TeX: the words every
// drawing of the title has, however its TeX is typeset.
func plainTitle(p lessons.Panel) string {
	s, _, _ := strings.Cut(p.Title, `\(`)
	return strings.TrimSpace(s)
}

// figureTexts are the texts a figure must show: the last table's first row (a figure
// that does not fit leaves out earlier tables and later rows, never that one) and
// its title row, or every diagram node's text that is not cut short.
func figureTexts(f figures.Figure) []string {
	var out []string
	if n := len(f.Tables); n > 0 {
		t := f.Tables[n-1]
		if len(t.Rows) > 0 {
			for _, c := range t.Rows[0].Cells {
				out = append(out, c.Text)
			}
			out = append(out, t.Rows[0].Label)
		}
	}
	if f.Diagram != nil {
		for _, n := range f.Diagram.Nodes {
			out = append(out, n.Text)
		}
	}
	return slices.DeleteFunc(out, func(s string) bool { return strings.TrimSpace(s) == "" })
}

// TestTablePanelsExport: every panel of the table and diagram kinds of every lesson,
// at its defaults, at a middle and at the last step, exports as a PNG that decodes
// (figures.DefaultWidth px wide), an SVG that is XML with the title's words, and a PDF whose text has
// the table's cells or the diagram's node labels. A panel may have nothing to draw
// only where its data is absent at that step, and then says so.
func TestTablePanelsExport(t *testing.T) {
	_, havePdftotext := exec.LookPath("pdftotext")
	if havePdftotext != nil {
		t.Log("pdftotext (poppler-utils) is not installed: the PDFs' text is not checked")
	}
	var mu sync.Mutex
	seen := map[lessons.PanelKind]int{}
	t.Cleanup(func() {
		for _, k := range tableKinds {
			if seen[k] == 0 {
				t.Errorf("no lesson's %s panel was exported", k)
			}
		}
	})
	for _, l := range lessons.Catalog() {
		t.Run(l.Slug, func(t *testing.T) {
			t.Parallel()
			exportLesson(t, l, func(k lessons.PanelKind) { mu.Lock(); seen[k]++; mu.Unlock() })
		})
	}
}

// exportLesson exports every table and diagram panel of lesson l at a middle and at
// the last step and checks the files; seen counts each exported panel by kind.
func exportLesson(t *testing.T, l *lessons.Lesson, seen func(lessons.PanelKind)) {
	m := built(t, l)
	for _, p := range l.Panels {
		if !slices.Contains(tableKinds, p.Kind) {
			continue
		}
		if !Exportable(p) {
			t.Errorf("%s/%s: the %s kind is not exportable", l.Slug, p.ID, p.Kind)
			continue
		}
		for _, s := range []int{(m.Steps() + 1) / 2, m.Steps()} {
			v := viewAt(t, l, m, s)
			name := l.Slug + "/" + p.ID + " at step " + strconv.Itoa(s)
			f, err := Panel(v, p)
			if err != nil {
				if !strings.Contains(err.Error(), "nothing to draw") || hasPrediction(v, p) {
					t.Errorf("%s: %v", name, err)
				}
				continue
			}
			seen(p.Kind)
			if f.Diagram != nil && !f.Diagram.Legible() {
				t.Errorf("%s: the diagram (%.0f × %.0f pt) is drawn with type below 6 pt", name, f.Diagram.Width, f.Diagram.Height)
			}
			checkFormats(t, name, p, f)
		}
	}
}

// hasPrediction reports whether a top-k panel has a list to draw at the view's step:
// its meta "topk" (or a run's) or its array.
func hasPrediction(v View, p lessons.Panel) bool {
	if p.Kind != lessons.TopK && p.Kind != lessons.TopKs {
		return true // only a prediction may be missing at a step
	}
	for _, k := range p.Meta {
		if x, ok := v.Meta(k); ok && strings.HasSuffix(k, "topk") && x != nil {
			return true
		}
	}
	for _, a := range p.Arrays {
		if _, ok := v.At(a, v.Step()); ok {
			return true
		}
	}
	return false
}

// pngOptions are the tests' PNG options: the default width, or the least under the
// race detector (raceEnabled).
func pngOptions() figures.Options {
	if raceEnabled {
		return figures.Options{Width: figures.MinWidth}
	}
	return figures.Options{Width: figures.DefaultWidth}
}

// checkFormats draws f as PNG, SVG and PDF and checks each decodes and shows f.
func checkFormats(t *testing.T, name string, p lessons.Panel, f figures.Figure) {
	t.Helper()
	b, err := figures.Draw(f, figures.PNG, pngOptions())
	if err != nil {
		t.Errorf("%s PNG: %v", name, err)
		return
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Errorf("%s PNG: %v", name, err)
	} else if w := img.Bounds().Dx(); w != pngOptions().Width {
		t.Errorf("%s PNG: %d px wide, want %d", name, w, pngOptions().Width)
	}
	svg, err := figures.Draw(f, figures.SVG, figures.Options{})
	if err != nil {
		t.Errorf("%s SVG: %v", name, err)
		return
	}
	if text, want := squeeze(svgText(t, svg)), squeeze(plainTitle(p)); !strings.Contains(text, want) {
		t.Errorf("%s SVG: no title %q in its text", name, want)
	}
	pdf, err := figures.Draw(f, figures.PDF, figures.Options{})
	if err != nil {
		t.Errorf("%s PDF: %v", name, err)
		return
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF")) {
		t.Errorf("%s: the PDF does not start with %%PDF", name)
	}
	text, ok := pdfText(t, pdf)
	if !ok {
		return
	}
	text = ascii(squeeze(text))
	for _, s := range figureTexts(f) {
		s = ascii(s)
		if strings.HasSuffix(s, "…") {
			continue // cut to fit its box
		}
		// a node's text too long for its box is cut short with an ellipsis
		if r := []rune(squeeze(s)); !strings.Contains(text, squeeze(s)) && !(f.Diagram != nil && len(r) > 3 && strings.Contains(text, string(r[:2]))) {
			t.Errorf("%s PDF: no %q in its text", name, s)
		}
	}
}

// TestTableFigure: a table panel whose tables arrive with the steps (mt-data's
// pipeline) draws one table per step so far, the current one marked; a static table
// (the unk table) is drawn once at every step, with the row the lesson marks now.
func TestTableFigure(t *testing.T) {
	l := lessonNamed(t, "mt-data")
	m := built(t, l)
	for _, s := range []int{1, 3, m.Steps()} {
		f, err := Panel(viewAt(t, l, m, s), panelNamed(t, l, "pipeline"))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Tables) != s {
			t.Errorf("pipeline at step %d: %d tables, want %d", s, len(f.Tables), s)
		}
		for i, tab := range f.Tables {
			if now := tab.Mark.Has(figures.Current); now != (i == s-1 && s > 1) {
				t.Errorf("pipeline at step %d: table %d marked current %v", s, i+1, now)
			}
		}
	}
	var unk tableJSON
	if decodeMeta(m.Static().Meta["unk_table"], &unk) != nil || len(unk.Rows) == 0 {
		t.Fatal("mt-data has no static unk table")
	}
	f, err := Panel(viewAt(t, l, m, 2), panelNamed(t, l, "unk_table"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Tables) != 1 || len(f.Tables[0].Rows) != len(unk.Rows) {
		t.Fatalf("unk table: %d tables", len(f.Tables))
	}
	for i, r := range unk.Rows {
		if got := f.Tables[0].Rows[i]; got.Label != r.Label || got.Mark.Has(figures.Current) != (r.Mark == "now") {
			t.Errorf("unk table row %d: %q marked %b, want %q now = %v", i+1, got.Label, got.Mark, r.Label, r.Mark == "now")
		}
	}
}
