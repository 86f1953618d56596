package figures

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"unroll/palette"
)

// Scene is a picture of shapes on a square grid (the captioning lesson's image v),
// drawn as its page panel draws it: a dark ground (palette.SceneGround) ruled into
// Grid × Grid cells, each shape centred in its cell in its paint; the rows' names
// left of the grid and the columns' under it, like an axis's ticks.
type Scene struct {
	Grid       int
	Rows, Cols []string // the rows' names top to bottom and the columns' left to right (Grid each, or none)
	Shapes     []SceneShape
}

// SceneShape is one shape of a Scene: its cell (0-based, row 0 at the top), its kind
// and its paint.
type SceneShape struct {
	Row, Col int
	Kind     palette.Marker // palette.Circle (a disc), palette.Square (its outline, as the raster draws it) or palette.Triangle; another kind is not drawn, as on the page
	Paint    color.Color
}

// Layout of a scene, in points.
const (
	sceneLabelGap = 6    // between the grid and its labels
	sceneRadius   = 0.36 // a shape's half-size, of its cell (scene.js)
	sceneMaxSide  = 5 * vg.Inch
)

// sceneBox is where a scene's grid goes on c (the canvas under the title): the
// left edge, the top and the side of the square grid.
func sceneBox(c draw.Canvas, s Scene) (x0, top, side vg.Length) {
	rowW := vg.Length(0)
	for _, r := range s.Rows {
		rowW = max(rowW, vg.Length(textWidth(r, labelSize, false)))
	}
	colH := vg.Length(0)
	if len(s.Cols) > 0 {
		colH = vg.Points(labelSize*1.2) + sceneLabelGap
	}
	if rowW > 0 {
		rowW += sceneLabelGap
	}
	cw, ch := c.Max.X-c.Min.X, c.Max.Y-c.Min.Y
	// centred across the canvas, the row names hanging left of it (room for them on both
	// sides keeps the grid in the middle)
	side = max(0, min(cw-2*rowW, ch-colH, sceneMaxSide))
	x0 = c.Min.X + (cw-side)/2
	top = c.Max.Y - max(0, ch-colH-side)/2
	return x0, top, side
}

// drawScene draws the figure's scene under its title, in the theme's colours around
// the scene's own.
func drawScene(f Figure, s Scene, o Options) (func(draw.Canvas), error) {
	if s.Grid < 1 {
		return nil, fmt.Errorf("figures: a scene of %d cells a side", s.Grid)
	}
	if (len(s.Rows) != 0 && len(s.Rows) != s.Grid) || (len(s.Cols) != 0 && len(s.Cols) != s.Grid) {
		return nil, fmt.Errorf("figures: a scene of %d cells a side with %d row and %d column names", s.Grid, len(s.Rows), len(s.Cols))
	}
	for _, sh := range s.Shapes {
		if sh.Row < 0 || sh.Row >= s.Grid || sh.Col < 0 || sh.Col >= s.Grid {
			return nil, fmt.Errorf("figures: a shape in cell (%d, %d) of a scene of %d cells a side", sh.Row+1, sh.Col+1, s.Grid)
		}
	}
	for _, l := range append(append([]string{}, s.Rows...), s.Cols...) {
		if err := CheckText(l); err != nil {
			return nil, err
		}
	}
	th := themeColours[o.Theme]
	return func(c draw.Canvas) {
		c = drawTitle(c, f.Title, th)
		x0, top, side := sceneBox(c, s)
		cell := side / vg.Length(s.Grid)
		p := pen{c: c, x0: x0, y0: top, s: 1}
		n := float64(s.Grid)
		k := float64(cell)
		p.fill(rect{0, 0, k * n, k * n}, palette.SceneGround.RGBA())
		for i := range s.Grid + 1 {
			at := k * float64(i)
			p.line(palette.SceneLines.RGBA(), 1, nil, [2]float64{at, 0}, [2]float64{at, k * n})
			p.line(palette.SceneLines.RGBA(), 1, nil, [2]float64{0, at}, [2]float64{k * n, at})
		}
		for _, sh := range s.Shapes {
			p.sceneShape(sh, k*(float64(sh.Col)+0.5), k*(float64(sh.Row)+0.5), k*sceneRadius)
		}
		for i, r := range s.Rows {
			p.text(-sceneLabelGap, k*(float64(i)+0.5), r, labelSize, false, th.foreground, text.XRight)
		}
		for i, col := range s.Cols {
			p.text(k*(float64(i)+0.5), k*n+sceneLabelGap+labelSize*0.6, col, labelSize, false, th.foreground, text.XCenter)
		}
	}, nil
}

// sceneShape draws one shape centred at (cx, cy) with half-size r, as scene.js does:
// a disc, a square's outline a third of r thick, a triangle standing on its base.
func (p pen) sceneShape(sh SceneShape, cx, cy, r float64) {
	switch sh.Kind {
	case palette.Circle:
		var path vg.Path
		path.Move(p.pt(cx+r, cy))
		path.Arc(p.pt(cx, cy), p.len(r), 0, 2*math.Pi)
		path.Close()
		p.c.SetColor(sh.Paint)
		p.c.Fill(path)
	case palette.Square:
		// four bars, not a stroked path: a raster canvas leaves the corner where a
		// closed path starts unjoined
		w := r / 3
		p.fill(rect{cx - r, cy - r, 2 * r, w}, sh.Paint)
		p.fill(rect{cx - r, cy + r - w, 2 * r, w}, sh.Paint)
		p.fill(rect{cx - r, cy - r, w, 2 * r}, sh.Paint)
		p.fill(rect{cx + r - w, cy - r, w, 2 * r}, sh.Paint)
	case palette.Triangle:
		p.polygon(sh.Paint, [2]float64{cx, cy - r}, [2]float64{cx + r, cy + r}, [2]float64{cx - r, cy + r})
	}
}

// SceneCell is where cell (row, col) of figure f's scene is drawn with options o, as
// fractions of the drawing's width and height from its top-left corner: a test finds
// the cell in a PNG or a rasterised PDF of any resolution by it.
func SceneCell(f Figure, o Options, row, col int) (x0, y0, x1, y1 float64, err error) {
	if f.Scene == nil {
		return 0, 0, 0, 0, fmt.Errorf("figures: the figure has no scene")
	}
	s := *f.Scene
	if row < 0 || row >= s.Grid || col < 0 || col >= s.Grid {
		return 0, 0, 0, 0, fmt.Errorf("figures: no cell (%d, %d) in a scene of %d cells a side", row+1, col+1, s.Grid)
	}
	o, err = o.withDefaults()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	w, h := o.size()
	c := draw.NewCanvas(new(recorder.Canvas), w, h)
	c = draw.Crop(c, figureMargin, -figureMargin, figureMargin, -figureMargin)
	c = drawTitle(c, f.Title, themeColours[o.Theme])
	left, top, side := sceneBox(c, s)
	k := side / vg.Length(s.Grid)
	fx := func(x vg.Length) float64 { return float64(x / w) }
	fy := func(y vg.Length) float64 { return float64((h - y) / h) }
	return fx(left + k*vg.Length(col)), fy(top - k*vg.Length(row)), fx(left + k*vg.Length(col+1)), fy(top - k*vg.Length(row+1)), nil
}
