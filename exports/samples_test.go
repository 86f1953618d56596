package exports

import (
	"maps"
	"strings"
	"testing"

	"unroll/figures"
	"unroll/sim"
)

// TestSamplesFigure: the samples figure lists the static sample translations, each
// output marked right exactly where it equals its reference; without the static
// scores (a model that never reported any) the export says there is nothing to draw.
func TestSamplesFigure(t *testing.T) {
	l := lessonNamed(t, "seq2seq")
	p := panelNamed(t, l, "samples")
	m := built(t, l)
	v := viewAt(t, l, m, 0)
	f, err := Panel(v, p)
	if err != nil {
		t.Fatal(err)
	}
	var samples []sample
	if decodeMeta(m.Static().Meta["samples"], &samples) != nil || len(samples) == 0 {
		t.Fatal("seq2seq has no static samples")
	}
	tab := f.Tables[len(f.Tables)-1]
	if len(tab.Rows) != len(samples) {
		t.Fatalf("%d sample rows, want %d", len(tab.Rows), len(samples))
	}
	for i, s := range samples {
		out := tab.Rows[i].Cells[1]
		if out.Text != s.Output || out.Mark.Has(figures.Match) != (s.Output == s.Reference) {
			t.Errorf("sample %d: %q marked %b, reference %q", i+1, out.Text, out.Mark, s.Reference)
		}
	}
	bare := v
	bare.Static = sim.Frame{Arrays: v.Static.Arrays, Meta: maps.Clone(v.Static.Meta)}
	delete(bare.Static.Meta, "samples")
	delete(bare.Static.Meta, "bleu_curve")
	if _, err := Panel(bare, p); err == nil || !strings.Contains(err.Error(), "nothing to draw") {
		t.Errorf("without scores: %v, want nothing to draw", err)
	}
}
