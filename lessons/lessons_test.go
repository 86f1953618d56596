package lessons

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"unroll/internal/testkit"
	"unroll/sim"
)

// TestCatalog: slugs are unique, Find finds the catalog's lessons, and every lesson
// (the worked example too) is complete, with valid parameters and conditions.
func TestCatalog(t *testing.T) {
	for _, l := range Catalog() {
		if got, ok := Find(l.Slug); !ok || got != l {
			t.Errorf("Find(%q): got %v, %v want the catalog's lesson", l.Slug, got, ok)
		}
	}
	seen := map[string]bool{}
	for _, l := range testedLessons() {
		if seen[l.Slug] {
			t.Errorf("slug %q listed twice", l.Slug)
		}
		seen[l.Slug] = true
		if err := l.Params.Validate(); err != nil {
			t.Errorf("%s: %v", l.Slug, err)
		}
		var shown []*sim.Applies // the conditions of equations and panels name parameters and values as a parameter's would
		for _, e := range l.Equations {
			shown = append(shown, e.When)
		}
		for _, p := range l.Panels {
			shown = append(shown, p.When)
		}
		for _, n := range l.LossNames {
			if n.When == nil || !l.Trains {
				t.Errorf("%s: the loss's name %s needs a condition, on a lesson that trains", l.Slug, n.TeX)
			}
			shown = append(shown, n.When)
		}
		for _, w := range shown {
			if w == nil {
				continue
			}
			if err := append(slices.Clone(l.Params), sim.ParamSpec{Name: "shown", Kind: sim.Text, When: w}).Validate(); err != nil {
				t.Errorf("%s: an equation, panel or loss name: %v", l.Slug, err)
			}
		}
		if l.Build == nil || l.Title == "" || l.Summary == "" || len(l.Prose) == 0 || l.Short == "" || len([]rune(l.Short)) > 15 {
			t.Errorf("%s: lesson is incomplete", l.Slug)
		}
	}
	if _, ok := Find("no-such-lesson"); ok {
		t.Errorf("Find of an unknown slug: got ok want not found")
	}
}

