package exports

import (
	"strconv"

	"unroll/figures"
	"unroll/lessons"
)

// decRow is one decoder run of a seq2seq page (static "dec_rows"): its label and the
// keys of its per-step meta and state array.
type decRow struct {
	Label    string `json:"label"`
	Input    string `json:"input"`
	Output   string `json:"output"`
	Correct  string `json:"correct"`
	State    string `json:"state"`
	TopK     string `json:"topk"`
	Feedback string `json:"feedback"`
}

// stepString is step s's meta key as a string, and whether the frame has it (any
// JSON value, written as the page's String() does for strings and numbers).
func stepString(v View, s int, key string) (string, bool) {
	if key == "" || s < 1 || s > v.Step() {
		return "", false
	}
	x, ok := v.Frames[s-1].Meta[key]
	if !ok || x == nil {
		return "", false
	}
	var str string
	if decodeMeta(x, &str) == nil {
		return str, true
	}
	var f float64
	if decodeMeta(x, &f) == nil {
		return fmtValue(f), true
	}
	return "", false
}

// topksFigure draws several decoder runs' top-k lists side by side at the step
// (topks.js): a column per static "dec_rows" run that names a per-step "topk" list,
// headed by the run's label; the reference label (meta "label") marked wherever it
// appears; a note per run says what it reads.
func topksFigure(v View, p lessons.Panel) (figures.Figure, error) {
	var rows []decRow
	staticOf(v, p, "dec_rows", &rows)
	var runs []decRow
	for _, r := range rows {
		if r.TopK != "" {
			runs = append(runs, r)
		}
	}
	lists := make([][]topEntry, len(runs))
	k := 0
	for i, r := range runs {
		metaAt(v, p, v.Step(), r.TopK, &lists[i])
		k = max(k, len(lists[i]))
	}
	if k == 0 {
		return figures.Figure{}, errNoData(p, waiting(v, p))
	}
	var label string
	hasLabel := metaAt(v, p, v.Step(), "label", &label)
	t := figures.Table{}
	for _, r := range runs {
		t.Head = append(t.Head, r.Label)
		var note string
		if in, ok := stepString(v, v.Step(), r.Input); ok && declaresMeta(p, r.Input) {
			note = r.Label + " reads “" + shownToken(in) + "”"
			if hasLabel {
				note += ", label “" + shownToken(label) + "”"
			}
		} else if out, ok := stepString(v, v.Step(), r.Output); ok && declaresMeta(p, r.Output) {
			note = r.Label + ": " + out
		} else {
			note = r.Label + ": finished"
		}
		t.Notes = append(t.Notes, note)
	}
	matched := false
	for rank := range k {
		row := figures.Row{Label: strconv.Itoa(rank + 1)}
		for i := range runs {
			if rank >= len(lists[i]) {
				row.Cells = append(row.Cells, figures.Cell{})
				continue
			}
			e := lists[i][rank]
			c := figures.Cell{Text: shownToken(e.name()), Sub: percent(e.P), Bar: e.P, HasBar: true}
			if hasLabel && e.name() == label {
				c.Mark, matched = figures.Match, true
			}
			row.Cells = append(row.Cells, c)
		}
		t.Rows = append(t.Rows, row)
	}
	if matched {
		t.Key = []figures.KeyEntry{{Mark: figures.Match, Text: "the reference label"}}
	}
	return figures.Figure{Title: stepTitle(v, p), Tables: []figures.Table{t}}, nil
}

// declaresMeta reports whether the panel reads the per-step meta key.
func declaresMeta(p lessons.Panel, key string) bool {
	for _, k := range p.Meta {
		if k == key {
			return true
		}
	}
	return false
}
