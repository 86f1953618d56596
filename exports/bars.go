package exports

import (
	"strconv"

	"unroll/figures"
	"unroll/lessons"
)

// barsFigure is a bars panel: its vectors at the current step (or static), one bar
// per entry, named as the page names them (the axes' cols, else the declaration's
// labels, else numbered units), on the panel's fixed axis.
func barsFigure(v View, p lessons.Panel) (figures.Figure, error) {
	b := &figures.Bars{}
	n := 0
	for i, name := range p.Arrays {
		a, ok := v.At(name, v.Step())
		if !ok {
			a, ok = v.StaticArray(name)
		}
		if !ok {
			continue
		}
		b.Groups = append(b.Groups, figures.BarGroup{Label: legendOf(v, p, i), Values: a.Data})
		n = max(n, len(a.Data))
	}
	if len(b.Groups) == 0 {
		return figures.Figure{}, errNoData(p, "step forward to see values")
	}
	ax := v.axisOf(p.Arrays)
	names := ax.Cols
	if len(names) != n {
		names = nil
		for _, a := range p.Arrays {
			if l := v.labelsOf(a); len(l) == n {
				names = l
				break
			}
		}
	}
	xLabel := ax.ColTitle
	if n == 1 && names == nil { // one value an array (BP, BLEU): the bars need no name but their legend's
		names, xLabel = []string{""}, ""
	}
	if names == nil {
		for i := range n {
			names = append(names, strconv.Itoa(i+1))
		}
		xLabel = orDefault(xLabel, "unit")
		if d, ok := v.Lesson.ArrayNamed(p.Arrays[0]); ok && len(d.Axes) > 0 && axisColumn[d.Axes[len(d.Axes)-1]] != "" {
			xLabel = orDefault(ax.ColTitle, axisColumn[d.Axes[len(d.Axes)-1]]) // what the bars count: layer, class …
		}
	}
	b.Categories = tokens(names, n)
	f := figures.Figure{Title: stepTitle(v, p), XLabel: xLabel, Bars: b}
	if s, ok := scaleOf(v, p); ok {
		f.YScale = s
	}
	return f, nil
}