// TestInapplicableParamsChangeNothing: a parameter the page disables because its
// condition does not hold (sim.ParamSpec.When, e.g. the gru page's clamped value while
// no gate is clamped) really is ignored: at its min and its max the model's frames are
// the same; with the condition holding they differ somewhere (else the condition hides
// nothing and the test proves nothing).
func TestInapplicableParamsChangeNothing(t *testing.T) {
	frames := func(l *Lesson, v sim.Values) string {
		m, err := l.Build(v)
		if err != nil {
			t.Fatalf("%s %v: %v", l.Slug, v, err)
		}
		all := []sim.Frame{m.Static()}
		for s := 1; s <= m.Steps(); s++ {
			all = append(all, m.At(s))
		}
		b, err := json.Marshal(all)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	checked := 0
	for _, l := range testedLessons() {
		for _, p := range l.Params {
			if p.When == nil || p.Kind != sim.Float && p.Kind != sim.Int {
				continue
			}
			checked++
			lo, hi := l.Params.Defaults(), l.Params.Defaults()
			lo[p.Name], hi[p.Name] = plainNum(p.Min), plainNum(p.Max)
			off := slices.IndexFunc(l.Params, func(o sim.ParamSpec) bool { return o.Name == p.When.Param })
			for _, c := range append(slices.Clone(l.Params[off].Choices), "true", "false") {
				if _, err := l.Params[off].Check(c); err != nil || slices.Contains(p.When.Values, c) {
					continue
				}
				lo[p.When.Param], hi[p.When.Param] = c, c
				if frames(l, lo) != frames(l, hi) {
					t.Errorf("%s: %s=%s does not apply (%s), but its min and max give different frames", l.Slug, p.Name, c, p.When.Why)
				}
			}
			lo[p.When.Param], hi[p.When.Param] = p.When.Values[0], p.When.Values[0]
			if frames(l, lo) == frames(l, hi) {
				t.Errorf("%s: with %s=%s, %s's min and max give the same frames", l.Slug, p.When.Param, p.When.Values[0], p.Name)
			}
		}
	}
	if checked == 0 {
		t.Error("no numeric parameter has a condition: the test checks nothing")
	}
}

func plainNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// valueSets lists the defaults and, for every parameter, each edge value (min and
// max, every choice, both booleans) with the rest at their defaults.
func valueSets(l *Lesson) map[string]sim.Values {
	sets := map[string]sim.Values{"defaults": l.Params.Defaults()}
	for _, p := range l.Params {
		var edges []string
		switch p.Kind {
		case sim.Int:
			edges = []string{strconv.Itoa(int(p.Min)), strconv.Itoa(int(p.Max))}
		case sim.Float:
			edges = []string{strconv.FormatFloat(p.Min, 'g', -1, 64), strconv.FormatFloat(p.Max, 'g', -1, 64)}
		case sim.Choice:
			edges = p.Choices
		case sim.Bool:
			edges = []string{"true", "false"}
		}
		for _, e := range edges {
			v := l.Params.Defaults()
			v[p.Name] = e
			sets[p.Name+"="+e] = v
		}
	}
	return sets
}

// TestLessonModels builds every lesson over its defaults and edge values and checks
// that Steps, At and Static agree with the panels, equations and plots.
func TestLessonModels(t *testing.T) {
	for _, l := range testedLessons() {
		for _, p := range l.Params {
			if _, err := p.Check(p.Default); err != nil {
				t.Errorf("%s: default of %s does not validate: %v", l.Slug, p.Name, err)
			}
		}
		for name, v := range valueSets(l) {
			t.Run(l.Slug+"/"+name, func(t *testing.T) {
				m, err := l.Model(v)
				if err != nil {
					t.Fatalf("build: %v", err)
				}
				checkModel(t, l, m)
				m2, _ := l.Model(v)
				for s := 1; s <= m.Steps(); s++ {
					if !reflect.DeepEqual(m.At(s), m2.At(s)) {
						t.Fatalf("step %d: two builds from the same values differ", s)
					}
				}
				if !reflect.DeepEqual(m.Static(), m2.Static()) {
					t.Fatalf("static: two builds from the same values differ")
				}
			})
		}
	}
}

func checkModel(t *testing.T, l *Lesson, m sim.Model) {
	t.Helper()
	n := m.Steps()
	if n < 1 {
		t.Fatalf("Steps: got %d want ≥ 1", n)
	}
	static := m.Static()
	if _, err := json.Marshal(static.Meta); err != nil {
		t.Fatalf("static meta does not encode: %v", err)
	}
	shapes := map[string][]int{}
	for _, a := range static.Arrays {
		checkArray(t, "static", a)
		shapes[a.Name] = a.Shape
	}
	stepArrays := map[string]bool{}
	for s := 1; s <= n; s++ {
		f := m.At(s)
		if _, err := json.Marshal(f.Meta); err != nil {
			t.Fatalf("step %d meta does not encode: %v", s, err)
		}
		for _, a := range f.Arrays {
			checkArray(t, fmt.Sprintf("step %d", s), a)
			if want, ok := shapes[a.Name]; ok && !reflect.DeepEqual(a.Shape, want) {
				t.Fatalf("step %d: array %s has shape %v, want %v as before", s, a.Name, a.Shape, want)
			}
			shapes[a.Name] = a.Shape
			stepArrays[a.Name] = true
		}
	}
	optional := map[string]bool{} // arrays only Optional panels draw: a model may lack them
	for _, p := range l.Panels {
		for _, a := range p.Arrays {
			if _, ok := l.ArrayNamed(a); !ok {
				t.Errorf("panel %s draws array %q, which the lesson does not declare", p.ID, a)
			}
			optional[a] = p.Optional && (optional[a] || !slices.ContainsFunc(l.Panels, func(q Panel) bool { return !q.Optional && slices.Contains(q.Arrays, a) }))
		}
	}
	symbols := map[string]bool{}
	for _, eq := range l.Equations {
		forms := []string{eq.TeX}
		if eq.Param != "" || eq.Variants != nil { // a variant for a value of a choice the page offers
			i := slices.IndexFunc(l.Params, func(p sim.ParamSpec) bool { return p.Name == eq.Param })
			if i < 0 || l.Params[i].Kind != sim.Choice || len(eq.Variants) == 0 {
				t.Errorf("equation %q depends on %q, which is not a choice of the lesson, or has no variants", eq.TeX, eq.Param)
			}
			for value, tex := range eq.Variants {
				if i >= 0 && !slices.Contains(l.Params[i].Choices, value) {
					t.Errorf("equation variant for %s = %q: not one of its choices", eq.Param, value)
				}
				forms = append(forms, tex)
			}
		}
		for _, sym := range eq.Symbols {
			symbols[sym.ID] = true
			for _, tex := range forms {
				if !strings.Contains(tex, `\htmlClass{sym-`+sym.ID+`}`) {
					t.Errorf("equation %q does not mark symbol %s", tex, sym.ID)
				}
			}
			if _, ok := shapes[sym.Array]; !ok && !optional[sym.Array] {
				t.Errorf("symbol %s names array %q, which no frame has", sym.ID, sym.Array)
			}
		}
	}
	shown := map[string]bool{} // the symbols whose hover highlights a panel
	for _, p := range l.Panels {
		for _, a := range p.Arrays {
			if _, ok := shapes[a]; !ok && !p.Optional {
				t.Errorf("panel %s draws array %q, which no frame has", p.ID, a)
			}
		}
		for _, sym := range append([]string{p.Symbol}, p.Also...) {
			if sym != "" && !symbols[sym] {
				t.Errorf("panel %s has symbol %q, which no equation marks", p.ID, sym)
			}
			shown[sym] = true
		}
		if p.Legend != nil && len(p.Legend) != len(p.Arrays) {
			t.Errorf("panel %s: %d legend names for %d arrays", p.ID, len(p.Legend), len(p.Arrays))
		}
		for _, name := range p.Legend {
			if strings.Contains(PlainLabel(name), "|") {
				t.Errorf("panel %s: legend name %q reads %q on the page, which contains |, the attribute's separator", p.ID, name, PlainLabel(name))
			}
		}
		if p.Kind == Heatmap {
			for _, a := range p.Arrays {
				if _, ok := shapes[a]; !stepArrays[a] && (ok || !p.Optional) {
					t.Errorf("heatmap %s draws %q, which is not a per-step array", p.ID, a)
				}
			}
		}
	}
	for sym := range symbols { // hovering any symbol of the equations lights the panel that shows it
		if !shown[sym] {
			t.Errorf("equation symbol %s lights no panel: give a panel Symbol %q or list it in a panel's Also", sym, sym)
		}
	}
	for _, pl := range l.Plots {
		if (pl.Grid == nil) == (pl.Series == nil) {
			t.Errorf("plot %s: set exactly one of Series and Grid", pl.Name)
			continue
		}
		if pl.Grid != nil {
			g := pl.Grid(unlabelled(m))
			if len(g.Values) != len(g.Rows) || len(g.Rows) == 0 || !(g.Lo < g.Hi) {
				t.Errorf("plot %s: %d rows of values for %d row labels, scale [%v, %v]", pl.Name, len(g.Values), len(g.Rows), g.Lo, g.Hi)
			}
			for r, row := range g.Values {
				if len(row) != len(g.Cols) {
					t.Errorf("plot %s row %d: %d values for %d columns", pl.Name, r, len(row), len(g.Cols))
				}
			}
			continue
		}
		series := pl.Series(unlabelled(m))
		if len(series) == 0 {
			t.Errorf("plot %s: no series", pl.Name)
		}
		for _, s := range series {
			if len(s.X) != len(s.Y) || len(s.X) == 0 {
				t.Errorf("plot %s series %q: got %d x and %d y values", pl.Name, s.Label, len(s.X), len(s.Y))
			}
			for i, y := range s.Y {
				if math.IsNaN(y) || math.IsInf(y, 0) || (pl.LogY && y <= 0) {
					t.Errorf("plot %s series %q: y[%d] = %v cannot be drawn", pl.Name, s.Label, i, y)
				}
			}
		}
	}
}

func checkArray(t *testing.T, where string, a sim.Array) {
	t.Helper()
	size := 1
	for _, d := range a.Shape {
		size *= d
	}
	if len(a.Shape) == 0 || size != len(a.Data) {
		t.Fatalf("%s: array %s has shape %v and %d values", where, a.Name, a.Shape, len(a.Data))
	}
	for i, v := range a.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > math.MaxFloat32 {
			t.Fatalf("%s: array %s[%d] = %v does not fit a float32", where, a.Name, i, v)
		}
	}
}

