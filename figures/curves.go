package figures

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Layout of a figure of curves or points.
const (
	legendHeadroom = 0.18 // fraction of the y range added on top, where the legend goes (at least)
	// legendInset lowers a legend that reaches under the title, so the two never touch
	// (a viewer without the Liberation fonts draws an SVG's text wider than measured).
	legendInset = 8             // points
	legendGap   = vg.Length(10) // points between a scatter and the legend beside it
)

// okabeIto is the Okabe–Ito palette, distinguishable with every common colour-vision
// deficiency, in the order curves use it (yellow last: faint on white).
var okabeIto = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0x00, 0x00, 0x00, 0xFF}, // black
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
}

// curveColour is curve i's colour: the palette's, in turn, with the theme's text
// colour for its black (black vanishes on the dark theme's background).
func curveColour(i int, th colours) color.Color {
	c := okabeIto[i%len(okabeIto)]
	if c == (color.RGBA{0x00, 0x00, 0x00, 0xFF}) {
		return th.foreground
	}
	return c
}

// dashes tell curves apart in greyscale print, and where two curves coincide (the
// bound of an identity RNN is met exactly): curve i uses pattern i mod 3.
var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}}

// Glyphs of a Points figure: a dot, and for the series after the palette's colours
// are used up, a ring around the point (a lesson puts a marked subset there, such as
// a word and its neighbours, drawn over the dots of the same points).
const (
	dotRadius  = 2.5 // points: small enough for 262 words to stay apart
	ringRadius = 5   // points: around a dot, with room for the dot's own colour
	ringWidth  = 1.5 // points: visible at a slide's distance
	// ringFirstColour makes the first ring series black (okabeIto[6]), which stands
	// out over dots of every colour.
	ringFirstColour = 6
)

// ringGlyph is draw.RingGlyph with a line ringWidth wide (RingGlyph's 0.5 pt
// disappears on a projector).
type ringGlyph struct{}

func (ringGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(ringWidth)})
	var path vg.Path
	path.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	path.Arc(pt, sty.Radius, 0, 2*math.Pi)
	path.Close()
	c.Stroke(path)
}

// addPoints draws series i of a Points figure: a dot per point in colour c (once i has
// gone through the palette, a ring, in another colour of the palette), the series in
// the legend, and the points' labels (those that are not "") beside them.
func addPoints(pl *plot.Plot, s Series, pts plotter.XYs, c color.Color, i int, th colours) error {
	dots, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	dots.GlyphStyle.Color = c
	dots.GlyphStyle.Shape = draw.CircleGlyph{}
	dots.GlyphStyle.Radius = vg.Points(dotRadius)
	offset := vg.Points(3)
	if i >= len(okabeIto) {
		dots.GlyphStyle.Color = curveColour(i+ringFirstColour, th)
		dots.GlyphStyle.Shape = ringGlyph{}
		dots.GlyphStyle.Radius = vg.Points(ringRadius)
		offset = vg.Points(ringRadius + 1)
	}
	pl.Add(dots)
	pl.Legend.Add(s.Label, dots)
	var labelled plotter.XYLabels
	for j, l := range s.Labels {
		if l != "" && j < len(s.X) && j < len(s.Y) {
			labelled.XYs = append(labelled.XYs, plotter.XY{X: s.X[j], Y: s.Y[j]})
			labelled.Labels = append(labelled.Labels, l)
		}
	}
	if len(labelled.Labels) == 0 {
		return nil
	}
	labels, err := plotter.NewLabels(labelled)
	if err != nil {
		return err
	}
	for j := range labels.TextStyle {
		labels.TextStyle[j].Font.Size = vg.Points(7)
		labels.TextStyle[j].Color = th.foreground
		labels.TextStyle[j].XAlign = draw.XLeft
	}
	labels.Offset = vg.Point{X: offset, Y: vg.Points(1)}
	pl.Add(labels)
	return nil
}

