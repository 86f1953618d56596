package exports

import (
	"slices"
	"testing"
)

// TestTopKFigure: a top-k figure lists, most likely first, the lesson's own top-k
// list where the step's meta has one (the rnn page), else the five most likely
// entries of the panel's array at the step, named by the array's labels (attention).
func TestTopKFigure(t *testing.T) {
	l := lessonNamed(t, "rnn")
	m := built(t, l)
	v := viewAt(t, l, m, m.Steps()/2)
	f, err := Panel(v, panelNamed(t, l, "P"))
	if err != nil {
		t.Fatal(err)
	}
	var list []topEntry
	if err := decodeMeta(v.Frames[v.Step()-1].Meta["topk"], &list); err != nil || len(list) == 0 {
		t.Fatalf("rnn: no topk meta at step %d: %v", v.Step(), err)
	}
	rows := f.Tables[0].Rows
	if len(rows) != len(list) {
		t.Fatalf("rnn: %d rows, want the lesson's %d", len(rows), len(list))
	}
	for i, e := range list {
		if rows[i].Label != shownToken(e.name()) || rows[i].Cells[0].Bar != e.P {
			t.Errorf("rnn: row %d is %q at %v, want %q at %v", i+1, rows[i].Label, rows[i].Cells[0].Bar, e.name(), e.P)
		}
	}

	l = lessonNamed(t, "attention")
	p := panelNamed(t, l, "softmax")
	m = built(t, l)
	v = viewAt(t, l, m, m.Steps())
	f, err = Panel(v, p)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := v.At(p.Arrays[0], v.Step())
	decl, _ := l.ArrayNamed(p.Arrays[0])
	var labels []string
	if err := decodeMeta(m.Static().Meta[decl.Labels], &labels); err != nil || len(labels) != len(a.Data) {
		t.Fatalf("attention: %d labels for %d entries: %v", len(labels), len(a.Data), err)
	}
	sorted := slices.Clone(a.Data)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	rows = f.Tables[0].Rows
	if len(rows) != arrayK {
		t.Fatalf("attention: %d rows, want %d", len(rows), arrayK)
	}
	for i, r := range rows {
		j := slices.Index(a.Data, r.Cells[0].Bar)
		if r.Cells[0].Bar != sorted[i] || j < 0 || r.Label != shownToken(labels[j]) {
			t.Errorf("attention: row %d is %q at %v, want rank %d's %v", i+1, r.Label, r.Cells[0].Bar, i+1, sorted[i])
		}
	}
}