func TestLessonBadInput(t *testing.T) {
	l, _ := Find("gru")
	for _, input := range []string{"hello", "2 0 x", "|||"} {
		v := l.Params.Defaults()
		v["input"] = input
		_, err := l.Build(v)
		if err == nil {
			t.Errorf("input %q: got no error", input)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "lessons:") || strings.Contains(msg, "models:") || !strings.Contains(msg, "tokens") {
			t.Errorf("input %q: got %q, want a sentence naming the allowed tokens", input, msg)
		}
	}
}

// BenchmarkLessonStep is the server-side cost of one step: building the model from
// its default values and computing the frame of the middle step.
func BenchmarkLessonStep(b *testing.B) {
	for _, l := range Catalog() {
		v := l.Params.Defaults()
		b.Run(l.Slug, func(b *testing.B) {
			for b.Loop() {
				m, err := l.Model(v)
				if err != nil {
					b.Fatal(err)
				}
				m.At((m.Steps() + 1) / 2)
			}
		})
	}
}

// BenchmarkLessonAt is the cost of one frame of an already built model.
func BenchmarkLessonAt(b *testing.B) {
	for _, l := range Catalog() {
		m, err := l.Model(l.Params.Defaults())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(l.Slug, func(b *testing.B) {
			t := 0
			for b.Loop() {
				m.At(t%m.Steps() + 1)
				t++
			}
		})
	}
}

