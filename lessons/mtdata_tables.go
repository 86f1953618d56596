package lessons

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"unroll/models"
)

// mtMarkNormalize follows models.NormalizeMT character by character and marks what
// it changes: lowercased letters and replaced non-breaking spaces ("changed") and
// the spaces it inserts before punctuation ("inserted").
func mtMarkNormalize(raw string) []tableCell {
	var out []tableCell
	prev := rune(-1)
	for _, r := range raw {
		n := r
		if r == '\u00a0' || r == '\u202f' {
			n = ' '
		}
		low := strings.ToLower(string(n))
		first := []rune(low)[0]
		if strings.ContainsRune(",.!?", first) && prev != -1 && prev != ' ' {
			out = append(out, tableCell{Text: " ", Mark: "inserted"})
		}
		c := tableCell{Text: low}
		if low != string(r) {
			c.Mark = "changed"
		}
		out = append(out, c)
		rs := []rune(low)
		prev = rs[len(rs)-1]
	}
	return out
}

// mtChars is s a character a cell.
func mtChars(s string) []tableCell {
	var out []tableCell
	for _, r := range s {
		out = append(out, tableCell{Text: string(r)})
	}
	return out
}

// mtMissingNote is what the page shows in place of a side not typed yet.
func mtMissingNote(french bool) string {
	if french {
		return "type a French sentence to see the target side"
	}
	return "type an English sentence to see the source side"
}

// idCells shows ids with their tokens, marking the special ones.
func idCells(v *models.Vocab, ids []int) []tableCell {
	out := make([]tableCell, len(ids))
	for i, id := range ids {
		c := tableCell{Text: strconv.Itoa(id), Sub: v.Token(id)}
		switch {
		case id == models.PadID:
			c.Mark = "pad"
		case id == models.UnkID:
			c.Mark = "unk"
		case id == models.BosID || id == models.EosID:
			c.Mark = "special"
		}
		out[i] = c
	}
	return out
}

// cutCells are the ids (with <eos>) that truncation to steps drops, struck out.
func cutCells(v *models.Vocab, ids []int, steps int) []tableCell {
	full := append(slices.Clone(ids), models.EosID)
	if len(full) <= steps {
		return nil
	}
	out := idCells(v, full[steps:])
	for i := range out {
		out[i].Mark = "cut"
	}
	return out
}

// tokenCells are the tokens a cell each, marked "unk" where v has no id for them.
func tokenCells(toks []string, v *models.Vocab) []tableCell {
	out := make([]tableCell, len(toks))
	for i, t := range toks {
		out[i] = tableCell{Text: t}
		if v != nil && v.ID(t) == models.UnkID {
			out[i].Mark = "unk"
		}
	}
	return out
}

// maskCells are the mask's 0s ("off") and 1s ("on").
func maskCells(mask []int) []tableCell {
	out := make([]tableCell, len(mask))
	for i, b := range mask {
		out[i] = tableCell{Text: strconv.Itoa(b), Mark: "off"}
		if b == 1 {
			out[i].Mark = "on"
		}
	}
	return out
}

// stepsHead numbers the columns of the steps 1 … n.
func stepsHead(n int) []string {
	h := make([]string, n)
	for i := range h {
		h[i] = strconv.Itoa(i + 1)
	}
	return h
}

// sideRows are one side's rows of a stage's table, or, when the student has not
// typed that side yet, one row with the note instead.
func sideRows(label string, s MTSide, french bool, rows ...tableRow) []tableRow {
	if s.Missing {
		return []tableRow{{Label: label, Cells: []tableCell{{Text: mtMissingNote(french), Mark: "off"}}, Inline: true}}
	}
	return rows
}

// sideFacts sets a stage's facts for the sides that were typed: key(side) = value.
func sideFacts(meta map[string]any, s, g MTSide, key func(side string) string, value func(MTSide) any) {
	if !s.Missing {
		meta[key("source")] = value(s)
	}
	if !g.Missing {
		meta[key("target")] = value(g)
	}
}

