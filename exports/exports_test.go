package exports

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"unroll/figures"
	"unroll/lessons"
	"unroll/sim"
)

func TestMain(m *testing.M) {
	if err := lessons.LoadCheckpoints(); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// view builds lesson l at its defaults and steps it to step (−1: the last).
func view(t *testing.T, l *lessons.Lesson, step int) View {
	t.Helper()
	m, err := l.Build(l.Params.Defaults())
	if err != nil {
		t.Fatalf("%s: build: %v", l.Slug, err)
	}
	if step < 0 {
		step = m.Steps()
	}
	v, err := NewView(context.Background(), l, m, step)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestEveryDataPanelDraws: every panel of the data kinds of every lesson exports at
// the last step as a PNG that decodes at the figure's size; the ones that need a
// step say so before the first.
func TestEveryDataPanelDraws(t *testing.T) {
	out := os.Getenv("UNROLL_EXPORTS_DIR") // to look at them: UNROLL_EXPORTS_DIR=/tmp/x go test ./exports
	for _, l := range lessons.Catalog() {
		last := view(t, l, -1)
		for _, p := range l.Panels {
			if !Exportable(p) {
				continue
			}
			f, err := Panel(last, p)
			if Lacks(last, p) { // an Optional panel of values this model does not have (yours: an LSTM's R_t)
				if err == nil || !strings.Contains(err.Error(), "has none of the values") {
					t.Errorf("%s/%s: the model lacks its arrays, but the export says %v", l.Slug, p.ID, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s/%s at the last step: %v", l.Slug, p.ID, err)
				continue
			}
			b, err := figures.Draw(f, figures.PNG, pngOptions())
			if err != nil {
				t.Fatalf("%s/%s: %v", l.Slug, p.ID, err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil || img.Bounds().Dx() != pngOptions().Width {
				t.Errorf("%s/%s: PNG %v, %v", l.Slug, p.ID, err, img.Bounds())
			}
			if out != "" {
				_ = os.WriteFile(filepath.Join(out, l.Slug+"-"+p.ID+".png"), b, 0o644)
			}
		}
	}
}

// TestTrainingLossPanel: a lesson that trains exports its training-loss panel once
// its model has trained: L of each step, as the page's panel draws it.
func TestTrainingLossPanel(t *testing.T) {
	l := lessonNamed(t, "gru")
	p, ok := Find(l, TrainingLoss.ID)
	if !ok {
		t.Fatal("the gru lesson has no training-loss export")
	}
	m, err := l.Build(l.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := NewView(context.Background(), l, m, 0); true {
		if _, err := Panel(v, p); err == nil || !strings.Contains(err.Error(), "train it first") {
			t.Errorf("untrained: got %v, want an error saying to train first", err)
		}
	}
	if err := sim.Replay(context.Background(), nil, m, 5); err != nil {
		t.Fatal(err)
	}
	v, _ := NewView(context.Background(), l, m, 0)
	f, err := Panel(v, p)
	if err != nil || len(f.Series) != 1 || len(f.Series[0].Y) != 5 {
		t.Fatalf("after 5 steps: %v, %+v", err, f.Series)
	}
	if rows := strings.Count(string(CSV(v, p)), "\n"); rows != 6 {
		t.Errorf("the CSV has %d lines, want a header and 5 losses", rows)
	}
}

// TestBLEUCurveExport: a translator's samples panel has an extra export, its held-out
// BLEU curve, on the page's axis 0 … 1, with its numbers.
func TestBLEUCurveExport(t *testing.T) {
	l := lessonNamed(t, "seq2seq")
	p, ok := Find(l, "samples-bleu")
	if !ok {
		t.Fatal("seq2seq has no BLEU curve export")
	}
	v := view(t, l, 0)
	f, err := Panel(v, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Series) != 1 || len(f.Series[0].Y) == 0 || len(f.YScale) != 2 || f.YScale[1] != 1 {
		t.Fatalf("got %+v, want one curve on 0 … 1", f)
	}
	rows := strings.Split(strings.TrimSpace(string(CSV(v, p))), "\n")
	if rows[0] != "symbol,training step,value" || len(rows) != 1+len(f.Series[0].Y) {
		t.Errorf("CSV %q", rows)
	}
}

// TestShownFollowsTheNotation: a figure pack holds the panels the page shows at its
// values; the gru page's convention switch swaps Z_t's panel for Γ_u = 1 − Z_t's.
func TestShownFollowsTheNotation(t *testing.T) {
	var gru *lessons.Lesson
	for _, l := range lessons.Catalog() {
		if l.Slug == "gru" {
			gru = l
		}
	}
	ids := func(convention string) []string {
		v := gru.Params.Defaults()
		v["convention"] = convention
		var out []string
		for _, p := range Shown(gru, v) {
			out = append(out, p.ID)
		}
		return out
	}
	lecture, other := ids("lecture"), ids("lecture-003")
	if !slices.Contains(lecture, "Z") || slices.Contains(lecture, "Gamma_u") {
		t.Errorf("lecture convention: panels %v, want Z and not Gamma_u", lecture)
	}
	if slices.Contains(other, "Z") || !slices.Contains(other, "Gamma_u") {
		t.Errorf("lecture-003 convention: panels %v, want Gamma_u and not Z", other)
	}
	if len(Shown(gru, gru.Params.Defaults())) >= len(Panels(gru)) {
		t.Errorf("every panel is shown at the defaults, though one is for the other convention")
	}
}

// TestLossNamedAsThePage: the training-loss export names the loss as the page's
// heading does at the view's values: L for skip-gram, J for GloVe (lecture 003).
func TestLossNamedAsThePage(t *testing.T) {
	l, _ := lessons.Find("embeddings")
	for method, want := range map[string]string{"skip-gram": `\(L\)`, "GloVe": `\(J\)`} {
		v := View{Lesson: l, Loss: []float64{2, 1}, Values: l.Params.Defaults()}
		v.Values["method"] = method
		f, err := lossFigure(v, TrainingLoss)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(f.Title, want) || f.YLabel != want {
			t.Errorf("method %s: title %q, y label %q; want them to name %s", method, f.Title, f.YLabel, want)
		}
	}
}