func TestLoadCheckpoints(t *testing.T) {
	if err := LoadCheckpoints(); err != nil {
		t.Fatal(err)
	}
}

// lessonValues is l's default parameter values with changes applied (unchecked: a
// test may pass values the page would refuse).
func lessonValues(l *Lesson, changes map[string]string) sim.Values {
	v := l.Params.Defaults()
	for k, x := range changes {
		v[k] = x
	}
	return v
}

// pageModel builds l's model as a page does (Lesson.Model: its facts labelled) with
// changes applied.
func pageModel(t testing.TB, l *Lesson, changes map[string]string) sim.Model {
	t.Helper()
	m, err := l.Model(lessonValues(l, changes))
	if err != nil {
		t.Fatalf("build %s %v: %v", l.Slug, changes, err)
	}
	return m
}

// buildLesson builds l's model (Build: its adapter, frames unlabelled) with changes
// applied and returns it as M.
func buildLesson[M sim.Model](t testing.TB, l *Lesson, changes map[string]string) M {
	t.Helper()
	m, err := l.Build(lessonValues(l, changes))
	if err != nil {
		t.Fatalf("build %s %v: %v", l.Slug, changes, err)
	}
	return m.(M)
}

var updateGolden = flag.Bool("update", false, "rewrite the lessons' testdata/*-frames.golden files")

// goldenByteExact names the golden files whose bytes cannot depend on the machine: no
// number in them comes from a product or from exp or log (tokens, ids, masks, counts
// and ratios of counts). They compare byte for byte:
//
//	mt-data-frames.golden
//
// Every other golden file holds numbers a model or BLEU computed (sums of products,
// exp, log), rounded for the page or by checkFramesGolden, and some meta values
// unrounded. Their last bits differ by machine (the Go compiler fuses x*y + z on
// arm64; math.Exp is assembly that differs by architecture and CPU), so a value within
// ~1e-15 of a rounding boundary could print one unit apart, and an unrounded value
// differs in its last digits. Those compare byte for byte first and then value by
// value (goldenValueDiffs, printedNear): a rounded number within one unit of its last
// printed digit, an unrounded one within 1e-12 relative, all else equal. Under qemu's
// arm64, most are byte-exact; bptt's unrounded gradient norms are not.
var goldenByteExact = map[string]bool{"mt-data": true}

