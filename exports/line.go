package exports

import (
	"slices"
	"strings"

	"unroll/figures"
	"unroll/lessons"
)

// lineFigure is a line panel: its per-step scalars against the time step, as far as
// the view has stepped (an array declared Backward grows from t = T down), else its
// static curves; marker arrays as marks where they are non-zero; on the page's fixed
// axis, the x axis spanning the whole time axis, the current step marked.
func lineFigure(v View, p lessons.Panel) (figures.Figure, error) {
	f := figures.Figure{Title: stepTitle(v, p), LogY: p.LogY}
	timed := false
	for i, name := range p.Arrays {
		var xs, ys []float64
		type point struct{ t, y float64 }
		var pts []point
		for s := 1; s <= v.Step(); s++ {
			if a, ok := v.At(name, s); ok && len(a.Data) > 0 {
				if t := v.TimeOf(name, s); t > 0 {
					pts = append(pts, point{float64(t), a.Data[0]})
				}
			}
		}
		slices.SortFunc(pts, func(a, b point) int { return int(a.t - b.t) })
		for _, pt := range pts {
			xs, ys = append(xs, pt.t), append(ys, pt.y)
		}
		perStep := v.perStep(name)
		if len(xs) == 0 && !perStep {
			if a, ok := v.StaticArray(name); ok {
				for j, y := range a.Data {
					xs, ys = append(xs, float64(j+1)), append(ys, y)
				}
			}
		}
		timed = timed || perStep
		if len(xs) == 0 && !perStep {
			continue
		}
		decl, _ := v.Lesson.ArrayNamed(name)
		f.Series = append(f.Series, figures.Series{Label: legendOf(v, p, i), X: xs, Y: ys, Marker: decl.Marker})
	}
	if len(f.Series) == 0 {
		return figures.Figure{}, errNoData(p, "step forward to draw the curves")
	}
	if s, ok := scaleOf(v, p); ok {
		f.YScale = s
	}
	ax := v.axisOf(p.Arrays)
	f.XLabel = orDefault(ax.ColTitle, "step")
	if timed {
		f.XLabel = "time step t"
		f.XRange = []float64{1, float64(max(2, v.TimeSteps()))}
		f.Now = float64(v.NowTime(p.Arrays))
	}
	return f, nil
}

// lossFigure is the training-loss panel: the loss L of every training step so far,
// on a log axis as the page draws it.
func lossFigure(v View, p lessons.Panel) (figures.Figure, error) {
	if len(v.Loss) == 0 {
		return figures.Figure{}, errNoData(p, "the model has not trained: train it first")
	}
	xs := make([]float64, len(v.Loss))
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	name := lossName(v)
	symbol := strings.TrimSuffix(strings.TrimPrefix(name, `\(`), `\)`)
	return figures.Figure{Title: Text("training loss " + name), XLabel: "training step", YLabel: Text(name), LogY: p.LogY,
		Series: []figures.Series{{Label: symbol, X: xs, Y: v.Loss}}}, nil
}

// lossName is the training loss's symbol as the page's heading writes it at the
// view's values (lessons.Lesson.LossNames), as inline TeX: \(L\) unless the lesson
// names it otherwise.
func lossName(v View) string {
	values := v.Values
	if values == nil {
		values = v.Lesson.Params.Defaults()
	}
	for _, n := range v.Lesson.LossNames {
		if n.When.Holds(values) {
			return n.TeX
		}
	}
	return `\(L\)`
}
