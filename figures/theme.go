package figures

import (
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Text sizes in points of the figureWidth (8 in) figure: at 1920 px wide a point is
// 3⅓ px, so a title is 47 px and a tick label 33 px high in em, both readable from
// the back of a lecture room (the floor: titles 28 px, tick labels 20 px at 1920 px).
const (
	titleSize = 14
	labelSize = 12 // axis labels and legends
	tickSize  = 10
)

// colours is a theme's colours for what is not data.
type colours struct {
	background color.Color
	foreground color.Color // text, axes, ticks
	grid       color.Color // the grid lines behind curves
}

// themeColours are the themes' colours.
var themeColours = map[Theme]colours{
	Light: {background: color.White, foreground: color.Black, grid: color.Gray{0xd0}},
	Dark:  {background: color.RGBA{0x12, 0x16, 0x1c, 0xff}, foreground: color.RGBA{0xe8, 0xea, 0xed, 0xff}, grid: color.Gray{0x40}},
}

// newPlot is an empty plot in the theme's colours with the figures' text sizes.
func newPlot(th colours) *plot.Plot {
	pl := plot.New()
	pl.BackgroundColor = th.background
	pl.Title.TextStyle.Font.Size = vg.Points(titleSize)
	pl.Title.TextStyle.Color = th.foreground
	pl.Legend.TextStyle.Font.Size = vg.Points(labelSize)
	pl.Legend.TextStyle.Color = th.foreground
	// A fifth of an em between rows, so a tall ∏ or a superscript keeps clear of the
	// row above.
	pl.Legend.Padding = vg.Points(labelSize / 5)
	for _, a := range []*plot.Axis{&pl.X, &pl.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(labelSize)
		a.Label.TextStyle.Color = th.foreground
		a.Tick.Label.Font.Size = vg.Points(tickSize)
		a.Tick.Label.Color = th.foreground
		a.Color = th.foreground
		a.Tick.Color = th.foreground
	}
	return pl
}

// figurePlot is the plot of figure f's curves or bars in the theme: its title and
// axis labels, the legend at the top, linear y ticks and the grid.
func figurePlot(f Figure, th colours) *plot.Plot {
	pl := newPlot(th)
	pl.Title.Text = f.Title
	pl.X.Label.Text = f.XLabel
	pl.Y.Label.Text = f.YLabel
	pl.Legend.Top = true
	pl.Y.Tick.Marker = linearTicks{}
	pl.Add(newGrid(th))
	return pl
}

// legendAbove draws pl's legend (rows entries) in rows at the top right of c, takes
// it off pl, and returns the canvas under it: where the page puts a legend when the
// axis is fixed and no headroom may be added.
func legendAbove(c draw.Canvas, pl *plot.Plot, rows int) draw.Canvas {
	if rows == 0 {
		return c
	}
	leg := pl.Legend
	pl.Legend = plot.NewLegend()
	n := vg.Length(rows)
	h := n*leg.TextStyle.FontExtents().Height + (n-1)*leg.Padding
	top := c
	top.Min.Y = c.Max.Y - h
	leg.Top = true
	leg.Draw(top)
	c.Max.Y -= h + leg.Padding
	return c
}

// newGrid is the grid lines of a plot of curves, in the theme's colour.
func newGrid(th colours) *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = th.grid, th.grid
	return g
}

// titleAcross draws pl's title centred across the whole of c, not only over the
// plot's part of it (a scatter's legend or a heatmap's colour bar takes the rest:
// a long title centred over the plot alone ran off the left edge), takes it off pl,
// and returns the canvas under it.
func titleAcross(c draw.Canvas, pl *plot.Plot) draw.Canvas {
	if pl.Title.Text == "" {
		return c
	}
	c = fitTitle(c, pl.Title.TextStyle, pl.Title.Text, pl.Title.Padding)
	pl.Title.Text = ""
	return c
}

// minTitleSize is the smallest a long title shrinks to, in points: 30 px to the em at
// 1920 px wide, above the 28 px a title must keep at the back of a room.
const minTitleSize = 9

// fitTitle draws title centred at the top of c in sty and returns the canvas under
// it. A title wider than c shrinks to fit, down to minTitleSize; one still too wide
// breaks at the space nearest its middle (outside its maths) onto two lines.
func fitTitle(c draw.Canvas, sty draw.TextStyle, title string, gap vg.Length) draw.Canvas {
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	width := c.Max.X - c.Min.X
	lines := []string{title}
	if w := sty.Width(title); w > width {
		sty.Font.Size = max(vg.Points(minTitleSize), sty.Font.Size*width/w)
		if sty.Width(title) > width {
			if a, b, ok := halves(title); ok {
				lines = []string{a, b}
			}
		}
	}
	for _, l := range lines {
		c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y}, l)
		c.Max.Y -= sty.Height(l)
	}
	c.Max.Y -= gap
	return c
}

// halves splits s at the space nearest its middle that is not inside \( … \).
func halves(s string) (string, string, bool) {
	best, inMath := -1, false
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], `\(`):
			inMath = true
		case strings.HasPrefix(s[i:], `\)`):
			inMath = false
		case s[i] == ' ' && !inMath && (best < 0 || abs(i-len(s)/2) < abs(best-len(s)/2)):
			best = i
		}
	}
	if best <= 0 {
		return "", "", false
	}
	return s[:best], s[best+1:], true
}
