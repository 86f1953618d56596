package exports

import (
	"fmt"
	"strconv"
	"strings"

	"unroll/figures"
	"unroll/lessons"
	"unroll/models"
)

// ngram is one candidate n-gram occurrence as the bleu lesson's static "ngrams" holds
// it, decoded as the page gets it.
type ngram = models.NGram

// edit is one column of the word error rate's alignment (models.Edit).
type edit struct {
	Kind    string `json:"kind"`
	HypPos  int    `json:"hyp_pos"`
	RefWord string `json:"ref_word"`
	HypWord string `json:"hyp_word"`
}

// terView is TER on the pair WER aligns, as the bleu lesson's static "ter" holds it
// (lessons.terView): the shifts in order, each with its block's positions in the
// original candidate, and the shifted candidate's alignment.
type terView struct {
	Shifts []struct {
		Words []string `json:"words"`
		From  int      `json:"from"`
		To    int      `json:"to"`
		Block []int    `json:"block"`
	} `json:"shifts"`
	Origin    []int  `json:"origin"`
	Alignment []edit `json:"alignment"`
	Edits     int    `json:"edits"`
}

// ngramMark is an n-gram's status as a mark: credited (matched within its clip),
// clipped (in a reference, but over its clip count) or in no reference.
func ngramMark(g ngram) figures.Mark {
	switch {
	case g.Credited:
		return figures.Match
	case g.Clip > 0:
		return figures.Clipped
	}
	return figures.Faint | figures.Wrong
}

// ngramKey explains the n-gram marks.
var ngramKey = []figures.KeyEntry{
	{Mark: figures.Match, Text: "credited"},
	{Mark: figures.Clipped, Text: "clipped"},
	{Mark: figures.Faint | figures.Wrong, Text: "in no reference"},
}

