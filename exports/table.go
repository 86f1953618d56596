package exports

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"unroll/figures"
	"unroll/lessons"
)

// tableJSON is a table as a lesson puts it in a meta value and table.js reads it:
// {title, head?, rows: [{label, cells: [{text, sub?, mark?}], inline?, mark?}]}.
type tableJSON struct {
	Title string   `json:"title"`
	Head  []string `json:"head"`
	Rows  []struct {
		Label string `json:"label"`
		Cells []struct {
			Text string `json:"text"`
			Sub  string `json:"sub"`
			Mark string `json:"mark"`
		} `json:"cells"`
		Inline bool   `json:"inline"`
		Mark   string `json:"mark"`
	} `json:"rows"`
}

// tableMarks are table.js's cell marks as figure marks, and what the key says of them.
var tableMarks = map[string]struct {
	mark figures.Mark
	key  string
}{
	"changed":  {figures.Changed, "changed"},
	"inserted": {figures.Changed | figures.Clipped, "inserted"},
	"unk":      {figures.Unknown, "<unk>"},
	"special":  {figures.Special, "special token"},
	"pad":      {figures.Faint, "padding"},
	"cut":      {figures.Cut, "left out"},
	"on":       {figures.Match, "on"},
	"off":      {figures.Faint, "off"},
}

// decodeMeta reads a meta value into out as the page receives it: through its JSON.
func decodeMeta(x any, out any) error {
	b, err := json.Marshal(x)
	if err != nil {
		return fmt.Errorf("exports: %w", err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("exports: %w", err)
	}
	return nil
}

// staticOf decodes the static meta key into out when the panel declares it and the
// model has it (optStatic).
func staticOf(v View, p lessons.Panel, key string, out any) bool {
	if !slices.Contains(p.Static, key) {
		return false
	}
	x, ok := v.StaticMeta(key)
	return ok && x != nil && decodeMeta(x, out) == nil
}

// metaAt decodes step s's meta key into out when the panel declares it and the frame
// has it (optMeta).
func metaAt(v View, p lessons.Panel, s int, key string, out any) bool {
	if !slices.Contains(p.Meta, key) || s < 1 || s > v.Step() {
		return false
	}
	x, ok := v.Frames[s-1].Meta[key]
	return ok && x != nil && decodeMeta(x, out) == nil
}

// tableFigure draws a table panel (table.js): the static meta's table under the
// panel's ID if there is one, otherwise the tables of steps 1..now from the step
// meta under the ID, one per step, the current one marked.
func tableFigure(v View, p lessons.Panel) (figures.Figure, error) {
	type step struct {
		t   tableJSON
		now bool
	}
	var ts []step
	var st tableJSON
	if staticOf(v, p, p.ID, &st) && st.Rows != nil {
		ts = append(ts, step{t: st})
	} else {
		for s := 1; s <= v.Step(); s++ {
			var t tableJSON
			if metaAt(v, p, s, p.ID, &t) && t.Rows != nil {
				ts = append(ts, step{t: t, now: s == v.Step()})
			}
		}
	}
	if len(ts) == 0 {
		return figures.Figure{}, errNoData(p, "step forward to follow the pair")
	}
	f := figures.Figure{Title: stepTitle(v, p)}
	for _, s := range ts {
		f.Tables = append(f.Tables, figureTable(s.t, s.now && len(ts) > 1))
	}
	return f, nil
}

// figureTable is one lesson table as a figure's, its marks keyed.
func figureTable(t tableJSON, now bool) figures.Table {
	out := figures.Table{Title: t.Title, Head: t.Head}
	if now {
		out.Mark = figures.Current
	}
	keyed := map[string]bool{}
	for _, r := range t.Rows {
		row := figures.Row{Label: r.Label, Inline: r.Inline}
		if r.Mark == "now" {
			row.Mark = figures.Current
		}
		for _, c := range r.Cells {
			cell := figures.Cell{Text: c.Text, Sub: c.Sub}
			if m, ok := tableMarks[c.Mark]; ok {
				cell.Mark = m.mark
				if !keyed[c.Mark] {
					keyed[c.Mark] = true
					out.Key = append(out.Key, figures.KeyEntry{Mark: m.mark, Text: m.key})
				}
			}
			if c.Mark == "inserted" {
				cell.Text = "·"
			}
			row.Cells = append(row.Cells, cell)
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// shownToken is a token as the figures draw it: a space as a middle dot and a line
// break as ¶ (the figures' fonts have no ␣ or ↵), and emoji, which slide fonts often
// lack, as their code points (common.js's shown).
func shownToken(s string) string {
	switch s {
	case " ":
		return "·"
	case "\n":
		return "¶"
	}
	if !strings.ContainsFunc(s, isEmoji) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == 0x200d || r == 0xfe0f: // joiners and variation selectors
		case isEmoji(r):
			b.WriteString("U+" + strings.ToUpper(strconv.FormatInt(int64(r), 16)))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isEmoji reports whether r is a pictograph (common.js's EMOJI for code points
// ≥ U+1F000, plus the miscellaneous symbols).
func isEmoji(r rune) bool {
	return r >= 0x1f000 || (r >= 0x2600 && r <= 0x27bf && !unicode.IsLetter(r))
}

// percent writes a probability as the pages do: three significant digits of its
// percentage, "< 0.01 %" below 1e-4.
func percent(p float64) string {
	if p < 1e-4 {
		return "< 0.01 %"
	}
	return toPrecision(p*100, 3) + " %"
}

// toPrecision is JavaScript's x.toPrecision(digits) for 1e-6 ≤ |x| < 1e21: fixed
// notation with that many significant digits, trailing zeros kept.
func toPrecision(x float64, digits int) string {
	if x == 0 {
		return strconv.FormatFloat(0, 'f', digits-1, 64)
	}
	e := int(math.Floor(math.Log10(math.Abs(x))))
	// rounding may carry into the next power of ten (99.96 → 100.0)
	if r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'e', digits-1, 64), 64); math.Abs(r) >= math.Pow(10, float64(e+1)) {
		e++
	}
	if e >= digits {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'f', digits-1-e, 64)
}

// fmtValue writes a value as the pages' fmt does: 4 significant digits, whole
// numbers ≥ 2 whole, an exponent outside [1e-3, 1e4), a true minus sign.
func fmtValue(x float64) string {
	var s string
	a := math.Abs(x)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case x == 0:
		s = "0"
	case x == math.Trunc(x) && a >= 2 && a < 1<<53:
		s = strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 1e4 || a < 1e-3:
		s = strings.Replace(strconv.FormatFloat(x, 'e', 3, 64), "e+", "e", 1)
		s = strings.Replace(s, "e0", "e", 1)
		s = strings.Replace(s, "e-0", "e-", 1)
	default:
		s = toPrecision(x, 4)
	}
	return strings.ReplaceAll(s, "-", "−")
}
