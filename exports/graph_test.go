package exports

import (
	"testing"

	"unroll/figures"
)

// TestGraphFigure: the unfolded graph of the bidirectional RNN at step s tints the
// columns t = s (forward) and t = T + 1 − s (backward), and draws a state (a colour
// strip) for exactly the nodes computed so far: s forward ones and s backward ones.
func TestGraphFigure(t *testing.T) {
	l := lessonNamed(t, "birnn")
	p := panelNamed(t, l, "graph")
	m := built(t, l)
	T := m.Steps()
	for _, s := range []int{1, T / 2, T} {
		f, err := Panel(viewAt(t, l, m, s), p)
		if err != nil {
			t.Fatal(err)
		}
		d := f.Diagram
		want := map[float64]bool{}
		for _, tt := range []int{s, T + 1 - s} {
			want[graphLeft+(float64(tt-1)+0.5)*graphCol] = true
		}
		got := map[float64]bool{}
		for _, b := range d.Bands {
			if b.Mark.Has(figures.Current) {
				got[b.X+b.W/2] = true
			}
		}
		if len(got) != len(want) {
			t.Errorf("step %d: %d current columns, want %d", s, len(got), len(want))
		}
		for x := range want {
			if !got[x] {
				t.Errorf("step %d: the column at x = %v is not tinted", s, x)
			}
		}
		strips := 0
		for _, n := range d.Nodes {
			if len(n.Strip) > 0 {
				strips++
			}
		}
		if strips != 2*s {
			t.Errorf("step %d: %d states drawn, want %d", s, strips, 2*s)
		}
	}
}