// ngramsFigure draws BLEU's matching (ngrams.js). Step n ≤ max_n: the candidate with
// its n-grams of order n in lanes under it (credited, clipped, in no reference), the
// references with the words the credited ones matched, and the count, clip and
// matched of each distinct n-gram with p_n; the step after: the WER alignment, then
// TER's shifts and alignment on the same pair.
func ngramsFigure(v View, p lessons.Panel) (figures.Figure, error) {
	var cand []string
	if !staticOf(v, p, "candidate", &cand) {
		return figures.Figure{}, errNoData(p, "no candidate")
	}
	var refs [][]string
	var grams []ngram
	var edits []edit
	var maxN int
	var ter terView
	staticOf(v, p, "references", &refs)
	staticOf(v, p, "ngrams", &grams)
	staticOf(v, p, "edits", &edits)
	staticOf(v, p, "max_n", &maxN)
	f := figures.Figure{Title: stepTitle(v, p)}
	if v.Step() > maxN {
		f.Tables = []figures.Table{alignmentTable(v, p, edits)}
		if staticOf(v, p, "ter", &ter) && ter.Alignment != nil {
			f.Tables = append(f.Tables, terTable(v, p, cand, ter))
		}
		return f, nil
	}
	n := v.Step()
	var these []ngram
	for _, g := range grams {
		if n > 0 && g.N == n {
			these = append(these, g)
		}
	}
	words := figures.Table{Title: "the candidate and its " + strconv.Itoa(n) + "-grams"}
	if n == 0 {
		words.Title = "the candidate and the references"
	}
	row := figures.Row{Label: "candidate"}
	for _, w := range cand {
		row.Cells = append(row.Cells, figures.Cell{Text: shownToken(w)})
	}
	words.Rows = append(words.Rows, row)
	// lane k holds the n-grams starting at positions ≡ k (mod n), so overlapping
	// n-grams never share a lane; a cell covered by an n-gram carries its mark and
	// the n-gram's first word starts it ("the cat" reads [the cat][cat …])
	for lane := range n {
		row := figures.Row{Label: fmt.Sprintf("%d-grams", n)}
		if n > 1 {
			row.Label += fmt.Sprintf(" (lane %d)", lane+1)
		}
		row.Cells = make([]figures.Cell, len(cand))
		for i := range row.Cells {
			row.Cells[i].Mark = figures.Pending
		}
		for _, g := range these {
			if g.Start%n != lane {
				continue
			}
			for i := g.Start; i < g.Start+n && i < len(cand); i++ {
				row.Cells[i] = figures.Cell{Mark: ngramMark(g)}
			}
			row.Cells[g.Start].Text = "“" + strings.Join(g.Words, " ") + "”"
			if n > 1 {
				row.Cells[g.Start].Text = "“" + g.Words[0] + " …"
			}
		}
		words.Rows = append(words.Rows, row)
	}
	hit := make([]map[int]bool, len(refs))
	for i := range hit {
		hit[i] = map[int]bool{}
	}
	for _, g := range these {
		for _, span := range g.Refs {
			if span.Ref >= 0 && span.Ref < len(refs) {
				for _, q := range span.Positions {
					hit[span.Ref][q] = true
				}
			}
		}
	}
	for r, ref := range refs {
		row := figures.Row{Label: "reference"}
		if len(refs) > 1 {
			row.Label = fmt.Sprintf("reference %d", r+1)
		}
		for i, w := range ref {
			c := figures.Cell{Text: shownToken(w)}
			if hit[r][i] {
				c.Mark = figures.Match
			}
			row.Cells = append(row.Cells, c)
		}
		words.Rows = append(words.Rows, row)
	}
	f.Tables = append(f.Tables, words)
	if n == 0 {
		words.Notes = []string{"step forward: step n shows the candidate's n-grams of order n"}
		f.Tables[0] = words
		return f, nil
	}
	words.Key = ngramKey
	f.Tables[0] = words
	counts := figures.Table{Head: []string{"", "count", "clip", "matched", ""}}
	seen := map[string]bool{}
	matched := 0
	for _, g := range these {
		key := strings.Join(g.Words, " ")
		if seen[key] {
			continue
		}
		seen[key] = true
		matched += g.Matched
		status := ngram{Credited: g.Matched > 0, Clip: g.Clip}
		why := ""
		switch {
		case g.Count > g.Matched && g.Clip > 0:
			why = fmt.Sprintf("clipped to %d", g.Clip)
		case g.Clip == 0:
			why = "in no reference"
		}
		counts.Rows = append(counts.Rows, figures.Row{Label: "“" + key + "”", Cells: []figures.Cell{
			{Text: "  ", Mark: ngramMark(status)},
			{Text: strconv.Itoa(g.Count)}, {Text: strconv.Itoa(g.Clip)}, {Text: strconv.Itoa(g.Matched)},
			{Text: why},
		}})
		if why != "" {
			counts.Rows[len(counts.Rows)-1].Cells[4].Mark = figures.Faint
		}
	}
	if len(these) > 0 {
		counts.Notes = []string{fmt.Sprintf("p%d = Σ matched / n-grams = %d/%d", n, matched, len(these))}
	} else {
		counts.Notes = []string{fmt.Sprintf("no %d-grams: the candidate has fewer than %d words, p%d = 0", n, n, n)}
	}
	counts.BoldLabels = true
	f.Tables = append(f.Tables, counts)
	return f, nil
}

// editMarks are the alignment's edits as marks: substituted (a cross), deleted
// (struck through), inserted (a special box), correct (plain).
var editMarks = map[string]figures.Mark{"substitute": figures.Wrong, "delete": figures.Cut | figures.Unknown, "insert": figures.Special}

