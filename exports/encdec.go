package exports

import (
	"strconv"

	"unroll/figures"
	"unroll/lessons"
)

// Layout of the encoder-decoder, in points at scale 1 (encdec.js's, tighter: two
// decoder runs and 13 columns fit a slide with text at least 6 pt).
const (
	encLeft    = 48
	encHead    = 24 // a band's heading
	encRow     = 40
	encNodeH   = 26
	encBandGap = 8
	encFoot    = 14 // the step numbers under the columns
	encMaxCol  = 80 // widest column, so a short sentence does not spread out
	encMinCol  = 40
	encWidth   = 720 // the columns share this width, within encMinCol..encMaxCol
	encStrip   = 12  // units shown in a state's colour strip
)

// encdecFigure draws the encoder-decoder (encdec.js) for one sentence: the encoder's
// columns (x_t below, h_t above), the context c, then a band per decoder run (static
// "dec_rows") with its input, state and output per step; steps 1..T (static
// "enc_steps") are the encoder's, T+1 the context's, the rest the decoder's. A column
// is drawn once computed; the current step is tinted; outputs are marked right or
// wrong by the run's "correct" meta; the first divergence (meta "diverges_here") and
// <unk> tokens are marked; padded steps (meta "mask" 0) are greyed.
func encdecFigure(v View, p lessons.Panel) (figures.Figure, error) {
	var T int
	var rows []decRow
	staticOf(v, p, "enc_steps", &T)
	staticOf(v, p, "dec_rows", &rows)
	if T == 0 || len(rows) == 0 {
		return figures.Figure{}, errNoData(p, "waiting for the model")
	}
	var source []string
	var unkSrc []bool
	staticOf(v, p, "source", &source)
	staticOf(v, p, "source_unk", &unkSrc)
	D := max(0, v.Steps-T-1)
	cols := T + 1 + D
	colW := min(encMaxCol, max(encMinCol, float64(encWidth-encLeft)/float64(cols)))
	if cols > 1 && colW == encMinCol {
		colW = encMinCol + 4 // a window of columns: room for a longer word
	}
	nw := max(14, min(64, colW-8))
	bandH := float64(encHead + 3*encRow)
	height := 4 + float64(len(rows))*bandH + float64(len(rows)-1)*encBandGap + encFoot
	lo, hi := -1.0, 1.0
	if s, ok := scaleOf(v, p); ok {
		lo, hi = s[0], s[1]
	}
	d := &figures.Diagram{Width: encLeft + float64(cols)*colW + 6, Height: height, Lo: lo, Hi: hi}
	X := func(c int) float64 { return encLeft + (float64(c)-0.5)*colW }
	bandTop := func(b int) float64 { return 4 + float64(b)*(bandH+encBandGap) }
	yOut := func(b int) float64 { return bandTop(b) + encHead + encRow/2 }
	yState := func(b int) float64 { return yOut(b) + encRow }
	yIn := func(b int) float64 { return yState(b) + encRow }
	step := v.Step()
	label := func(x, y float64, s string, small bool, m figures.Mark, align int) {
		d.Labels = append(d.Labels, figures.Label{X: x, Y: y, Text: s, Small: small, Mark: m, Align: align})
	}
	arrow := func(on bool, style figures.EdgeStyle, pts ...[2]float64) {
		if !on {
			style = figures.EdgeOff
		}
		d.Edges = append(d.Edges, figures.Edge{Points: pts, Arrow: true, Style: style})
	}
	// node adds a node; the pointer it returns is good until the next node is added
	node := func(x, y, h float64, text string, m figures.Mark) *figures.Node {
		d.Nodes = append(d.Nodes, figures.Node{X: x, Y: y, W: nw, H: h, Text: text, Mark: m})
		return &d.Nodes[len(d.Nodes)-1]
	}
	strip := func(a []float64) []float64 { return append([]float64(nil), a[:min(len(a), encStrip)]...) }
	if step > 0 {
		d.Bands = append(d.Bands, figures.Band{X: X(step) - colW/2 + 1, Y: 0, W: colW - 2, H: height - 2, Mark: figures.Current})
	}
	// the headings: kept in view, at the window's left edge, when the part they head
	// starts left of it
	headings := map[int]bool{len(d.Labels): true}
	label(X(1)-colW/2+2, bandTop(0)+7, "encoder", true, figures.Faint, -1)
	ctx := "c"
	if colW >= 60 {
		ctx = "context c"
	}
	label(X(T+1), bandTop(0)+7, ctx, true, figures.Faint, 0)
	for b, r := range rows {
		headings[len(d.Labels)] = true
		label(X(T+2)-colW/2+2, bandTop(b)+7, "decoder: "+r.Label, true, 0, -1)
		label(2, yOut(b), "output", true, figures.Faint, -1)
		label(2, yState(b), "state", true, figures.Faint, -1)
		label(2, yIn(b), "input", true, figures.Faint, -1)
	}
	const nh = encNodeH
	// the encoder: x_t → h_t, h_{t-1} → h_t
	for t := 1; t <= T; t++ {
		done, now := t <= step, t == step
		arrow(done, figures.EdgeOn, [2]float64{X(t), yIn(0) - nh/2}, [2]float64{X(t), yState(0) + nh/2 + 1})
		if t > 1 {
			arrow(done, figures.EdgeOn, [2]float64{X(t-1) + nw/2, yState(0)}, [2]float64{X(t) - nw/2 - 1, yState(0)})
		}
		m := figures.Mark(0)
		switch {
		case now:
			m = figures.Current
		case done:
			m = figures.Done
		}
		if t-1 < len(unkSrc) && unkSrc[t-1] {
			m |= figures.Unknown
		}
		text := "x" + strconv.Itoa(t)
		if t-1 < len(source) {
			text = shownToken(source[t-1])
		}
		if n := node(X(t), yIn(0), nh, text, m); m.Has(figures.Unknown) && text != unkToken {
			n.Sub = unkToken
		}
		h := node(X(t), yState(0), nh, "h"+strconv.Itoa(t), figures.Pending)
		if a, ok := v.At("h", t); ok && done && slicesContains(p.Arrays, "h") {
			h.Mark, h.Text, h.Strip = figures.Done, "", strip(a.Data)
		}
	}
	// the context c = h_T: one tall box beside the encoder, feeding every band
	cDone := step >= T+1
	cTop, cBot := yState(0)-nh/2, yState(len(rows)-1)+nh/2
	arrow(cDone, figures.EdgeAccent, [2]float64{X(T) + nw/2, yState(0)}, [2]float64{X(T+1) - nw/2 - 1, yState(0)})
	cm := figures.Pending
	if cDone {
		cm = figures.Accent
	}
	c := node(X(T+1), (cTop+cBot)/2, cBot-cTop, "c", cm)
	ca, cok := v.At("c", T+1)
	cok = cok && cDone && slicesContains(p.Arrays, "c")
	if cok {
		c.Text = ""
	}
	// each decoder run
	for b, r := range rows {
		cx := X(T+1) + nw/2
		busY := yState(b) + nh/2 + 5
		if cok { // the same c beside every run's s_0
			d.Nodes = append(d.Nodes, figures.Node{X: X(T + 1), Y: yState(b), W: nw - 4, H: 14, Strip: strip(ca.Data), Mark: figures.Accent})
		}
		bus := figures.EdgeBus
		if !cDone {
			bus = figures.EdgeOff
		}
		d.Edges = append(d.Edges, figures.Edge{Points: [][2]float64{{cx, busY}, {X(cols) + nw/4, busY}}, Style: bus})
		for tp := 1; tp <= D; tp++ {
			s := T + 1 + tp
			x := X(s)
			in, hasIn := stepString(v, s, r.Input)
			hasIn = hasIn && declaresMeta(p, r.Input)
			out, hasOut := stepString(v, s, r.Output)
			hasOut = hasOut && declaresMeta(p, r.Output)
			done := s <= step && hasIn
			from := X(s-1) + nw/2
			style := figures.EdgeOn
			if tp == 1 {
				from, style = cx, figures.EdgeAccent
			}
			arrow(done, style, [2]float64{from, yState(b)}, [2]float64{x - nw/2 - 1, yState(b)})
			arrow(done, figures.EdgeAccent, [2]float64{x + nw/4, busY}, [2]float64{x + nw/4, yState(b) + nh/2 + 1})
			arrow(done, figures.EdgeOn, [2]float64{x - nw/4, yIn(b) - nh/2}, [2]float64{x - nw/4, yState(b) + nh/2 + 1})
			arrow(done, figures.EdgeOn, [2]float64{x, yState(b) - nh/2}, [2]float64{x, yOut(b) + nh/2 + 1})
			if r.Feedback != "" && r.Feedback != "false" && tp < D && done && s+1 <= step {
				if _, next := stepString(v, s+1, r.Input); next {
					arrow(true, figures.EdgeFeedback, [2]float64{x + nw/2 - 4, yOut(b) + nh/2 - 2}, [2]float64{X(s+1) - nw/2 + 4, yIn(b) - nh/2 + 2})
				}
			}
			inM, stM, outM := figures.Pending, figures.Pending, figures.Pending
			var right *bool
			if done {
				inM, stM, outM = figures.Done, figures.Done, figures.Output
				var ok bool
				if r.Correct != "" && metaAt(v, p, s, r.Correct, &ok) {
					right = &ok
				}
				if right != nil && *right {
					outM |= figures.Match
				} else if right != nil {
					outM |= figures.Wrong
				}
				if in == unkToken {
					inM |= figures.Unknown
				}
				if out == unkToken {
					outM |= figures.Unknown
				}
				if s == step {
					outM |= figures.Current
				}
			}
			var mask float64
			if metaAt(v, p, s, "mask", &mask) && mask == 0 && b == 0 && s <= step {
				inM, stM, outM = inM|figures.Faint, stM|figures.Faint, outM|figures.Faint
				var prev float64
				if !metaAt(v, p, s-1, "mask", &prev) || prev != 0 {
					label(x-colW/2+2, bandTop(b)+18, "padding: m = 0 →", true, figures.Faint, -1)
				}
			}
			inN := figures.Node{X: x, Y: yIn(b), W: nw, H: nh, Mark: inM}
			stN := figures.Node{X: x, Y: yState(b), W: nw, H: nh, Mark: stM}
			outN := figures.Node{X: x, Y: yOut(b), W: nw, H: nh, Mark: outM}
			if done {
				inN.Text, outN.Text = shownToken(in), shownToken(out)
				if a, ok := v.At(r.State, s); ok && r.State != "" && slicesContains(p.Arrays, r.State) {
					stN.Strip = strip(a.Data)
				}
				var div bool
				if metaAt(v, p, s, "diverges_here", &div) && div && b == len(rows)-1 && len(rows) > 1 {
					outN.Mark |= figures.Best
					label(x, bandTop(b)+18, "diverges", true, figures.Wrong, 0)
				}
			} else if s <= step && hasOut && !hasIn {
				outN.Text = "—"
			}
			d.Nodes = append(d.Nodes, inN, stN, outN)
		}
	}
	every := max(1, int(22/colW)+1)
	for c := 1; c <= cols; c++ {
		if c%every != 0 && c != step {
			continue
		}
		m := figures.Faint
		if c == step {
			m = figures.Current
		}
		var s string
		switch {
		case c <= T:
			s = "t=" + strconv.Itoa(c)
		case c == T+1:
			s = "c"
		default:
			s = "t'=" + strconv.Itoa(c-T-1)
		}
		label(X(c), height-encFoot/2, s, true, m, 0)
	}
	if maxCols := int((encWidth - encLeft) / colW); cols > maxCols {
		// a long sentence: the columns around the current step, as the page scrolls
		first := max(1, min(cols-maxCols+1, max(step, 1)-maxCols/2))
		window(d, X(first)-colW/2, X(first+maxCols-1)+colW/2, encLeft, headings)
	}
	d.Key = []figures.KeyEntry{{Mark: figures.Current, Text: "the current step"}, {Mark: figures.Done, Text: "computed"}, {Mark: figures.Output | figures.Match, Text: "output right"}, {Mark: figures.Output | figures.Wrong, Text: "output wrong"}, {Mark: figures.Unknown, Text: "<unk>"}}
	if len(rows) > 1 {
		d.Key = append(d.Key, figures.KeyEntry{Mark: figures.Best, Text: "free running diverges"})
	}
	return figures.Figure{Title: stepTitle(v, p), Diagram: d}, nil
}

