package figures

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	unrollpalette "unroll/palette"
)

// Layout of a figure of curves or points.
const (
	legendHeadroom = 0.18 // fraction of the y range added on top, where the legend goes (at least)
	// legendInset lowers a legend that reaches under the title, so the two never touch
	// (a viewer without the Liberation fonts draws an SVG's text wider than measured).
	legendInset = 8             // points
	legendGap   = vg.Length(10) // points between a scatter and the legend beside it
)

// pointColours are the colours of a Points figure's dot series, in order: the
// categorical colours, then the grey the page draws its last class in (the embedding
// map's function words); series after them are rings.
var pointColours = append(slices.Clone(unrollpalette.Categorical), unrollpalette.Rest)

// markerMaxPoints: a curve of at most this many points marks each with its series'
// glyph (as the pages do); a longer one (a training curve) would be all glyph.
const markerMaxPoints = 64

// markerRadius is a curve's glyph radius, in points: as wide as the 2 pt line and more.
const markerRadius = 3

// lineDashes is dash pattern i of the palette, in points.
func lineDashes(i int) []vg.Length {
	var out []vg.Length
	for _, d := range unrollpalette.Dashes[i] {
		out = append(out, vg.Points(d))
	}
	return out
}

// glyphs are gonum's shapes for the palette's markers (filled, as on the pages).
var glyphs = map[unrollpalette.Marker]draw.GlyphDrawer{
	unrollpalette.Circle:   draw.CircleGlyph{},
	unrollpalette.Square:   draw.BoxGlyph{},
	unrollpalette.Triangle: draw.PyramidGlyph{},
	unrollpalette.Diamond:  diamondGlyph{},
	unrollpalette.Cross:    crossGlyph{},
}

// crossGlyph is an ✕ with strokes ringWidth wide (draw.CrossGlyph's 0.5 pt vanishes
// on a projector).
type crossGlyph struct{}

func (crossGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(ringWidth)})
	r := sty.Radius
	var p vg.Path
	p.Move(vg.Point{X: pt.X - r, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y + r})
	p.Move(vg.Point{X: pt.X - r, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y - r})
	c.Stroke(p)
}

// diamondGlyph is a filled square standing on a corner.
type diamondGlyph struct{}

func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetColor(sty.Color)
	r := sty.Radius * 1.2
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	c.Fill(p)
}

// themed is a palette colour on the theme: its black becomes the theme's text colour
// (black vanishes on the dark theme's background).
func themed(c color.RGBA, th colours) color.Color {
	if c == (color.RGBA{0x00, 0x00, 0x00, 0xFF}) {
		return th.foreground
	}
	return c
}

// Glyphs of a Points figure: a dot, and for the series after the palette's colours
// are used up, a ring around the point (a lesson puts a marked subset there, such as
// a word and its neighbours, drawn over the dots of the same points).
const (
	dotRadius  = 2.5 // points: small enough for 262 words to stay apart
	ringRadius = 5   // points: around a dot, with room for the dot's own colour
	ringWidth  = 1.5 // points: visible at a slide's distance
	// ringFirstColour makes the first ring series black (the palette's Categorical[6]),
	// which stands out over dots of every colour.
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
	if i >= len(pointColours) {
		dots.GlyphStyle.Color = themed(unrollpalette.Categorical[(i-len(pointColours)+ringFirstColour)%len(unrollpalette.Categorical)].RGBA(), th)
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
	pl := figurePlot(f, th)
	pl.X.Tick.Marker = linearTicks{}
	if f.LogY {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = logTicks{}
	}
	var legend []string // the labels in the legend, in order
	var xs, ys [][]float64
	var labels []string
	for _, s := range f.Series {
		labels = append(labels, s.Label)
	}
	styles := unrollpalette.Assign(labels) // a role (LSTM, GRU, …) looks as on the pages
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
		if s.Marker {
			var marks plotter.XYs
			for _, pt := range pts {
				if pt.Y != 0 {
					marks = append(marks, pt)
				}
			}
			if len(marks) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(marks)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: styles[i].Colour.RGBA(), Radius: vg.Points(5), Shape: draw.TriangleGlyph{}}
			pl.Add(sc)
			pl.Legend.Add(s.Label, sc)
			continue
		}
		if f.Points {
			if err := addPoints(pl, s, pts, themed(pointColours[i%len(pointColours)].RGBA(), th), i, th); err != nil {
				return nil, err
			}
			continue
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		st := styles[i]
		line.Color = themed(st.Colour.RGBA(), th)
		line.Width = vg.Points(2)
		line.Dashes = lineDashes(st.Dash)
		pl.Add(line)
		if len(pts) > markerMaxPoints {
			pl.Legend.Add(s.Label, line)
			continue
		}
		marks, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		marks.GlyphStyle = draw.GlyphStyle{Color: line.Color, Radius: vg.Points(markerRadius), Shape: glyphs[unrollpalette.Markers[st.Marker]]}
		pl.Add(marks)
		pl.Legend.Add(s.Label, line, marks)
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
	if len(f.XRange) == 2 {
		pl.X.Min, pl.X.Max = f.XRange[0], f.XRange[1]
	}
	fixedY := len(f.YScale) == 2 && f.YScale[0] < f.YScale[1]
	if fixedY { // the page's fixed axis: a 1 % dip stays a 1 % dip
		pl.Y.Min, pl.Y.Max = f.YScale[0], f.YScale[1]
	}
	if f.Now > 0 {
		pl.Add(nowLine{x: f.Now, colour: th.foreground})
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
		c = titleAcross(c, pl)
		if fixedY { // the page's axis stays: the legend goes above the curves, as on the page
			c = legendAbove(c, pl, len(legend))
		} else {
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

// nowLine is the current step on a figure of curves: a vertical line at x, as the
// pages draw it.
type nowLine struct {
	x      float64
	colour color.Color // the theme's text colour
}

func (n nowLine) Plot(c draw.Canvas, pl *plot.Plot) {
	tx, _ := pl.Transforms(&c)
	x := tx(n.x)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	sty := draw.LineStyle{Color: n.colour, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
	c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
}
