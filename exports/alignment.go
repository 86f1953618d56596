package exports

import (
	"math"
	"strconv"
	"strings"

	"unroll/data"
	"unroll/figures"
	"unroll/lessons"
)

// alignmentFigure is an alignment panel: a matrix with labelled rows and columns,
// such as the attention weights α_t'j. A per-step vector adds one row per step (rows
// not computed yet blank, the current row framed); a static [rows, cols] matrix is
// drawn whole. Masked cells (the axes' mask array is 0 there, a row per step for a
// per-step vector) are hatched, as the page draws them.
func alignmentFigure(v View, p lessons.Panel) (figures.Figure, error) {
	name := p.Arrays[0]
	ax := v.axisOf([]string{name})
	var values [][]float64
	var hatched [][]bool // masked cells (−∞ before the softmax), hatched as on the page
	mark := 0
	if v.perStep(name) {
		cols := v.units(name)
		if cols == 0 {
			return figures.Figure{}, errNoData(p, "step forward to fill the matrix")
		}
		mask, masked := v.StaticArray(ax.Mask) // [steps, cols]: a decoder's causal mask
		for s := 1; s <= v.Steps; s++ {
			a, ok := v.At(name, s)
			row := nanRow(cols)
			if ok {
				copy(row, a.Data)
			}
			hrow := make([]bool, cols)
			for j := range row {
				if masked && len(mask.Shape) == 2 && s-1 < mask.Shape[0] && j < mask.Shape[1] && mask.Data[(s-1)*mask.Shape[1]+j] == 0 {
					row[j], hrow[j] = math.NaN(), true
				}
			}
			values = append(values, row)
			hatched = append(hatched, hrow)
		}
		mark = v.Step()
	} else {
		a, ok := v.StaticArray(name)
		if !ok {
			return figures.Figure{}, errNoData(p, "the model has no "+name)
		}
		r, c := 1, len(a.Data)
		if len(a.Shape) == 2 {
			r, c = a.Shape[0], a.Shape[1]
		}
		mask, masked := v.StaticArray(ax.Mask)
		for i := range r {
			row, hrow := make([]float64, c), make([]bool, c)
			for j := range row {
				row[j] = a.Data[i*c+j]
				if masked && mask.Data[i*c+j] == 0 {
					row[j], hrow[j] = math.NaN(), true
				}
			}
			values = append(values, row)
			hatched = append(hatched, hrow)
		}
	}
	rows, cols := sparse(tokens(ax.Rows, len(values))), sparse(tokens(ax.Cols, len(values[0])))
	var all []float64
	for _, r := range values {
		all = append(all, r...)
	}
	lo, hi := rangeOf(v, p, all)
	g := &figures.Grid{Rows: rows, Cols: cols, Values: values, Lo: lo, Hi: hi, MarkRow: mark, HatchedCells: hatched}
	return figures.Figure{Title: stepTitle(v, p), XLabel: orDefault(ax.ColTitle, "column"), YLabel: orDefault(ax.RowTitle, "row"), Grid: g}, nil
}

// tokens is n labels from names (a token's space shown as ·, as figures' fonts lack
// ␣), numbered where names runs short.
func tokens(names []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		if i < len(names) {
			out[i] = strings.ReplaceAll(names[i], data.SpaceToken, "·")
		} else {
			out[i] = strconv.Itoa(i + 1)
		}
	}
	return out
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// maxLabels is how many row or column labels a matrix shows at most; past it every
// k-th is kept (a 64-unit context vector's columns would overlap).
const maxLabels = 24

// sparse is labels with every k-th kept (the first always), so that at most about
// maxLabels show.
func sparse(labels []string) []string {
	if len(labels) <= maxLabels {
		return labels
	}
	every := (len(labels) + maxLabels - 1) / maxLabels
	out := make([]string, len(labels))
	for i, l := range labels {
		if i%every == 0 {
			out[i] = l
		}
	}
	return out
}