// slicesContains reports whether the panel's list names s.
func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// window keeps the part of diagram d between x = lo and x = hi (the columns in view),
// moved to start at x = left: the nodes, bands and labels in it, the edges within it
// and the horizontal ones cut at its edges; labels left of left (the rows' names)
// stay, and the headings (d.Labels indices) whose part starts left of the window move
// to its left edge. An ellipsis marks each side cut off.
func window(d *figures.Diagram, lo, hi, left float64, headings map[int]bool) {
	dx := left - lo
	var nodes []figures.Node
	for _, n := range d.Nodes {
		if n.X >= lo && n.X <= hi {
			n.X += dx
			nodes = append(nodes, n)
		}
	}
	var bands []figures.Band
	for _, b := range d.Bands {
		if c := b.X + b.W/2; c >= lo && c <= hi {
			b.X += dx
			bands = append(bands, b)
		}
	}
	var labels []figures.Label
	for i, l := range d.Labels {
		switch {
		case l.X < left:
		case headings[i] && l.X < lo:
			l.X = left + 2
		case l.X >= lo && l.X <= hi:
			l.X += dx
		default:
			continue
		}
		labels = append(labels, l)
	}
	var edges []figures.Edge
	for _, e := range d.Edges {
		inside, level := true, true
		for _, q := range e.Points {
			inside = inside && q[0] >= lo && q[0] <= hi
			level = level && q[1] == e.Points[0][1]
		}
		switch {
		case inside:
		case level && len(e.Points) == 2:
			a, b := e.Points[0], e.Points[1]
			if max(a[0], b[0]) < lo || min(a[0], b[0]) > hi {
				continue
			}
			if b[0] > hi || b[0] < lo {
				e.Arrow = false
			}
			a[0], b[0] = min(hi, max(lo, a[0])), min(hi, max(lo, b[0]))
			e.Points = [][2]float64{a, b}
		default:
			continue
		}
		pts := make([][2]float64, len(e.Points))
		for i, q := range e.Points {
			pts[i] = [2]float64{q[0] + dx, q[1]}
		}
		e.Points = pts
		edges = append(edges, e)
	}
	right := left + hi - lo
	if d.Width > hi+1 {
		labels = append(labels, figures.Label{X: right + 2, Y: d.Height / 2, Text: "…", Mark: figures.Faint, Align: -1})
	}
	if lo > left+1 {
		labels = append(labels, figures.Label{X: left - 2, Y: d.Height / 2, Text: "…", Mark: figures.Faint, Align: 1})
	}
	d.Nodes, d.Bands, d.Labels, d.Edges, d.Width = nodes, bands, labels, edges, right+10
}
