package exports

import (
	"testing"

	"unroll/figures"
)

// TestEncDecFigure: the seq2seq diagram after the last step has a decoder output
// node per computed step of each run, reading the run's output meta, marked right or
// wrong by its correct meta; the free run's first divergence is outlined; the current
// step's output is marked current.
func TestEncDecFigure(t *testing.T) {
	l := lessonNamed(t, "seq2seq")
	p := panelNamed(t, l, "diagram")
	m := built(t, l)
	v := viewAt(t, l, m, m.Steps())
	f, err := Panel(v, p)
	if err != nil {
		t.Fatal(err)
	}
	var rows []decRow
	if decodeMeta(m.Static().Meta["dec_rows"], &rows) != nil || len(rows) != 2 {
		t.Fatal("seq2seq has not two decoder runs")
	}
	texts := map[string]figures.Mark{}
	for _, n := range f.Diagram.Nodes {
		texts[n.Text] |= n.Mark
	}
	checked := 0
	for s := 1; s <= v.Step(); s++ {
		for _, r := range rows {
			in, okIn := stepString(v, s, r.Input)
			out, okOut := stepString(v, s, r.Output)
			if !okIn || !okOut {
				continue
			}
			checked++
			marks, ok := texts[shownToken(out)]
			if !ok {
				t.Errorf("step %d, %s: no node reads the output %q (input %q)", s, r.Label, out, in)
			}
			var right bool
			if metaAt(v, p, s, r.Correct, &right) {
				if want := figures.Match; right && !marks.Has(want) || !right && !marks.Has(figures.Wrong) {
					t.Errorf("step %d, %s: the output %q is not marked right = %v", s, r.Label, out, right)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no decoder step to check")
	}
	best, current := 0, 0
	for _, n := range f.Diagram.Nodes {
		if n.Mark.Has(figures.Best) {
			best++
		}
		if n.Mark.Has(figures.Current) {
			current++
		}
	}
	diverges := 0
	for s := 1; s <= v.Step(); s++ {
		if d, _ := v.Frames[s-1].Meta["diverges_here"].(bool); d {
			diverges++
		}
	}
	if best != diverges {
		t.Errorf("%d outputs outlined as diverging, want %d", best, diverges)
	}
	if current == 0 {
		t.Errorf("no node marks the current step")
	}
}