// checkFramesGolden freezes what a page shows at its defaults: the static frame and
// every step's meta, facts and arrays (rounded to 4 decimals), and the model's passes (its
// step axes), in testdata/<name>-frames.golden.
// Refresh with go test ./lessons -run Golden -update.
func checkFramesGolden(t *testing.T, m sim.Model, name string) {
	t.Helper()
	type frame struct {
		Meta   map[string]any       `json:"meta"`
		Facts  []sim.Fact           `json:"facts,omitempty"`
		Arrays map[string][]float64 `json:"arrays"`
	}
	rounded := func(f sim.Frame) frame {
		out := frame{Meta: f.Meta, Facts: f.Facts, Arrays: map[string][]float64{}}
		for _, a := range f.Arrays {
			v := make([]float64, len(a.Data))
			for i, x := range a.Data {
				v[i] = math.Round(x*1e4) / 1e4
			}
			out.Arrays[a.Name] = v
		}
		return out
	}
	dump := struct {
		Passes []sim.Pass `json:"passes"` // the step axes (sim.Timeline)
		Static frame      `json:"static"`
		Steps  []frame    `json:"steps"`
	}{Passes: sim.PassesOf(m), Static: rounded(m.Static())}
	for s := 1; s <= m.Steps(); s++ {
		dump.Steps = append(dump.Steps, rounded(m.At(s)))
	}
	got, err := json.MarshalIndent(dump, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name+"-frames.golden")
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	if !goldenByteExact[name] {
		diffs, err := goldenValueDiffs(got, want)
		if err == nil && len(diffs) == 0 {
			t.Logf("the %s page's frames differ from %s only in last printed digits (got %d bytes want %d): within tolerance", name, path, len(got), len(want))
			return
		}
		if len(diffs) > 10 {
			diffs = append(diffs[:10], fmt.Sprintf("… %d more", len(diffs)-10))
		}
		t.Errorf("values that differ beyond one unit of their last printed digit (%v):\n%s", err, strings.Join(diffs, "\n"))
	}
	t.Errorf("the %s page's frames differ from %s (got %d bytes want %d); if the change is intended, refresh with go test ./lessons -run Golden -update", name, path, len(got), len(want))
}

// goldenValueDiffs compares two golden files' JSON value by value and lists where they
// differ: objects need the same keys, arrays the same length, booleans and nulls the
// same value; a number may be one unit of its last printed digit away (printedNear),
// and a string may differ only in the numbers it contains, each likewise.
func goldenValueDiffs(got, want []byte) ([]string, error) {
	return testkit.JSONDiffs(got, want, func(g, w json.Number) bool { return printedNear(string(g), string(w)) }, textNear)
}

// printedNumber is a number as the lessons print it in text: "0.85", "-1.2e-05", "3".
var printedNumber = regexp.MustCompile(`-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?`)

// printedNear reports whether two printed numbers can be the same value rounded on
// two machines: equal, or one unit of the last printed digit apart, the finer of the
// two (a value rounded to 4 decimals prints as "0.85" or "0.8501"; across a rounding
// boundary one of the pair always shows the rounding's last digit). Two integers must
// be equal. A number printed unrounded (fullPrecision digits) may be
// unroundedTolerance away instead.
func printedNear(a, b string) bool {
	if a == b {
		return true
	}
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA != nil || errB != nil {
		return false
	}
	integer := func(s string) bool { return !strings.ContainsAny(s, ".eE") }
	if x == y || integer(a) && integer(b) {
		return x == y
	}
	unit := func(s string) float64 { // one in the last printed digit
		mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
		e, _ := strconv.Atoi(exp)
		if _, frac, ok := strings.Cut(mant, "."); ok {
			e -= len(frac)
		}
		return math.Pow(10, float64(e))
	}
	if significantDigits(a) >= fullPrecision || significantDigits(b) >= fullPrecision {
		// A value printed unrounded (strconv's shortest form) carries the machine's
		// rounding in its last digits: after a few fused multiply-adds it may be several
		// units of the 17th digit away (bptt's gradient norms on arm64: 1e-15 relative).
		return math.Abs(x-y) <= unroundedTolerance*max(math.Abs(x), math.Abs(y))
	}
	return math.Abs(x-y) <= min(unit(a), unit(b))*(1+1e-9)
}

// fullPrecision: a number printed with this many significant digits or more was not
// rounded for the page (those have at most 8).
const fullPrecision = 12

