package exports

import (
	"testing"

	"unroll/figures"
)

// TestTokensFigure: the tokens figure marks the tokens read now, and only them: on
// the GRU page the step's own token, right or wrong as the step's meta says; on the
// bidirectional page both passes' tokens, t = s forward and t = T + 1 − s backward.
func TestTokensFigure(t *testing.T) {
	for _, c := range []struct {
		slug string
		now  func(s, T int) []int
	}{
		{"gru", func(s, T int) []int { return []int{s} }},
		{"birnn", func(s, T int) []int { return []int{s, T + 1 - s} }},
	} {
		l := lessonNamed(t, c.slug)
		p := panelNamed(t, l, "tokens")
		m := built(t, l)
		tokens, _ := m.Static().Meta["tokens"].([]string)
		if len(tokens) == 0 {
			t.Fatalf("%s: no static tokens", c.slug)
		}
		verdicts := 0
		for _, s := range []int{2, m.Steps() / 2} {
			v := viewAt(t, l, m, s)
			f, err := Panel(v, p)
			if err != nil {
				t.Fatal(err)
			}
			rows := f.Tables[0].Rows
			want := map[int]bool{}
			for _, tt := range c.now(s, m.Steps()) {
				want[tt] = true
			}
			if rows[0].Label != "input" {
				t.Fatalf("%s: the first row is %q, want the input", c.slug, rows[0].Label)
			}
			for i, cell := range rows[0].Cells {
				if got := cell.Mark.Has(figures.Current); got != want[i+1] {
					t.Errorf("%s step %d: input token %d (%q) marked current %v, want %v", c.slug, s, i+1, cell.Text, got, want[i+1])
				}
				if want[i+1] && cell.Text != shownToken(tokens[i]) {
					t.Errorf("%s step %d: the current token reads %q, want %q", c.slug, s, cell.Text, tokens[i])
				}
			}
			for _, r := range rows {
				if r.Label != "predicted" {
					continue
				}
				for i, cell := range r.Cells[:s] {
					right, ok := v.Frames[i].Meta["correct"].(bool)
					if ok {
						verdicts++
					}
					if ok && (cell.Mark.Has(figures.Match) != right || cell.Mark.Has(figures.Wrong) == right) {
						t.Errorf("%s step %d: the prediction at step %d is marked %b, want right = %v", c.slug, s, i+1, cell.Mark, right)
					}
				}
			}
		}
		if c.slug == "gru" && verdicts == 0 {
			t.Errorf("gru: no prediction's verdict was checked")
		}
	}
}
