package lessons

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"unroll/models"
)

// beamDistTop is how many next words a row of the trained model's table lists.
const beamDistTop = 5

// searchRow is one row of the comparison table.
// A hypothesis cut off at T_max, without <eos>, says so.
func (m *beamModel) searchRow(label string, h models.Hypothesis, mark string) tableRow {
	text := m.sentence(h.Tokens)
	if !h.Finished && len(h.Tokens) > 0 {
		text += " … (cut off at Tₘₐₓ)"
	}
	return tableRow{Label: label, Mark: mark, Cells: []tableCell{
		{Text: text}, {Text: fmt.Sprint(h.Length)},
		{Text: probText(h.LogProb)}, {Text: beamNum(h.LogProb)}, {Text: beamNum(h.Score)},
	}}
}

// compare is the table of the three searches and the reference.
func (m *beamModel) compare() table {
	tab := table{Title: fmt.Sprintf("the sentence each search returns (α = %g)", m.cfg.Alpha),
		Head: []string{"sentence", "T", "P(y|x)", "log P", "score"}}
	best := max(m.greedy.Score, m.res.Best.Score)
	if m.exhaustive != nil {
		best = max(best, m.exhaustive.Score)
	}
	mark := func(h models.Hypothesis) string {
		if h.Score == best {
			return "now"
		}
		return ""
	}
	tab.Rows = append(tab.Rows, m.searchRow("greedy", m.greedy, mark(m.greedy)),
		m.searchRow(fmt.Sprintf("beam, k = %d", m.cfg.BeamSize), m.res.Best, mark(m.res.Best)))
	if m.exhaustive != nil {
		tab.Rows = append(tab.Rows, m.searchRow("exhaustive", *m.exhaustive, mark(*m.exhaustive)))
	} else {
		tab.Rows = append(tab.Rows, tableRow{Label: "exhaustive", Cells: []tableCell{{Text: m.exhShort, Mark: "off"}}})
	}
	if m.ref != nil {
		h := models.Hypothesis{Tokens: m.ref, Length: len(m.ref), LogProb: m.refLogP, Finished: true,
			Score: models.LengthNormalized(m.refLogP, len(m.ref), m.cfg.Alpha)}
		tab.Rows = append(tab.Rows, m.searchRow("reference y*", h, ""))
	}
	return tab
}

// distribution is the table of what is being searched: the toy's tables, or the
// trained model's top next words after each prefix of ŷ. Green marks the word ŷ
// takes next, yellow greedy's different pick.
func (m *beamModel) distribution() table {
	yHat, g := m.res.Best.Tokens, m.greedy.Tokens
	// picks returns ŷ's and greedy's next words after prefix (−1 when prefix is not theirs).
	picks := func(prefix []int) (int, int) {
		next := func(seq []int) int {
			if len(seq) > len(prefix) && slices.Equal(seq[:len(prefix)], prefix) {
				return seq[len(prefix)]
			}
			return -1
		}
		return next(yHat), next(g)
	}
	markFor := func(w, hat, gr int) string {
		switch w {
		case hat:
			return "on"
		case gr:
			return "changed"
		}
		return ""
	}
	if m.toy != nil {
		d := m.toy
		tab := table{Title: "the toy's P(yₜ | y₁ … yₜ₋₁), one row per prefix", Head: append([]string{"prefix"}, d.Words...)}
		row := func(label, shown string, prefix []int, probs []float64) {
			hat, gr := -1, -1
			if prefix != nil {
				hat, gr = picks(prefix)
			}
			cells := []tableCell{{Text: shown}}
			for w, p := range probs {
				cells = append(cells, tableCell{Text: fmt.Sprintf("%.4g", p), Mark: markFor(w, hat, gr)})
			}
			tab.Rows = append(tab.Rows, tableRow{Label: label, Cells: cells})
		}
		row("t = 1", models.BosToken, []int{}, d.Table(""))
		for _, prefix := range slices.Sorted(maps.Keys(d.Tables)) {
			if prefix == "" {
				continue
			}
			ids, _ := d.Encode(prefix)
			row(fmt.Sprintf("t = %d", len(ids)+1), prefix, ids, d.Tables[prefix])
		}
		row("other", "any other prefix", nil, d.Default)
		return tab
	}
	tab := table{Title: fmt.Sprintf("the model's top %d next words after each prefix of ŷ", beamDistTop),
		Head: []string{"prefix"}}
	for i := range beamDistTop {
		tab.Head = append(tab.Head, fmt.Sprintf("#%d", i+1))
	}
	for t, lp := range m.pathLogProbs {
		prefix := yHat[:t]
		hat, gr := picks(prefix)
		ids := make([]int, len(lp))
		for i := range ids {
			ids[i] = i
		}
		slices.SortStableFunc(ids, func(a, b int) int { return compareDesc(lp[a], lp[b]) })
		cells := []tableCell{{Text: strings.TrimSpace(models.BosToken + " " + m.sentenceOrEmpty(prefix))}}
		for _, w := range ids[:min(beamDistTop, len(ids))] {
			cells = append(cells, tableCell{Text: m.words[w], Sub: probText(lp[w]), Mark: markFor(w, hat, gr)})
		}
		tab.Rows = append(tab.Rows, tableRow{Label: fmt.Sprintf("t = %d", t+1), Cells: cells})
	}
	return tab
}
