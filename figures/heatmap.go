package figures

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// viridis returns the sequential colour scale of the pages' heatmaps
// (static/js/colors.js), a new one each call: SetMin and SetMax change it.
func viridis() palette.ColorMap {
	var stops []color.Color
	for _, hex := range []uint32{0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21918c, 0x28ae80, 0x5ec962, 0xaddc30, 0xfde725} {
		stops = append(stops, color.RGBA{uint8(hex >> 16), uint8(hex >> 8), uint8(hex), 0xff})
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

// colourBar is a vertical colour bar drawn as barStripes filled stripes, Lo at the
// bottom and Hi at the top: vectors in every format, so no canvas can turn it
// upside down (gonum's ColorBar is an image, and vgpdf drew images flipped).
type colourBar struct {
	cm     palette.ColorMap // with Min and Max set
	lo, hi float64
}

// barStripes is how many stripes a colour bar has: no step shows at 4K.
const barStripes = 256

func (b colourBar) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	step := (b.hi - b.lo) / barStripes
	for i := range barStripes {
		v0 := b.lo + float64(i)*step
		col, err := b.cm.At(v0 + step/2)
		if err != nil {
			panic(err) // inside [Min, Max] by construction
		}
		y0, y1 := trY(v0), trY(v0+step)
		if i < barStripes-1 {
			y1 += (y1 - y0) / 2 // overlap the next stripe: no hairline gaps between them
		}
		c.SetColor(col)
		c.Fill(vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: y0}, Max: vg.Point{X: c.Max.X, Y: y1}}.Path())
	}
}

func (b colourBar) DataRange() (xmin, xmax, ymin, ymax float64) { return 0, 1, b.lo, b.hi }

// drawHeatmap draws g as a heatmap with labelled rows and columns and a colour bar on
// the right, on the grid's fixed scale, with f's title and axis labels.
func drawHeatmap(f Figure, g Grid, o Options) (func(draw.Canvas), error) {
	th := themeColours[o.Theme]
	cm := viridis()
	cm.SetMin(g.Lo)
	cm.SetMax(g.Hi)
	pl := newPlot(th)
	pl.Title.Text = f.Title
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
	bar := newPlot(th)
	bar.HideX()
	bar.Y.Padding = 0
	bar.Add(colourBar{cm: cm, lo: g.Lo, hi: g.Hi})
	bar.Y.Tick.Marker = linearTicks{}
	barWidth := vg.Points(tickSize) * 6 // the bar and its tick labels
	return func(c draw.Canvas) {
		c = titleAcross(c, pl)
		main, side := c, c
		main.Max.X -= barWidth
		side.Min.X = main.Max.X + vg.Points(tickSize)
		dc := pl.DataCanvas(main) // the bar stands level with the cells
		side.Min.Y, side.Max.Y = dc.Min.Y, dc.Max.Y
		pl.Draw(main)
		bar.Draw(side)
	}, nil
}
