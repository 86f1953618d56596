package figures

import (
	"image/color"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Mark is what a table's cell or a diagram's node stands out by, as a set of flags.
// Each mark is drawn with a shape, an outline or a line style as well as a colour
// (Okabe–Ito tints where they can be), so that it reads in greyscale print and with
// every common colour-vision deficiency.
type Mark uint32

// The marks.
const (
	Current  Mark = 1 << iota // the step or item now: amber fill and a thick dark outline
	Done                      // computed already: a light blue fill
	Pending                   // not computed yet: a faint outline and grey text
	Match                     // right, matched, chosen: a green fill and a check mark
	Wrong                     // wrong, unmatched where a match was wanted: an orange fill and a cross
	Clipped                   // matched but over its clip count: an orange fill and a slash
	Special                   // a special token (<bos>, <eos>): a blue fill and a dotted outline
	Faint                     // off, padding: a grey fill and grey text
	Cut                       // left out: struck through
	Changed                   // changed at this stage: a yellow fill and a corner triangle
	Unknown                   // read as <unk>: a red fill and a thick dashed red outline
	Pruned                    // dropped from the beam: a dashed grey outline and grey text
	Finished                  // a finished hypothesis: a green fill and a double outline
	Best                      // on the best path: a thick vermillion outline
	Greedy                    // on greedy search's path: a dotted orange underline
	Accent                    // the context vector: a purple fill and outline
	Output                    // an output node: a light green fill
)

// Has reports whether m has every flag of x.
func (m Mark) Has(x Mark) bool { return m&x == x && x != 0 }

// KeyEntry explains one mark in a figure's key: a sample box drawn with Mark, then Text.
type KeyEntry struct {
	Mark Mark
	Text string
}

// Colours of the drawings: the pages' ink and the Okabe–Ito tints.
var (
	ink       = color.RGBA{0x1d, 0x24, 0x30, 0xff}
	muted     = color.RGBA{0x6b, 0x72, 0x80, 0xff}
	rule      = color.RGBA{0xcb, 0xd5, 0xe1, 0xff}
	faintLine = color.RGBA{0xe5, 0xe7, 0xeb, 0xff}
	white     = color.RGBA{0xff, 0xff, 0xff, 0xff}
	nowFill   = color.RGBA{0xfd, 0xe6, 0x8a, 0xff}
	nowStroke = color.RGBA{0x11, 0x18, 0x27, 0xff}
	nowBand   = color.RGBA{0xfe, 0xf3, 0xc7, 0xff}
	doneFill  = color.RGBA{0xe0, 0xf2, 0xfe, 0xff}
	goodFill  = color.RGBA{0xd1, 0xfa, 0xe5, 0xff}
	goodLine  = color.RGBA{0x00, 0x9E, 0x73, 0xff} // Okabe–Ito bluish green
	badFill   = color.RGBA{0xfe, 0xd7, 0xaa, 0xff}
	badLine   = color.RGBA{0xD5, 0x5E, 0x00, 0xff} // Okabe–Ito vermillion
	clipFill  = color.RGBA{0xfd, 0xe6, 0xc4, 0xff}
	clipLine  = color.RGBA{0xE6, 0x9F, 0x00, 0xff} // Okabe–Ito orange
	specFill  = color.RGBA{0xbf, 0xdb, 0xfe, 0xff}
	specLine  = color.RGBA{0x00, 0x72, 0xB2, 0xff} // Okabe–Ito blue
	greyFill  = color.RGBA{0xf1, 0xf3, 0xf5, 0xff}
	yellow    = color.RGBA{0xfe, 0xf0, 0x8a, 0xff}
	unkFill   = color.RGBA{0xfe, 0xca, 0xca, 0xff}
	unkLine   = color.RGBA{0xdc, 0x26, 0x26, 0xff}
	keptFill  = color.RGBA{0xe3, 0xef, 0xf9, 0xff}
	accFill   = color.RGBA{0xed, 0xe9, 0xfe, 0xff}
	accLine   = color.RGBA{0x7c, 0x3a, 0xed, 0xff}
	outFill   = color.RGBA{0xdc, 0xfc, 0xe7, 0xff}
	barTrack  = color.RGBA{0xee, 0xf2, 0xf7, 0xff}
	barFill   = color.RGBA{0x56, 0xB4, 0xE9, 0xff} // Okabe–Ito sky blue
	barStrong = color.RGBA{0x00, 0x72, 0xB2, 0xff} // Okabe–Ito blue: the top entry
)

// Type sizes of the tables and diagrams, in points at scale 1; a figure scales them
// all together to fit, never below minScale.
const (
	bodySize  = 11 // a cell's or node's text
	smallSize = 8.5
	// minSmall is the smallest type drawn: 20 px on a 1920 px wide slide is 1/96 of the
	// width, 6 pt of the figure's 8 in.
	minSmall = 6.0
	minScale = minSmall / smallSize
	maxScale = 1.6 // a small table or diagram grows to at most this, so it does not look bloated
)

// textStyle is the figures' font (DejaVu Sans, maths in \( … \) typeset) of the given size and colour, centred vertically on
// its point and aligned horizontally by xAlign. What would be bold (bold) is drawn in
// the regular face: gonum's PDF canvas registers each face without its style and then
// asks for a bold one by style, which it cannot find; emphasis is the marks' outlines.
func textStyle(size float64, bold bool, c color.Color, xAlign text.XAlignment) draw.TextStyle {
	_ = bold
	f := figureFont
	f.Size = vg.Length(size)
	return draw.TextStyle{Color: c, Font: f, XAlign: xAlign, YAlign: draw.YCenter, Handler: mathText{}}
}

// textWidth is the width of s at scale 1 in points. A table is laid out at many
// scales until it fits: the widths of its texts are measured once (a figure measures
// at most a few thousand strings, and the server draws few figures).
func textWidth(s string, size float64, bold bool) float64 {
	type key struct {
		s    string
		size float64
	}
	k := key{s, size}
	if w, ok := widths.Load(k); ok {
		return w.(float64)
	}
	w := float64(textStyle(size, bold, ink, draw.XLeft).Width(s))
	if widthsCount.Add(1) <= maxWidths {
		widths.Store(k, w)
	}
	return w
}

// maxWidths bounds the widths remembered, so that a server drawing figures of ever
// new words holds at most a few hundred kilobytes for them.
const maxWidths = 20000

var (
	widths      sync.Map // text and size → width in points
	widthsCount atomic.Int64
)

// pen draws a layout made at scale 1 in points, x right and y down from (x0, top),
// scaled by s onto a canvas.
type pen struct {
	c      draw.Canvas
	x0, y0 vg.Length // the layout's top-left corner on the canvas
	s      float64
}

func (p pen) pt(x, y float64) vg.Point {
	return vg.Point{X: p.x0 + vg.Length(x*p.s), Y: p.y0 - vg.Length(y*p.s)}
}

func (p pen) len(x float64) vg.Length { return vg.Length(x * p.s) }

// text draws s at (x, y) (vertically centred) in the given size, weight and colour.
func (p pen) text(x, y float64, s string, size float64, bold bool, c color.Color, xAlign text.XAlignment) {
	if s == "" {
		return
	}
	p.c.FillText(textStyle(size*p.s, bold, c, xAlign), p.pt(x, y), s)
}

// rect is a box of a layout: its top-left corner and size.
type rect struct{ x, y, w, h float64 }

func (p pen) path(r rect) vg.Path {
	var path vg.Path
	path.Move(p.pt(r.x, r.y))
	path.Line(p.pt(r.x+r.w, r.y))
	path.Line(p.pt(r.x+r.w, r.y+r.h))
	path.Line(p.pt(r.x, r.y+r.h))
	path.Close()
	return path
}

func (p pen) fill(r rect, c color.Color) {
	p.c.SetColor(c)
	p.c.Fill(p.path(r))
}

func (p pen) stroke(r rect, c color.Color, width float64, dashes []float64) {
	p.c.SetLineStyle(draw.LineStyle{Color: c, Width: p.len(width), Dashes: p.dashes(dashes)})
	p.c.Stroke(p.path(r))
}

func (p pen) dashes(d []float64) []vg.Length {
	var out []vg.Length
	for _, x := range d {
		out = append(out, p.len(x))
	}
	return out
}

// polyline is the path through pts.
func (p pen) polyline(pts [][2]float64) vg.Path {
	var path vg.Path
	for i, q := range pts {
		if i == 0 {
			path.Move(p.pt(q[0], q[1]))
		} else {
			path.Line(p.pt(q[0], q[1]))
		}
	}
	return path
}

// line draws a polyline.
func (p pen) line(c color.Color, width float64, dashes []float64, pts ...[2]float64) {
	p.c.SetLineStyle(draw.LineStyle{Color: c, Width: p.len(width), Dashes: p.dashes(dashes)})
	p.c.Stroke(p.polyline(pts))
}

// polygon fills a closed polygon.
func (p pen) polygon(c color.Color, pts ...[2]float64) {
	path := p.polyline(pts)
	path.Close()
	p.c.SetColor(c)
	p.c.Fill(path)
}

// look is how a box with a set of marks is drawn.
type look struct {
	fill, line, text color.Color
	width            float64   // the outline's, points at scale 1
	dashes           []float64 // the outline's
	bold             bool
}

// fills choose a box's fill: the first row whose marks the box has one of (and none of
// the row's unless) gives it; a box with none of them is white.
var fills = []struct {
	any, unless Mark
	fill        color.Color
}{
	{Unknown, 0, unkFill},
	{Match | Finished, 0, goodFill},
	{Wrong, Faint, badFill},
	{Clipped, 0, clipFill},
	{Changed, 0, yellow},
	{Special, 0, specFill},
	{Accent, 0, accFill},
	{Current, 0, nowFill},
	{Output, 0, outFill},
	{Faint | Cut, 0, greyFill},
	{Done, 0, doneFill},
}

// lookOf is the fill, outline and text colour of a box with marks m; the shapes that
// go with them are drawn by decorate.
func lookOf(m Mark) look {
	l := look{fill: white, line: rule, text: ink, width: 0.8}
	for _, f := range fills {
		if m&f.any != 0 && m&f.unless == 0 {
			l.fill = f.fill
			break
		}
	}
	switch {
	case m.Has(Pending):
		l.line, l.text = faintLine, muted
	case m.Has(Pruned):
		l.line, l.text, l.dashes = muted, muted, []float64{3, 2}
	case m.Has(Faint):
		l.text = muted
	}
	switch {
	case m.Has(Best):
		l.line, l.width = badLine, 2.6
	case m.Has(Current):
		l.line, l.width, l.bold = nowStroke, 2.2, true
	case m.Has(Unknown):
		l.line, l.width, l.dashes = unkLine, 1.8, []float64{3, 1.5}
	case m.Has(Special):
		l.line, l.dashes = specLine, []float64{1, 1.5}
	case m.Has(Accent):
		l.line, l.width = accLine, 1.6
	case m.Has(Finished):
		l.line, l.width = goodLine, 1.2
	case m.Has(Match):
		l.line = goodLine
	case m.Has(Wrong):
		l.line = badLine
	case m.Has(Clipped):
		l.line = clipLine
	case m.Has(Done) && !m.Has(Pending):
		l.line = color.RGBA{0x64, 0x74, 0x8b, 0xff}
	}
	return l
}

// box draws a box with marks m: its fill, its outline and the shapes of its marks.
func (p pen) box(r rect, m Mark) look {
	l := lookOf(m)
	p.fill(r, l.fill)
	p.stroke(r, l.line, l.width, l.dashes)
	p.decorate(r, m)
	return l
}

// decorate draws the shapes that mark a box beyond its colours: a check (Match), a
// cross (Wrong), a slash (Clipped), a corner triangle (Changed), a second outline
// (Finished), a strike-through (Cut) and a dotted underline (Greedy); Current's
// thick dark outline is its look's.
func (p pen) decorate(r rect, m Mark) {
	k := min(r.h*0.28, 6.0) // the size of a corner sign
	cx, cy := r.x+r.w-k*0.9, r.y+k*0.9
	switch {
	case m.Has(Match) || m.Has(Finished) && !m.Has(Pruned):
		p.line(goodLine, 1.3, nil, [2]float64{cx - k*0.6, cy}, [2]float64{cx - k*0.15, cy + k*0.5}, [2]float64{cx + k*0.6, cy - k*0.55})
	case m.Has(Wrong):
		p.line(badLine, 1.3, nil, [2]float64{cx - k*0.5, cy - k*0.5}, [2]float64{cx + k*0.5, cy + k*0.5})
		p.line(badLine, 1.3, nil, [2]float64{cx - k*0.5, cy + k*0.5}, [2]float64{cx + k*0.5, cy - k*0.5})
	case m.Has(Clipped):
		p.line(clipLine, 1.3, nil, [2]float64{cx - k*0.5, cy + k*0.6}, [2]float64{cx + k*0.5, cy - k*0.6})
	}
	if m.Has(Changed) {
		p.polygon(clipLine, [2]float64{r.x, r.y}, [2]float64{r.x + k*1.3, r.y}, [2]float64{r.x, r.y + k*1.3})
	}
	if m.Has(Finished) {
		p.stroke(rect{r.x + 2, r.y + 2, r.w - 4, r.h - 4}, goodLine, 0.7, nil)
	}
	if m.Has(Cut) {
		p.line(unkLine, 1, nil, [2]float64{r.x + 3, r.y + r.h/2}, [2]float64{r.x + r.w - 3, r.y + r.h/2})
	}
	if m.Has(Greedy) {
		p.line(clipLine, 2.2, []float64{2, 2}, [2]float64{r.x + 2, r.y + r.h + 2}, [2]float64{r.x + r.w - 2, r.y + r.h + 2})
	}
}

// pointer draws a ► ending at (x, y), k tall.
func (p pen) pointer(x, y, k float64) {
	p.polygon(nowStroke, [2]float64{x - k*1.2, y - k}, [2]float64{x, y}, [2]float64{x - k*1.2, y + k})
}

// keyHeight is the height of a key's row at scale 1.
const keyHeight = 16

// drawKey draws the key's entries in a row from (x, y) (scale-1 points), wrapping at
// width, and returns the height it took.
func (p pen) drawKey(entries []KeyEntry, x, y, width float64) float64 {
	cx, cy := x, y
	for _, e := range entries {
		w := 20 + 5 + textWidth(e.Text, smallSize, false) + 14
		if cx+w > x+width && cx > x {
			cx, cy = x, cy+keyHeight
		}
		p.box(rect{cx + 4, cy + 2, 20, 11}, e.Mark&^Greedy)
		if e.Mark.Has(Greedy) {
			p.line(clipLine, 2.2, []float64{2, 2}, [2]float64{cx + 4, cy + 14.5}, [2]float64{cx + 24, cy + 14.5})
		}
		p.text(cx+29, cy+7.5, e.Text, smallSize, false, ink, draw.XLeft)
		cx += w
	}
	return cy + keyHeight - y
}

// keyRows is how many rows the key takes at width (scale 1).
func keyRows(entries []KeyEntry, width float64) int {
	if len(entries) == 0 {
		return 0
	}
	rows, cx := 1, 0.0
	for _, e := range entries {
		w := 20 + 5 + textWidth(e.Text, smallSize, false) + 14
		if cx+w > width && cx > 0 {
			rows, cx = rows+1, 0
		}
		cx += w
	}
	return rows
}

// drawTitle draws a figure's title centred at the top of c in the theme's text colour
// and returns the canvas below it. Maths in \( … \) is typeset; a title the figures'
// typesetter cannot set is drawn as Plain text.
func drawTitle(c draw.Canvas, title string, th colours) draw.Canvas {
	if title == "" {
		return c
	}
	if CheckText(title) != nil {
		title = Plain(title)
	}
	return fitTitle(c, textStyle(titleSize, false, th.foreground, draw.XCenter), title, vg.Points(8))
}

// card is the colours a table or diagram is drawn in: its marks and fills are made
// for a light ground, so on the dark theme it sits on a light card (painted on c).
func card(c draw.Canvas, o Options) colours {
	if o.Theme != Dark {
		return themeColours[o.Theme]
	}
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	return themeColours[Light]
}

// Plain writes the maths of s (TeX in \( … \)) as plain Unicode text, for the TeX the
// figures' typesetter cannot set: the delimiters and braces dropped, the lectures'
// commands as their signs (y_{t'} reads y_t').
func Plain(s string) string {
	s = strings.NewReplacer(`\(`, "", `\)`, "").Replace(s)
	s = texSigns.Replace(s)
	return strings.NewReplacer("{", "", "}", "").Replace(s)
}

// texSigns are the TeX commands of the lessons' titles and their plain-text signs.
var texSigns = strings.NewReplacer(`\mid`, "|", `\top`, "ᵀ", `\dots`, "…", `\ldots`, "…", `\to`, "→", `\hat y`, "ŷ", `\hat x`, "x̂",
	`\mathbf`, "", `\mathrm`, "", `\text`, "", `\,`, " ", `\left`, "", `\right`, "", `\cdot`, "·", `\times`, "×",
	`\alpha`, "α", `\sigma`, "σ", `\theta`, "θ", `\sqrt`, "√", `\sum`, "Σ", `\lVert`, "‖", `\rVert`, "‖",
	`\partial`, "∂", `\odot`, "⊙", `\tilde`, "~", `\quad`, " ", `\le`, "≤", `\ge`, "≥", `\in`, "∈")

// typesets reports whether the TeX handler of sty can typeset s (it panics on what it
// cannot parse).
func typesets(sty draw.TextStyle, s string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	w := sty.Width(s)
	return !math.IsNaN(float64(w))
}

// fitScale is the largest scale ≤ maxScale at which a w × h layout fits a canvas of
// cw × ch, and whether it is at least minScale.
func fitScale(w, h float64, cw, ch vg.Length) (float64, bool) {
	s := maxScale
	if w > 0 {
		s = min(s, float64(cw)/w)
	}
	if h > 0 {
		s = min(s, float64(ch)/h)
	}
	return s, s >= minScale
}

// Diagram is a node-link drawing (the unfolded graph, the encoder-decoder, a beam
// search's tree) laid out by the caller in points at scale 1, x right and y down
// from the top-left corner; the figure scales it to fit, keeping its proportions.
type Diagram struct {
	Width, Height float64 // its extent
	Bands         []Band  // tinted areas under everything (the current step's column)
	Edges         []Edge
	Nodes         []Node
	Labels        []Label
	Key           []KeyEntry
	// Lo and Hi are the fixed scale of the nodes' colour strips (the pages' RdBu when
	// Lo < 0 < Hi, else viridis).
	Lo, Hi float64
}

// Band is a tinted rectangle: Current tints it as the step now.
type Band struct {
	X, Y, W, H float64
	Mark       Mark
}

// Node is a box centred at (X, Y), W × H, with a line of text (and a smaller second
// line Sub), or a colour strip of the values in Strip, and its marks.
type Node struct {
	X, Y, W, H float64
	Text, Sub  string
	Strip      []float64
	Mark       Mark
}

// EdgeStyle is how an edge is drawn.
type EdgeStyle int

// The edge styles.
const (
	EdgeOn       EdgeStyle = iota // a dependence already computed: dark
	EdgeOff                       // not computed yet: faint
	EdgePruned                    // to a pruned hypothesis: thin, dashed, grey
	EdgeKept                      // to a kept hypothesis: blue
	EdgeBest                      // on the best path: thick vermillion
	EdgeGreedy                    // on greedy's path: thick dashed orange
	EdgeAccent                    // from the context: purple
	EdgeBus                       // the context's dashed bus
	EdgeFeedback                  // an output fed back as the next input: green
)

// Edge is a polyline through Points (a smooth S-curve between its two ends when
// Curve), with an arrowhead at the end when Arrow.
type Edge struct {
	Points [][2]float64
	Curve  bool
	Arrow  bool
	Style  EdgeStyle
}

// Label is text at (X, Y), vertically centred, aligned by Align (-1 left, 0 centre,
// 1 right); Small is the small type, Mark Current draws it bold with the ► pointer,
// Faint grey, Best vermillion.
type Label struct {
	X, Y  float64
	Text  string
	Align int
	Small bool
	Mark  Mark
}

// edgeLook is an edge style's colour, width (points at scale 1) and dashes.
func edgeLook(s EdgeStyle) (col color.RGBA, width float64, dashes []float64) {
	switch s {
	case EdgeOff:
		return faintLine, 0.8, nil
	case EdgePruned:
		return color.RGBA{0x9c, 0xa3, 0xaf, 0xff}, 0.7, []float64{3, 2}
	case EdgeKept:
		return specLine, 1.2, nil
	case EdgeBest:
		return badLine, 2.6, nil
	case EdgeGreedy:
		return clipLine, 2.2, []float64{4, 3}
	case EdgeAccent:
		return accLine, 1.3, nil
	case EdgeBus:
		return color.RGBA{0xa7, 0x8b, 0xfa, 0xff}, 0.8, []float64{3, 3}
	case EdgeFeedback:
		return goodLine, 1.3, nil
	}
	return color.RGBA{0x47, 0x55, 0x69, 0xff}, 1.2, nil
}

// drawDiagram draws the figure's diagram under its title, scaled to fit, with its key
// below it.
func drawDiagram(f Figure, d Diagram, o Options) (func(draw.Canvas), error) {
	return func(c draw.Canvas) {
		c = drawTitle(c, f.Title, card(c, o))
		cw := c.Max.X - c.Min.X
		kh := vg.Length(keyRows(d.Key, float64(cw)) * keyHeight)
		if kh > 0 {
			kp := pen{c: c, x0: c.Min.X, y0: c.Min.Y + kh, s: 1}
			kp.drawKey(d.Key, 0, 0, float64(cw))
			kh += vg.Points(6)
		}
		ch := c.Max.Y - c.Min.Y - kh
		s, _ := fitScale(d.Width, d.Height, cw, ch)
		// centred in the room left
		x0 := c.Min.X + (cw-vg.Length(d.Width*s))/2
		y0 := c.Max.Y - max(0, ch-vg.Length(d.Height*s))/2
		p := pen{c: c, x0: x0, y0: y0, s: s}
		p.diagram(d)
	}, nil
}

// Legible reports whether d, drawn in a figure with a one-line title, keeps its
// smallest type at least minSmall points (20 px on a 1920 px slide): a caller that
// lays out more than fits shows a window of it instead.
func (d Diagram) Legible() bool {
	cw := figureWidth - 2*figureMargin
	ch := slideHeights[Wide] - 2*figureMargin - vg.Points(titleSize+8) - vg.Length(keyRows(d.Key, float64(cw))*keyHeight)
	_, ok := fitScale(d.Width, d.Height, cw, ch)
	return ok
}

// diagram draws d's bands, edges, nodes and labels, in that order.
func (p pen) diagram(d Diagram) {
	for _, b := range d.Bands {
		fill := nowBand
		if !b.Mark.Has(Current) {
			fill = greyFill
		}
		p.fill(rect{b.X, b.Y, b.W, b.H}, fill)
	}
	for _, e := range d.Edges {
		p.edge(e)
	}
	strip := stripScale(d.Lo, d.Hi)
	for _, n := range d.Nodes {
		r := rect{n.X - n.W/2, n.Y - n.H/2, n.W, n.H}
		l := p.box(r, n.Mark)
		if len(n.Strip) > 0 {
			k := len(n.Strip)
			w := (n.W - 8) / float64(k)
			for u, v := range n.Strip {
				p.fill(rect{r.x + 4 + float64(u)*w, n.Y - 6, w + 0.3, 12}, strip(v))
			}
			continue
		}
		ty := n.Y
		if n.Sub != "" {
			ty = n.Y - n.H/4 + 0.5
		}
		size := float64(bodySize)
		if textWidth(n.Text, size, l.bold) > n.W-4 {
			size = max(smallSize, size*(n.W-4)/textWidth(n.Text, size, l.bold))
		}
		p.text(n.X, ty, clip(n.Text, size, l.bold, n.W-4), size, l.bold, l.text, draw.XCenter)
		if n.Sub != "" {
			p.text(n.X, n.Y+n.H/4, clip(n.Sub, smallSize, false, n.W-4), smallSize, false, muted, draw.XCenter)
		}
	}
	for _, l := range d.Labels {
		size := float64(bodySize)
		if l.Small {
			size = smallSize
		}
		col := color.Color(ink)
		switch {
		case l.Mark.Has(Best):
			col = badLine
		case l.Mark.Has(Faint):
			col = muted
		case l.Mark.Has(Accent):
			col = accLine
		case l.Mark.Has(Wrong):
			col = unkLine
		}
		x := l.X
		if l.Mark.Has(Current) {
			w := textWidth(l.Text, size, true)
			left := x - w*float64(l.Align+1)/2
			p.pointer(left-2, l.Y, size*0.35)
		}
		p.text(x, l.Y, l.Text, size, l.Mark.Has(Current) || l.Mark.Has(Best), col, text.XAlignment(float64(-l.Align-1)/2))
	}
}

// edge draws one edge.
func (p pen) edge(e Edge) {
	if len(e.Points) < 2 {
		return
	}
	col, width, dashes := edgeLook(e.Style)
	pts := e.Points
	if e.Curve {
		a, b := pts[0], pts[len(pts)-1]
		pts = nil
		for i := 0; i <= 24; i++ { // a cubic Bézier with horizontal tangents at both ends
			t := float64(i) / 24
			mx := (a[0] + b[0]) / 2
			x := math.Pow(1-t, 3)*a[0] + 3*math.Pow(1-t, 2)*t*mx + 3*(1-t)*t*t*mx + t*t*t*b[0]
			y := math.Pow(1-t, 3)*a[1] + 3*math.Pow(1-t, 2)*t*a[1] + 3*(1-t)*t*t*b[1] + t*t*t*b[1]
			pts = append(pts, [2]float64{x, y})
		}
	}
	p.line(col, width, dashes, pts...)
	if e.Arrow {
		q, r := pts[len(pts)-2], pts[len(pts)-1]
		a := math.Atan2(r[1]-q[1], r[0]-q[0])
		k := 4.5 + width
		p.polygon(col, r, [2]float64{r[0] - k*math.Cos(a-0.4), r[1] - k*math.Sin(a-0.4)}, [2]float64{r[0] - k*math.Cos(a+0.4), r[1] - k*math.Sin(a+0.4)})
	}
}

// clip shortens s with an ellipsis to fit w points.
func clip(s string, size float64, bold bool, w float64) string {
	if textWidth(s, size, bold) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && textWidth(string(r)+"…", size, bold) > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// stripScale maps a value on [lo, hi] to the pages' colour, as the heatmaps do: the
// palette's diverging map when the range spans 0, else viridis.
func stripScale(lo, hi float64) func(float64) color.Color {
	if !(hi > lo) {
		lo, hi = -1, 1
	}
	cm := viridis()
	if lo < 0 && hi > 0 {
		cm = diverging()
	}
	cm.SetMin(lo)
	cm.SetMax(hi)
	return func(v float64) color.Color {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return color.RGBA{0xbb, 0xbb, 0xbb, 0xff}
		}
		c, _ := cm.At(min(hi, max(lo, v)))
		return c
	}
}
