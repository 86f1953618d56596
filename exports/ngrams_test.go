package exports

import (
	"fmt"
	"strings"
	"testing"

	"unroll/figures"
)

// TestNGramsFigure: at step n the bleu figure puts each n-gram of order n in its lane
// under the candidate, marked credited, clipped or in no reference as the lesson's
// counts say, and states p_n = Σ matched / n-grams from them; after max_n steps it
// shows the WER alignment, an edit per column.
func TestNGramsFigure(t *testing.T) {
	l := lessonNamed(t, "bleu")
	p := panelNamed(t, l, "ngrams")
	m := built(t, l)
	var grams []ngram
	var edits []edit
	var maxN int
	if decodeMeta(m.Static().Meta["ngrams"], &grams) != nil || decodeMeta(m.Static().Meta["edits"], &edits) != nil || decodeMeta(m.Static().Meta["max_n"], &maxN) != nil || maxN == 0 {
		t.Fatal("the bleu lesson's static meta has no n-grams")
	}
	for n := 1; n <= maxN; n++ {
		f, err := Panel(viewAt(t, l, m, n), p)
		if err != nil {
			t.Fatal(err)
		}
		rows := f.Tables[0].Rows
		matched, total, seen := 0, 0, map[string]bool{}
		for _, g := range grams {
			if g.N != n {
				continue
			}
			total++
			if k := strings.Join(g.Words, " "); !seen[k] {
				seen[k] = true
				matched += g.Matched
			}
			want := figures.Faint | figures.Wrong
			switch {
			case g.Credited:
				want = figures.Match
			case g.Clip > 0:
				want = figures.Clipped
			}
			lane := rows[1+g.Start%n] // the candidate, then the lanes
			for i := g.Start; i < g.Start+n; i++ {
				if lane.Cells[i].Mark != want {
					t.Errorf("step %d: %q at word %d is marked %b, want %b", n, strings.Join(g.Words, " "), i+1, lane.Cells[i].Mark, want)
				}
			}
		}
		if total == 0 {
			continue
		}
		want := fmt.Sprintf("p%d = Σ matched / n-grams = %d/%d", n, matched, total)
		if got := f.Tables[1].Notes; len(got) != 1 || got[0] != want {
			t.Errorf("step %d: the note is %q, want %q", n, got, want)
		}
	}
	f, err := Panel(viewAt(t, l, m, maxN+1), p)
	if err != nil {
		t.Fatal(err)
	}
	rows := f.Tables[0].Rows
	for i, e := range edits {
		if rows[0].Cells[i].Text != orDash(e.RefWord) || rows[1].Cells[i].Text != orDash(e.HypWord) {
			t.Errorf("alignment column %d reads %q over %q, want %q over %q", i+1, rows[0].Cells[i].Text, rows[1].Cells[i].Text, e.RefWord, e.HypWord)
		}
		if (e.Kind == "match") != (rows[1].Cells[i].Mark == 0) {
			t.Errorf("alignment column %d (%s) is marked %b", i+1, e.Kind, rows[1].Cells[i].Mark)
		}
	}
}

// TestNGramsFigureTER: after max_n steps the bleu figure also shows TER on the same
// pair, as ngrams.js does: "sat on the mat the cat" against "the cat sat on the mat"
// moves "the cat" (marked, and named in a note) to the front, and the shifted
// candidate's alignment with the reference is all matches.
func TestNGramsFigureTER(t *testing.T) {
	l := lessonNamed(t, "bleu")
	p := panelNamed(t, l, "ngrams")
	vals, err := l.Params.Apply(l.Params.Defaults(), map[string]string{"example": "typed", "candidate": "sat on the mat the cat", "references": "the cat sat on the mat"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := l.Build(vals)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Panel(viewAt(t, l, m, m.Steps()), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Tables) != 2 {
		t.Fatalf("got %d tables, want WER's alignment and TER's", len(f.Tables))
	}
	ter := f.Tables[1]
	for i, c := range ter.Rows[0].Cells {
		if (i >= 4) != (c.Mark == figures.Accent) {
			t.Errorf("candidate word %d (%q) is marked %b; only “the cat” (words 5 and 6) moves", i+1, c.Text, c.Mark)
		}
	}
	var shifted []string
	for i, c := range ter.Rows[1].Cells {
		shifted = append(shifted, c.Text)
		if (i < 2) != (c.Mark == figures.Accent) {
			t.Errorf("shifted word %d (%q) is marked %b; only “the cat” (now words 1 and 2) moved", i+1, c.Text, c.Mark)
		}
	}
	if got := strings.Join(shifted, " "); got != "the cat sat on the mat" {
		t.Errorf("the shifted row reads %q", got)
	}
	if len(ter.Notes) != 2 || ter.Notes[0] != "shift 1: “the cat” from word 5 to word 1" || !strings.Contains(ter.Notes[1], "(1 + 0 + 0 + 0)/6 = 0.1667") {
		t.Errorf("TER's notes are %q", ter.Notes)
	}
	for i, c := range ter.Rows[3].Cells {
		if c.Text != "C" {
			t.Errorf("TER's edit %d is %q, want C (a match)", i+1, c.Text)
		}
	}
}