// unroundedTolerance is the relative difference allowed between two unrounded values
// (fullPrecision) that came from the same sums on different machines.
const unroundedTolerance = 1e-12

// significantDigits counts the digits of a printed number from its first non-zero one,
// exponent excluded: 0.0030433 has 5.
func significantDigits(s string) int {
	mant, _, _ := strings.Cut(strings.ToLower(s), "e")
	digits := strings.TrimLeft(strings.NewReplacer("-", "", ".", "").Replace(mant), "0")
	return len(digits)
}

// textNear reports whether two strings are the same but for the numbers printed in
// them, each pair printedNear.
func textNear(a, b string) bool {
	if a == b {
		return true
	}
	na, nb := printedNumber.FindAllString(a, -1), printedNumber.FindAllString(b, -1)
	if len(na) != len(nb) || !slices.Equal(printedNumber.Split(a, -1), printedNumber.Split(b, -1)) {
		return false
	}
	for i := range na {
		if !printedNear(na[i], nb[i]) {
			return false
		}
	}
	return true
}

// arrayOf is the data of the frame's array called name, nil when there is none.
func arrayOf(f sim.Frame, name string) []float64 {
	for _, a := range f.Arrays {
		if a.Name == name {
			return a.Data
		}
	}
	return nil
}

// TestTrainingReplays: a lesson's model is determined by its values and the number of
// training steps it has taken (sim.Run.Trained), which is what a page's URL records
// (trained=N) and what the server replays for a shared URL and an export.
func TestTrainingReplays(t *testing.T) {
	const n = 2
	for _, l := range testedLessons() {
		if !l.Trains {
			continue
		}
		t.Run(l.Slug, func(t *testing.T) {
			build := func(steps int) sim.Model {
				m, err := l.Model(l.Params.Defaults())
				if err != nil {
					t.Fatal(err)
				}
				if err := sim.Replay(context.Background(), nil, m, steps); err != nil {
					t.Fatal(err)
				}
				return m
			}
			frames := func(m sim.Model) []sim.Frame {
				out := []sim.Frame{m.Static()}
				for s := 1; s <= m.Steps(); s++ {
					out = append(out, m.At(s))
				}
				return out
			}
			a, b, fresh := frames(build(n)), frames(build(n)), frames(build(0))
			if !reflect.DeepEqual(a, b) {
				t.Errorf("two models trained %d steps from the same values show different frames", n)
			}
			if reflect.DeepEqual(a, fresh) {
				t.Errorf("training %d steps changed no frame", n)
			}
		})
	}
}

// TestParamLabelsDoNotRepeatSymbols: the page draws a parameter's symbol in front of its
// label, so the label must not say it again ("τ temperature τ", "T num_steps T").
func TestParamLabelsDoNotRepeatSymbols(t *testing.T) {
	greek := strings.NewReplacer(`\rho`, "ρ", `\phi`, "φ", `\theta`, "θ", `\tau`, "τ", `\alpha`, "α")
	for _, l := range testedLessons() {
		for _, p := range l.Params {
			if p.Symbol == "" {
				continue
			}
			// the symbol as KaTeX shows it, without its subscript or argument: ρ(W_{hh}) → ρ
			shown := greek.Replace(p.Symbol)
			if i := strings.IndexAny(shown, "(_"); i > 0 {
				shown = shown[:i]
			}
			words := strings.FieldsFunc(p.Label, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
			if slices.Contains(words, shown) {
				t.Errorf("%s: parameter %s: label %q repeats its symbol %s", l.Slug, p.Name, p.Label, shown)
			}
		}
	}
}

// TestStageNamesPanels: every main panel a lesson names for presenter mode's stage is
// one of its panels, named once.
func TestStageNamesPanels(t *testing.T) {
	for _, l := range testedLessons() {
		seen := map[string]bool{}
		for _, id := range l.Stage {
			if !slices.ContainsFunc(l.Panels, func(p Panel) bool { return p.ID == id }) {
				t.Errorf("%s: Stage names %q, which is not a panel", l.Slug, id)
			}
			if seen[id] {
				t.Errorf("%s: Stage names %q twice", l.Slug, id)
			}
			seen[id] = true
		}
	}
}
