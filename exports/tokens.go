package exports

import (
	"strconv"

	"unroll/figures"
	"unroll/lessons"
)

// unkToken is the vocabulary's unknown token, marked wherever it is drawn.
const unkToken = "<unk>"

// tokensFigure draws a tokens panel (tokens.js): a row of boxes per sequence, a
// column per time step: the input (static "tokens", the typed prompt and the tokens
// already read), the targets (static "targets" or "answers") and what the model
// predicted at each computed step (meta "pred" or "prediction", right or wrong by
// meta "correct"); the tokens being read now marked, one per array of the panel (a
// backward pass reads from the end), else the step's own.
func tokensFigure(v View, p lessons.Panel) (figures.Figure, error) {
	type seq struct {
		label string
		items []*string
		right []*bool
	}
	var rows []seq
	var tokens []*string
	if staticOf(v, p, "tokens", &tokens) {
		for i := range tokens {
			if !inputShown(v, p, i+1) {
				tokens[i] = nil
			}
		}
		rows = append(rows, seq{label: "input", items: tokens})
	}
	var targets []*string
	if staticOf(v, p, "targets", &targets) || staticOf(v, p, "answers", &targets) {
		rows = append(rows, seq{label: "answer", items: targets})
	}
	var preds []*string
	var right []*bool
	for s := 1; s <= v.Step(); s++ {
		var pred string
		if metaAt(v, p, s, "pred", &pred) || metaAt(v, p, s, "prediction", &pred) {
			for len(preds) < s {
				preds, right = append(preds, nil), append(right, nil)
			}
			preds[s-1] = &pred
			var ok bool
			if metaAt(v, p, s, "correct", &ok) {
				right[s-1] = &ok
			}
		}
	}
	if len(preds) > 0 {
		rows = append(rows, seq{label: "predicted", items: preds, right: right})
	}
	if len(rows) == 0 {
		return figures.Figure{}, errNoData(p, "no tokens")
	}
	now := map[int]bool{}
	if len(p.Arrays) == 0 {
		now[v.Step()] = v.Step() > 0
	}
	for _, a := range p.Arrays {
		if t := v.TimeOf(a, v.Step()); t > 0 {
			now[t] = true
		}
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r.items))
	}
	t := figures.Table{}
	for i := range cols {
		t.Head = append(t.Head, strconv.Itoa(i+1))
	}
	used := map[figures.Mark]bool{}
	for _, r := range rows {
		row := figures.Row{Label: r.label}
		for i := range cols {
			var c figures.Cell
			if i < len(r.items) && r.items[i] != nil {
				c.Text = shownToken(*r.items[i])
			}
			step := i + 1
			switch {
			case now[step]:
				c.Mark |= figures.Current
			case step < v.Step():
				c.Mark |= figures.Done
			case c.Text != "":
				c.Mark |= figures.Pending
			}
			if i < len(r.right) && r.right[i] != nil {
				if *r.right[i] {
					c.Mark |= figures.Match
				} else {
					c.Mark |= figures.Wrong
				}
			}
			if c.Text == unkToken {
				c.Mark |= figures.Unknown
			}
			if c.Text == "" && !now[step] {
				c.Mark = figures.Pending
			}
			for _, m := range []figures.Mark{figures.Current, figures.Match, figures.Wrong, figures.Unknown} {
				if c.Mark.Has(m) {
					used[m] = true
				}
			}
			row.Cells = append(row.Cells, c)
		}
		t.Rows = append(t.Rows, row)
	}
	for _, e := range []figures.KeyEntry{{Mark: figures.Current, Text: "read now"}, {Mark: figures.Match, Text: "predicted right"}, {Mark: figures.Wrong, Text: "predicted wrong"}, {Mark: figures.Unknown, Text: "<unk>"}} {
		if used[e.Mark] {
			t.Key = append(t.Key, e)
		}
	}
	return figures.Figure{Title: stepTitle(v, p), Tables: []figures.Table{t}}, nil
}

// inputShown reports whether input token x_t may be drawn at the view's step
// (common.js's inputShown): the first static "prompt_len" tokens are typed and known
// from the start; the rest are the model's own samples, drawn once step t is.
func inputShown(v View, p lessons.Panel, t int) bool {
	var typed int
	if !staticOf(v, p, "prompt_len", &typed) {
		return true
	}
	return t <= typed || t <= v.Step()
}
