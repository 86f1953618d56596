package lessons

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"unroll/data"
	"unroll/sim"
	"unroll/zoo"
)

// workedExample is the lesson of docs/lessons.md's worked example ("A worked example: a
// page that reuses a model and its panels"), which the docs call skipLesson in
// lessons/skip.go. TestWorkedExampleIsTheDocs holds the docs' code block to this
// literal byte for byte, and the catalog-wide tests check it as one of the catalog's
// (testedLessons), so the example cannot drift from what compiles and passes.
var workedExample = &Lesson{
	Slug: "gru-skip", Short: "Skipping", Section: "4.3", Title: "How a GRU skips a token",
	Summary: "Follow the update gate of the bundled skip-task GRU as it holds its state through filler tokens.",
	Prose:   []string{`The update gate \(Z_t\) mixes the old state with the candidate. …`},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-Z}{Z_t} = \sigma(\htmlClass{sym-X}{X_t} W_{xz} + H_{t-1} W_{hz} + b_z)`,
			Symbols: []Symbol{{ID: "Z", Array: "Z"}, {ID: "X", Array: "X"}}},
		{TeX: `\htmlClass{sym-H}{H_t} = Z_t \odot H_{t-1} + (1 - Z_t) \odot \tilde H_t`,
			Symbols: []Symbol{{ID: "H", Array: "H"}}},
	},
	Arrays: []Array{
		{Name: "X", Label: `\(X_t\)`, Axes: []Axis{Vocabulary}, PerStep: true},
		{Name: "Z", Label: `\(Z_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "H", Label: `\(H_t\)`, Axes: []Axis{Units}, PerStep: true},
	},
	Loss: "loss_curve",
	Panels: []Panel{
		{ID: "tokens", Static: []string{"tokens", "answers"}, Meta: []string{"prediction", "correct"},
			Kind: Tokens, Title: "input tokens", Arrays: []string{"X"}, Symbol: "X"},
		{ID: "Z", Static: []string{"tokens"}, Kind: Heatmap, Title: `update gate \(Z_t\)`,
			Arrays: []string{"Z"}, Scale: []float64{0, 1}, Symbol: "Z"},
		{ID: "H", Static: []string{"tokens"}, Kind: Heatmap, Title: `hidden state \(H_t\)`,
			Arrays: []string{"H"}, Scale: []float64{-1, 1}, Symbol: "H"},
	},
	Params: sim.Specs{ // what buildGRU reads, narrowed to the skip task
		{Name: "task", Label: "task", Kind: sim.Choice, Default: "skip", Choices: []string{"skip"}},
		{Name: "input", Label: "input sequence", Kind: sim.Text, MaxLen: 2 * data.MaxInputLen,
			MaxLenWhy: "a sequence of at most 40 tokens (and the spaces between them) fits the heatmaps, one column a token"},
		{Name: "clamp", Label: "clamp a gate", Kind: sim.Choice, Default: "none", Choices: []string{"none", "Z"}},
		{Name: "clamp_value", Label: "clamped value", Kind: sim.Float, Default: "0", Min: 0, Max: 1, Step: 0.05},
		{Name: "variant", Label: "GRU form", Kind: sim.Choice, Default: zoo.VariantLecture, Choices: []string{zoo.VariantLecture}},
		{Name: "seed", Label: "seed", Kind: sim.Int, Default: "1", Min: 1, Max: 1_000_000, Step: 1, Advanced: true},
	},
	Build:        buildGRU, // the gru page's adapter: same model, same frames
	Facts:        gruFacts, // and the same facts
	Trains:       true,
	MaxTrained:   10000,
	Largest:      sim.Values{"input": strings.Repeat("1_2_", 10)},
	SessionBytes: 144 << 10,
	TrainedBytes: 400 << 10,
}

// testedLessons are the lessons the catalog-wide tests check: the catalog's and the
// worked example (once: not again when the catalog lists it, as the docs have one do).
func testedLessons() []*Lesson {
	ls := Catalog()
	if _, listed := Find(workedExample.Slug); !listed {
		ls = append(ls, workedExample)
	}
	return ls
}

// TestWorkedExampleIsTheDocs: the code block of docs/lessons.md's worked example is
// workedExample's literal byte for byte, under the name the docs give it
// ("var skipLesson = &Lesson{…}").
func TestWorkedExampleIsTheDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/lessons.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "### A worked example")
	_, block, ok2 := strings.Cut(section, "```go\n")
	block, _, ok3 := strings.Cut(block, "\n```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/lessons.md: no Go code block under the heading \"A worked example\"")
	}
	const file = "worked_example_test.go"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lit ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		if v, ok := n.(*ast.ValueSpec); ok && v.Names[0].Name == "workedExample" {
			lit = v.Values[0]
		}
		return lit == nil
	})
	if lit == nil {
		t.Fatalf("%s declares no workedExample", file)
	}
	want := "var skipLesson = " + string(src[fset.Position(lit.Pos()).Offset:fset.Position(lit.End()).Offset])
	if block == want {
		return
	}
	got, wantLines := strings.Split(block, "\n"), strings.Split(want, "\n")
	for i := range max(len(got), len(wantLines)) {
		g, w := "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if g != w {
			t.Fatalf("docs/lessons.md's worked example differs from lessons/%s at its line %d:\n docs: %s\n test: %s", file, i+1, g, w)
		}
	}
}