// stage returns step t's table and facts.
func (m *mtDataModel) stage(t int) (table, map[string]any) {
	s, g := m.src, m.tgt
	meta := map[string]any{}
	if s.Missing || g.Missing {
		meta["missing"] = mtMissingNote(g.Missing)
	}
	rows := func(en, fr []tableRow) []tableRow {
		return append(sideRows("English", s, false, en...), sideRows("French", g, true, fr...)...)
	}
	switch t {
	case 1:
		meta["stage"] = "1 · raw text"
		meta["what"] = "The pair as it is written: capitals, punctuation glued to the words, perhaps French non-breaking spaces."
		return table{Title: "1 · raw text", Rows: rows(
			[]tableRow{{Label: "English", Cells: mtChars(s.Raw), Inline: true}},
			[]tableRow{{Label: "French", Cells: mtChars(g.Raw), Inline: true}})}, meta
	case 2:
		meta["stage"] = "2 · normalisation"
		meta["what"] = "Lowercase, non-breaking spaces become spaces, and a space goes before , . ! ? so punctuation becomes its own token. Changed characters are marked, inserted spaces shown as ␣."
		return table{Title: "2 · normalisation", Rows: rows(
			[]tableRow{{Label: "English", Cells: mtMarkNormalize(s.Raw), Inline: true}},
			[]tableRow{{Label: "French", Cells: mtMarkNormalize(g.Raw), Inline: true}})}, meta
	case 3:
		meta["stage"] = "3 · tokens"
		meta["what"] = "Split at spaces: each word and each punctuation mark is one token."
		sideFacts(meta, s, g, func(side string) string { return side + "_tokens" }, func(x MTSide) any { return len(x.Tokens) })
		return table{Title: "3 · tokens", Rows: rows(
			[]tableRow{{Label: "English", Cells: tokenCells(s.Tokens, nil)}},
			[]tableRow{{Label: "French", Cells: tokenCells(g.Tokens, nil)}})}, meta
	case 4:
		meta["stage"] = "4 · vocabulary ids"
		meta["what"] = fmt.Sprintf("Each token becomes its id in the vocabulary. Ids 0–3 are <unk>, <pad>, <bos>, <eos>; the corpus's words follow by frequency. A word seen fewer than %d times in the training split has no id of its own and becomes <unk> (0).", m.minFreq)
		meta["source_vocabulary_size"], meta["target_vocabulary_size"] = m.vs.Len(), m.vt.Len()
		sideFacts(meta, s, g, func(side string) string { return side + "_unk" }, func(x MTSide) any { return countID(x.IDs, models.UnkID) })
		return table{Title: "4 · vocabulary ids", Rows: rows(
			[]tableRow{{Label: "English", Cells: idCells(m.vs, s.IDs)}},
			[]tableRow{{Label: "French", Cells: idCells(m.vt, g.IDs)}})}, meta
	case 5:
		meta["stage"] = "5 · <eos>, truncation, padding"
		meta["what"] = fmt.Sprintf("Append <eos> (3), then cut to the first T = %d ids or fill with <pad> (1) up to T. The valid length L counts the entries that are not <pad>; ids struck out were cut off.", m.steps)
		sideFacts(meta, s, g, func(side string) string { return side + "_valid_length" }, func(x MTSide) any { return x.ValidLen })
		return table{Title: fmt.Sprintf("5 · <eos>, truncation and padding to T = %d", m.steps), Head: stepsHead(m.steps), Rows: rows(
			[]tableRow{{Label: fmt.Sprintf("English L=%d", s.ValidLen), Cells: append(idCells(m.vs, s.Padded), cutCells(m.vs, s.IDs, m.steps)...)}},
			[]tableRow{{Label: fmt.Sprintf("French L=%d", g.ValidLen), Cells: append(idCells(m.vt, g.Padded), cutCells(m.vt, g.IDs, m.steps)...)}})}, meta
	case 6:
		meta["stage"] = "6 · valid-length mask"
		meta["what"] = "mₜ = 1 for t ≤ L and 0 after. The encoder's context is taken at its valid length, so its steps over padding change nothing; the loss counts ℓₜ at the decoder's valid steps only: summed over every sentence of the minibatch, then divided by their total number of valid steps, as the seq2seq models train."
		sideFacts(meta, s, g, func(side string) string { return side + "_valid_length" }, func(x MTSide) any { return x.ValidLen })
		return table{Title: "6 · the valid-length mask", Head: stepsHead(m.steps), Rows: rows(
			[]tableRow{{Label: "English ids", Cells: idCells(m.vs, s.Padded)}, {Label: "English mask", Cells: maskCells(Mask(s.ValidLen, m.steps))}},
			[]tableRow{{Label: "French ids", Cells: idCells(m.vt, g.Padded)}, {Label: "French mask", Cells: maskCells(Mask(g.ValidLen, m.steps))}})}, meta
	default:
		meta["stage"] = "7 · a minibatch"
		meta["what"] = "What the model receives: the source ids X (B × T) and their valid lengths, the decoder input (<bos> then the labels shifted right by one — teacher forcing) and the labels Y with their mask. Row 1 is the pair followed above; the others are drawn from the training split by the seed."
		if !m.ownRow {
			meta["what"] = fmt.Sprintf("What the model receives: the source ids X (B × T) and their valid lengths, the decoder input (<bos> then the labels shifted right by one — teacher forcing) and the labels Y with their mask. A training example needs both sentences, so your half pair is not in it: all %d rows are drawn from the training split by the seed (%s to put yours in row 1).", len(m.batchSrc), mtMissingNote(g.Missing))
		}
		meta["batch_size"] = len(m.batchSrc)
		tab := table{Title: fmt.Sprintf("7 · a minibatch, B = %d, T = %d", len(m.batchSrc), m.steps), Head: stepsHead(m.steps)}
		for i := range m.batchSrc {
			y := m.batchY[i]
			tab.Rows = append(tab.Rows,
				tableRow{Label: fmt.Sprintf("X[%d] L=%d", i+1, m.srcLens[i]), Cells: idCells(m.vs, m.batchSrc[i])},
				tableRow{Label: fmt.Sprintf("dec in[%d]", i+1), Cells: idCells(m.vt, DecoderInput(y))},
				tableRow{Label: fmt.Sprintf("Y[%d] L=%d", i+1, m.yLens[i]), Cells: idCells(m.vt, y)},
				tableRow{Label: fmt.Sprintf("mask[%d]", i+1), Cells: maskCells(Mask(m.yLens[i], m.steps))})
		}
		return tab, meta
	}
}