// drawCurves draws f's series as lines (as labelled points when f.Points) with f's
// title and axis labels (log y when f.LogY: points with y ≤ 0 cannot be drawn there
// and are left out).
func drawCurves(f Figure, o Options) (func(draw.Canvas), error) {
	th := themeColours[o.Theme]
	pl := newPlot(th)
	pl.Title.Text = f.Title
	pl.X.Label.Text = f.XLabel
	pl.Y.Label.Text = f.YLabel
	pl.Legend.Top = true
	pl.X.Tick.Marker, pl.Y.Tick.Marker = linearTicks{}, linearTicks{}
	if f.LogY {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = logTicks{}
	}
	pl.Add(newGrid(th))
	var legend []string // the labels in the legend, in order
	var xs, ys [][]float64
	for i, s := range f.Series {
		pts := make(plotter.XYs, 0, len(s.Y))
		for j := range min(len(s.X), len(s.Y)) {
			x, y := s.X[j], s.Y[j]
			if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) || (f.LogY && y <= 0) {
				continue
			}
			pts = append(pts, plotter.XY{X: x, Y: y})
		}
		if len(pts) == 0 {
			continue
		}
		x, y := make([]float64, len(pts)), make([]float64, len(pts))
		for j, pt := range pts {
			x[j], y[j] = pt.X, pt.Y
		}
		xs, ys = append(xs, x), append(ys, y)
		legend = append(legend, s.Label)
		if f.Points {
			if err := addPoints(pl, s, pts, curveColour(i, th), i, th); err != nil {
				return nil, err
			}
			continue
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		line.Color = curveColour(i, th)
		line.Width = vg.Points(2)
		line.Dashes = dashes[i%len(dashes)]
		pl.Add(line)
		pl.Legend.Add(s.Label, line)
	}
	if len(legend) == 0 { // an empty log axis has no range: give it one
		pl.Y.Min, pl.Y.Max = 1, 10
		pl.X.Min, pl.X.Max = 0, 1
	}
	if f.LogY && pl.Y.Min >= pl.Y.Max {
		// Every point at one height (bptt with truncation 1: only step T, at 1). gonum would
		// widen the range to [y−1, y+1], which reaches 0 on a log axis: widen it by a decade.
		pl.Y.Min, pl.Y.Max = pl.Y.Min/math.Sqrt(10), pl.Y.Max*math.Sqrt(10)
	}
	fixedY := len(f.YScale) == 2 && f.YScale[0] < f.YScale[1]
	if fixedY {
		pl.Y.Min, pl.Y.Max = f.YScale[0], f.YScale[1]
	}
	if wholeAxis(xs, pl.X.Min, pl.X.Max) {
		pl.X.Tick.Marker = wholeTicks{}
	}
	return func(c draw.Canvas) {
		if f.Points && len(legend) > 0 {
			// A scatter fills its whole area: its legend goes beside it, not over the points.
			c = titleAcross(c, pl)
			leg := pl.Legend
			leg.TextStyle.Font.Size = vg.Points(tickSize) // beside the scatter it takes width from the points
			pl.Legend = plot.NewLegend()
			var width vg.Length
			for _, l := range legend {
				width = max(width, leg.ThumbnailWidth+leg.TextStyle.Width(" "+l))
			}
			main, side := c, c
			main.Max.X -= width + legendGap
			side.Min.X = main.Max.X + legendGap
			pl.Draw(main)
			leg.Draw(side)
			return
		}
		if !fixedY {
			makeLegendRoom(pl, c, legend, f.LogY)
		}
		if !f.LogY && wholeAxis(ys, pl.Y.Min, pl.Y.Max) {
			pl.Y.Tick.Marker = wholeTicks{}
		}
		pl.Draw(c)
	}, nil
}

// makeLegendRoom adds headroom above the curves for the legend at the top right:
// legendHeadroom of the y range, or more when the legend's rows need it, so no curve
// runs through the legend. A legend wide enough to reach under the title is lowered
// by legendInset, and the headroom grows by as much.
func makeLegendRoom(pl *plot.Plot, c draw.Canvas, labels []string, logY bool) {
	sty := pl.Legend.TextStyle
	var width vg.Length
	for _, l := range labels {
		width = max(width, pl.Legend.ThumbnailWidth+sty.Width(" "+l))
	}
	titleRight := (c.Min.X+c.Max.X)/2 + pl.Title.TextStyle.Width(pl.Title.Text)/2
	var inset vg.Length
	if len(labels) > 0 && c.Max.X-width < titleRight+vg.Points(legendInset) {
		inset = vg.Points(legendInset)
		pl.Legend.YOffs = -inset
	}
	rows := vg.Length(len(labels))
	need := rows*sty.FontExtents().Height + max(0, rows-1)*pl.Legend.Padding + inset
	dc := pl.DataCanvas(c)
	share := float64(need / (dc.Max.Y - dc.Min.Y)) // of the data area's height
	headroom := max(legendHeadroom, share/(1-min(share, 0.5)))
	if logY {
		pl.Y.Max *= math.Pow(pl.Y.Max/pl.Y.Min, headroom)
	} else {
		pl.Y.Max += headroom * (pl.Y.Max - pl.Y.Min)
	}
}
