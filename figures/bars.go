package figures

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	unrollpalette "unroll/palette"
)

// Bars is a bar chart: one group of bars per Group, side by side at each category.
type Bars struct {
	Categories []string // under each position, left to right
	Groups     []BarGroup
}

// BarGroup is one set of bars: a value per category (NaN: no bar).
type BarGroup struct {
	Label  string // in the legend when there are several groups
	Values []float64
}

// drawBars is the painter of f's bars with f's title and axis labels, on f.YScale
// when it is set.
func drawBars(f Figure, b Bars, o Options) (func(draw.Canvas), error) {
	th := themeColours[o.Theme]
	pl := figurePlot(f, th)
	n := len(b.Groups)
	labels := make([]string, n)
	for i, g := range b.Groups {
		labels[i] = g.Label
	}
	styles := unrollpalette.Assign(labels) // a role (LSTM, GRU, …) looks as on the pages
	width := vg.Points(math.Max(4, math.Min(40, 400/float64(max(1, n*len(b.Categories))))))
	for i, g := range b.Groups {
		vals := make(plotter.Values, len(b.Categories))
		for j := range vals {
			if j < len(g.Values) && !math.IsNaN(g.Values[j]) && !math.IsInf(g.Values[j], 0) {
				vals[j] = g.Values[j]
			}
		}
		if roles := categoryRoles(b.Categories); n == 1 && roles != nil {
			// one set of bars that are all roles (LSTM, GRU, RNN): each in its role's
			// colour, as on the page
			for j := range vals {
				one := make(plotter.Values, len(vals))
				one[j] = vals[j]
				bc, err := plotter.NewBarChart(one, width)
				if err != nil {
					return nil, err
				}
				bc.Color, bc.LineStyle.Width = themed(roles[j].Style.Colour.RGBA(), th), 0
				pl.Add(bc)
			}
			continue
		}
		bc, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, err
		}
		bc.Color = themed(styles[i].Colour.RGBA(), th)
		bc.LineStyle.Width = 0
		bc.Offset = width * vg.Length(float64(i)-float64(n-1)/2)
		pl.Add(bc)
		if n > 1 {
			pl.Legend.Add(g.Label, bc)
		}
	}
	if len(b.Categories) > 0 {
		pl.NominalX(b.Categories...)
		if len(b.Categories) > 24 { // label every k-th so the names never crowd
			k := (len(b.Categories) + 23) / 24
			ticks := make([]plot.Tick, len(b.Categories))
			for j, c := range b.Categories {
				ticks[j].Value = float64(j)
				if j%k == 0 {
					ticks[j].Label = c
				}
			}
			pl.X.Tick.Marker = plot.ConstantTicks(ticks)
		}
	}
	if len(f.YScale) == 2 {
		pl.Y.Min, pl.Y.Max = min(f.YScale[0], 0), max(f.YScale[1], 0)
	}
	return func(c draw.Canvas) {
		c = titleAcross(c, pl)
		if n > 1 { // the axis stays the page's
			c = legendAbove(c, pl, len(labels))
		}
		pl.Draw(c)
	}, nil
}

// categoryRoles are the palette's roles of the categories when every one is a role
// (the lstm page's LSTM, GRU, RNN), else nil.
func categoryRoles(categories []string) []unrollpalette.Role {
	roles := make([]unrollpalette.Role, len(categories))
	for j, c := range categories {
		r, ok := unrollpalette.RoleOf(c)
		if !ok {
			return nil
		}
		roles[j] = r
	}
	return roles
}
