package figures

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	unrollpalette "unroll/palette"
)

// viridis and diverging return the pages' colour scales (the one palette's Viridis,
// and BlueOrange for values around 0), interpolated as the pages do, a new one each
// call: SetMin and SetMax change it.
func viridis() palette.ColorMap   { return stopsOf(unrollpalette.Viridis) }
func diverging() palette.ColorMap { return stopsOf(unrollpalette.BlueOrange) }

func stopsOf(cs []unrollpalette.RGB) *stopsMap {
	stops := make([]color.Color, len(cs))
	for i, c := range cs {
		stops[i] = c.RGBA()
	}
	return &stopsMap{stops: stops, alpha: 1}
}

// cellsFrame outlines a rectangle of a heatmap's cells, in data coordinates: the
// current time step's column, or the current step's row, as the pages frame it.
type cellsFrame struct {
	x0, x1, y0, y1 float64
	colour         color.Color // the theme's text colour
}

func (f cellsFrame) Plot(c draw.Canvas, pl *plot.Plot) {
	tx, ty := pl.Transforms(&c)
	x0, x1, y0, y1 := tx(f.x0), tx(f.x1), ty(f.y0), ty(f.y1)
	c.StrokeLines(draw.LineStyle{Color: f.colour, Width: vg.Points(2.5)}, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}})
}

// hatchedCells covers a rectangle of a heatmap's cells (data coordinates) with the
// background and diagonal lines in the text colour: Grid.Hatched's columns.
type hatchedCells struct {
	x0, x1, y0, y1 float64
	ink, ground    color.Color
}

// hatchGap is the distance between a hatch's lines.
const hatchGap = vg.Length(4)

func (h hatchedCells) Plot(c draw.Canvas, pl *plot.Plot) {
	tx, ty := pl.Transforms(&c)
	x0, x1, y0, y1 := tx(h.x0), tx(h.x1), ty(h.y0), ty(h.y1)
	if y0 > y1 {
		y0, y1 = y1, y0
	}
	c.SetColor(h.ground)
	c.Fill(vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}.Path())
	style := draw.LineStyle{Color: h.ink, Width: vg.Points(0.6)}
	for k := x0 - y1; k < x1-y0; k += hatchGap { // the line x − y = k inside the rectangle
		lo, hi := max(x0, y0+k), min(x1, y1+k)
		if lo < hi {
			c.StrokeLine2(style, lo, lo-k, hi, hi-k)
		}
	}
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
	if g.Lo < 0 && g.Hi > 0 {
		cm = diverging()
	}
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
		hm.NaN = th.background // not computed yet (or a gap between blocks): blank, as on the page
		pl.Add(hm)
		for c := 0; c < len(g.Hatched) && c < len(g.Cols); c++ { // one hatch a run of columns, so its lines meet
			if !g.Hatched[c] {
				continue
			}
			end := c
			for end+1 < len(g.Hatched) && end+1 < len(g.Cols) && g.Hatched[end+1] {
				end++
			}
			pl.Add(hatchedCells{x0: float64(c) - 0.5, x1: float64(end) + 0.5, y0: 0.5, y1: -float64(len(g.Rows)) + 0.5, ink: th.foreground, ground: th.background})
			c = end
		}
		for r, row := range g.HatchedCells { // one hatch a run of cells in a row
			for c := 0; c < len(row) && c < len(g.Cols); c++ {
				if !row[c] {
					continue
				}
				end := c
				for end+1 < len(row) && end+1 < len(g.Cols) && row[end+1] {
					end++
				}
				y := -float64(r)
				pl.Add(hatchedCells{x0: float64(c) - 0.5, x1: float64(end) + 0.5, y0: y + 0.5, y1: y - 0.5, ink: th.foreground, ground: th.background})
				c = end
			}
		}
		if g.Mark > 0 && g.Mark <= len(g.Cols) {
			pl.Add(cellsFrame{x0: float64(g.Mark-1) - 0.5, x1: float64(g.Mark-1) + 0.5, y0: 0.5, y1: -float64(len(g.Rows)) + 0.5, colour: th.foreground})
		}
		if g.MarkRow > 0 && g.MarkRow <= len(g.Rows) {
			r := -float64(g.MarkRow - 1)
			pl.Add(cellsFrame{x0: -0.5, x1: float64(len(g.Cols)) - 0.5, y0: r + 0.5, y1: r - 0.5, colour: th.foreground})
		}
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
