package exports

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"unroll/data"

	"unroll/figures"
	"unroll/lessons"
)

// heatmapFigure is a heatmap panel: its per-step vectors as units × time steps (one
// column per t, one row per unit; a deep RNN's [L, h] as one block per layer, the
// top layer first), static matrices as they are, on the panel's colour scale, with
// the current time step framed. Columns not computed yet are blank, as on the page.
func heatmapFigure(v View, p lessons.Panel) (figures.Figure, error) {
	T := v.TimeSteps()
	var rows []string
	var values [][]float64
	var cols int
	timed := false
	addBlock := func(name string, n, width int, value func(r, c int) float64) {
		if len(values) > 0 { // a blank row between blocks
			values = append(values, nanRow(width))
			rows = append(rows, "")
		}
		every := max(1, n/8) // at most about 8 unit labels a block
		for r := range n {
			row := make([]float64, width)
			for c := range row {
				row[c] = value(r, c)
			}
			values = append(values, row)
			label := ""
			if r == 0 {
				label = name + "  1"
			} else if (r+1)%every == 0 {
				label = strconv.Itoa(r + 1)
			}
			rows = append(rows, label)
		}
		cols = max(cols, width)
	}
	var hatched []bool // columns a Marker array is 1 in (BPTT's cut steps), hatched as on the page
	var hatchLabels []string
	for _, name := range p.Arrays {
		if decl, _ := v.Lesson.ArrayNamed(name); decl.Marker {
			hatchLabels = append(hatchLabels, Text(v.label(name)))
			if hatched == nil {
				hatched = make([]bool, T)
			}
			for s := 1; s <= v.Step(); s++ {
				if a, ok := v.At(name, s); ok && len(a.Data) > 0 && a.Data[0] != 0 {
					if t := v.TimeOf(name, s); t > 0 && t <= T {
						hatched[t-1] = true
					}
				}
			}
			continue
		}
		byTime := make([][]float64, T+1)
		n, shape := 0, []int(nil)
		for s := 1; s <= v.Step(); s++ {
			a, ok := v.At(name, s)
			if t := v.TimeOf(name, s); ok && t > 0 {
				byTime[t], n, shape = a.Data, max(n, len(a.Data)), a.Shape
			}
		}
		label := Text(v.label(name))
		if n > 0 || v.perStep(name) {
			if n == 0 {
				n = v.units(name)
			}
			if len(shape) == 2 && shape[0] > 1 { // layers × units
				L, h := shape[0], shape[1]
				for l := L - 1; l >= 0; l-- {
					addBlock(label+" layer "+strconv.Itoa(l+1), h, T, func(r, c int) float64 { return at(byTime[c+1], l*h+r) })
				}
			} else {
				addBlock(label, n, T, func(r, c int) float64 { return at(byTime[c+1], r) })
			}
			timed = true
			continue
		}
		if a, ok := v.StaticArray(name); ok {
			r, c := len(a.Data), 1
			if len(a.Shape) == 2 {
				r, c = a.Shape[0], a.Shape[1]
			}
			addBlock(label, r, c, func(i, j int) float64 { return a.Data[i*c+j] })
			timed = timed || c == T
		}
	}
	if len(values) == 0 {
		return figures.Figure{}, errNoData(p, "step forward to fill the heatmap")
	}
	for i := range values { // blocks of other widths are padded blank
		for len(values[i]) < cols {
			values[i] = append(values[i], math.NaN())
		}
	}
	var all []float64
	for _, r := range values {
		all = append(all, r...)
	}
	lo, hi := rangeOf(v, p, all)
	g := &figures.Grid{Rows: rows, Cols: numbered(cols), Values: values, Lo: lo, Hi: hi, Hatched: hatched}
	xLabel := "column"
	if timed {
		xLabel = "time step t"
		g.Mark = v.NowTime(p.Arrays)
		if toks := v.inputTokens(p); toks != nil && cols <= maxTokenColumns {
			xLabel = "time step t and its input"
			for t := 1; t <= cols && t <= len(toks); t++ {
				if toks[t-1] != "" {
					g.Cols[t-1] = strconv.Itoa(t) + "\n" + toks[t-1]
				}
			}
		}
	}
	for _, l := range hatchLabels { // the key of the hatch, in words
		xLabel += "; hatched: " + l
	}
	return figures.Figure{Title: stepTitle(v, p), XLabel: xLabel, YLabel: "unit", Grid: g}, nil
}

// maxTokenColumns: a heatmap wider than this has no room for a token under each
// column (the page leaves them out below 9 px a column, too).
const maxTokenColumns = 40

// tokenChars is about how many characters of tick labels fit across a heatmap.
const tokenChars = 60

// inputTokens are the input tokens under a heatmap's columns, as the page writes them
// (when the panel reads the static "tokens"): those typed (the prompt) or reached, ""
// for the rest.
func (v View) inputTokens(p lessons.Panel) []string {
	if !slices.Contains(p.Static, "tokens") {
		return nil
	}
	raw := texts(v.Static.Meta["tokens"])
	if raw == nil {
		return nil
	}
	typed := len(raw)
	if n, ok := v.Static.Meta["prompt_len"].(int); ok && slices.Contains(p.Static, "prompt_len") {
		typed = n
	}
	out := make([]string, len(raw))
	chars := max(1, tokenChars/max(1, len(raw))) // what fits under a column, as the page cuts them
	for i, tok := range raw {
		if t := i + 1; t <= typed || t <= v.Step() {
			r := []rune(strings.ReplaceAll(tok, data.SpaceToken, "·"))
			if len(r) > chars {
				r = append(r[:max(1, chars-1)], '…')
			}
			out[i] = string(r)
		}
	}
	return out
}

// perStep reports whether array name is declared as a value every step.
func (v View) perStep(name string) bool {
	a, _ := v.Lesson.ArrayNamed(name)
	return a.PerStep
}

// units is how many values per-step array name holds, from any frame that has it (0:
// none computed).
func (v View) units(name string) int {
	for s := 1; s <= v.Step(); s++ {
		if a, ok := v.At(name, s); ok {
			return len(a.Data)
		}
	}
	return 0
}

// at is x[i], NaN when x does not reach i (not computed yet).
func at(x []float64, i int) float64 {
	if i < len(x) {
		return x[i]
	}
	return math.NaN()
}

func nanRow(n int) []float64 {
	r := make([]float64, n)
	for i := range r {
		r[i] = math.NaN()
	}
	return r
}

// numbered is the labels 1..n, every k-th kept so that at most about 20 show.
func numbered(n int) []string {
	every := max(1, (n+19)/20)
	out := make([]string, n)
	for i := range out {
		if (i+1)%every == 0 || i == 0 {
			out[i] = strconv.Itoa(i + 1)
		}
	}
	return out
}
