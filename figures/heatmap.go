package figures

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	unrollpalette "unroll/palette"
)

// viridis returns the sequential colour scale of the pages' heatmaps (the one
// palette's Viridis, package unroll/palette), a new one each call: SetMin and SetMax
// change it.
func viridis() palette.ColorMap {
	var stops []color.Color
	for _, c := range unrollpalette.Viridis {
		stops = append(stops, c.RGBA())
	}
	cm, err := moreland.NewLuminance(stops)
	if err != nil {
		panic(err) // the stops rise in luminance
	}
	return cm
}

// gridXYZ is a Grid as gonum's grid: column c at x = c, row r at y = −r, so the
// first row is at the top.
type gridXYZ struct{ g Grid }

func (g gridXYZ) Dims() (c, r int)   { return len(g.g.Cols), len(g.g.Rows) }
func (g gridXYZ) Z(c, r int) float64 { return g.g.Values[r][c] }
func (g gridXYZ) X(c int) float64    { return float64(c) }
func (g gridXYZ) Y(r int) float64    { return -float64(r) }

// drawHeatmap draws g as a heatmap with labelled rows and columns and a colour bar on
// the right, on the grid's fixed scale, with f's title and axis labels, in the given
// format.
func drawHeatmap(f Figure, g Grid, format Format) ([]byte, error) {
	cm := viridis()
	cm.SetMin(g.Lo)
	cm.SetMax(g.Hi)
	pl := plot.New()
	pl.Title.Text = f.Title
	pl.Title.TextStyle.Font.Size = vg.Points(14)
	pl.X.Label.Text = f.XLabel
	pl.Y.Label.Text = f.YLabel
	if len(g.Rows) == 0 || len(g.Cols) == 0 {
		pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = 0, 1, 0, 1
	} else {
		hm := plotter.NewHeatMap(gridXYZ{g}, cm.Palette(256))
		hm.Min, hm.Max = g.Lo, g.Hi
		pl.Add(hm)
		var xt, yt []plot.Tick
		for c, l := range g.Cols {
			xt = append(xt, plot.Tick{Value: float64(c), Label: l})
		}
		for r, l := range g.Rows {
			yt = append(yt, plot.Tick{Value: -float64(r), Label: l})
		}
		pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.ConstantTicks(xt), plot.ConstantTicks(yt)
	}
	bar := plot.New()
	bar.HideX()
	bar.Y.Padding = 0
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.Y.Tick.Marker = linearTicks{}
	const barWidth = vg.Inch * 0.9
	return encode(format, func(c draw.Canvas) {
		main, side := c, c
		main.Max.X -= barWidth
		side.Min.X = main.Max.X + vg.Inch*0.2
		side.Min.Y += vg.Inch * 0.53 // level with the heatmap: above the x axis, below the title
		side.Max.Y -= vg.Inch * 0.22
		pl.Draw(main)
		bar.Draw(side)
	})
}