// alignmentTable is the word error rate's alignment: reference above, candidate
// below, each column one edit, its letter under it (C, S, D, I).
func alignmentTable(v View, p lessons.Panel, edits []edit) figures.Table {
	t := figures.Table{Title: "the word alignment"}
	ref, hyp, kind := figures.Row{Label: "reference 1"}, figures.Row{Label: "candidate"}, figures.Row{Label: "edit"}
	letters := map[string]string{"match": "C", "substitute": "S", "delete": "D", "insert": "I"}
	for _, e := range edits {
		m := editMarks[e.Kind]
		r, h := figures.Cell{Text: orDash(e.RefWord), Mark: m}, figures.Cell{Text: orDash(e.HypWord), Mark: m}
		if e.Kind == "insert" {
			r.Mark = figures.Faint
		}
		if e.Kind == "delete" {
			h.Mark = figures.Faint
		}
		letter := letters[e.Kind]
		if letter == "" {
			letter = "?"
		}
		ref.Cells, hyp.Cells = append(ref.Cells, r), append(hyp.Cells, h)
		kind.Cells = append(kind.Cells, figures.Cell{Text: letter, Mark: figures.Faint})
	}
	t.Rows = []figures.Row{ref, hyp, kind}
	var wer string
	if !metaAt(v, p, v.Step(), "WER", &wer) {
		var x float64
		if metaAt(v, p, v.Step(), "WER", &x) {
			wer = fmtValue(x)
		}
	}
	t.Notes = []string{"word error rate " + wer, "C correct, S substituted, D deleted, I inserted"}
	t.Key = []figures.KeyEntry{{Mark: figures.Wrong, Text: "S substituted"}, {Mark: figures.Cut | figures.Unknown, Text: "D deleted"}, {Mark: figures.Special, Text: "I inserted"}}
	return t
}

// terTable draws TER on the same pair as ngrams.js does, in one table (so that it fits
// beside WER's): the candidate with the blocks its shifts move (Accent, numbered),
// then the shifted candidate's alignment with the first reference, an edit per column,
// its moved words marked too; the notes name the shifts and give TER.
func terTable(v View, p lessons.Panel, cand []string, ter terView) figures.Table {
	moved := map[int]int{} // original position → shift number
	var named []string
	for k, s := range ter.Shifts {
		for _, o := range s.Block {
			moved[o] = k + 1
		}
		named = append(named, fmt.Sprintf("shift %d: “%s” from word %d to word %d", k+1, strings.Join(s.Words, " "), s.From+1, s.To+1))
	}
	t := alignmentTable(v, p, ter.Alignment)
	t.Title = fmt.Sprintf("TER on the same pair: %d shift(s) first, then the edits of the shifted candidate", len(ter.Shifts))
	before := figures.Row{Label: "candidate"}
	for i, w := range cand {
		c := figures.Cell{Text: shownToken(w)}
		if k := moved[i]; k > 0 {
			c.Mark, c.Text = figures.Accent, fmt.Sprintf("%s ⁽%d⁾", shownToken(w), k)
		}
		before.Cells = append(before.Cells, c)
	}
	shifted, ref := t.Rows[1], t.Rows[0]
	shifted.Label = "shifted"
	for i, e := range ter.Alignment {
		if e.HypPos >= 0 && e.HypPos < len(ter.Origin) && moved[ter.Origin[e.HypPos]] > 0 {
			shifted.Cells[i].Mark |= figures.Accent
		}
	}
	t.Rows = []figures.Row{before, shifted, ref, t.Rows[2]}
	if len(named) == 0 {
		named = []string{"no shift lowers the edits: TER's edits are the word edits"}
	}
	var terFact string
	if !metaAt(v, p, v.Step(), "TER", &terFact) {
		terFact = "?"
	}
	t.Notes = []string{strings.Join(named, "; "), "TER " + terFact}
	t.Key = append([]figures.KeyEntry{{Mark: figures.Accent, Text: "moved by a shift (1 edit per block)"}}, t.Key...)
	return t
}

// orDash is a word, or — where an edit has none.
func orDash(w string) string {
	if w == "" {
		return "—"
	}
	return shownToken(w)
}
