package exports

import (
	"strconv"

	"unroll/figures"
	"unroll/lessons"
)

// Layout of the unfolded graph, in points at scale 1 (graph.js's, a little tighter:
// 16 columns fit a slide with its text at least 6 pt).
const (
	graphMaxCols = 16 // columns drawn; longer sequences show a window around the current step
	graphCol     = 42
	graphRow     = 50
	graphNodeW   = 34
	graphNodeH   = 26
	graphLeft    = 44
	graphTop     = 4
	graphStrip   = 12 // units shown in a node's colour strip
	graphFoot    = 16 // the step numbers under the columns
	graphArrow   = 1  // an arrow's gap to the box it points at
)

// graphRow is one hidden row of the unfolded graph: an array, or one layer of it.
type graphLine struct {
	name          string
	layer, layers int
	units         int
	backward      bool
}

// graphFigure draws the unfolded computational graph (graph.js): a column per time
// step with the input x_t, a row of hidden nodes per state array (per layer of a
// layers × units array) with its state as a colour strip, and the outputs; arrows
// for every dependence, dark once computed; the current step's columns tinted (a
// backward array's step s is time T − s + 1). Static "archs" (by panel ID) or
// "arch" picks the architecture: A hidden → hidden, B output → hidden, C one output
// after the sequence.
func graphFigure(v View, p lessons.Panel) (figures.Figure, error) {
	if v.Steps == 0 {
		return figures.Figure{}, errNoData(p, "the model has no steps")
	}
	var lines []graphLine
	for _, name := range p.Arrays {
		shape := shapeOf(v, name)
		layers := 1
		if len(shape) == 2 {
			layers = shape[0]
		}
		units := 0
		if len(shape) > 0 {
			units = shape[len(shape)-1]
		}
		for l := range layers {
			lines = append(lines, graphLine{name: name, layer: l, layers: layers, units: units, backward: v.backward(name)})
		}
	}
	arch := "A"
	var archs map[string]string
	if staticOf(v, p, "archs", &archs) && archs[p.ID] != "" {
		arch = archs[p.ID]
	} else {
		var a string
		if staticOf(v, p, "arch", &a) && a != "" {
			arch = a
		}
	}
	step, steps := v.Step(), v.Steps
	nRows := len(lines) + 2
	cols := max(1, min(steps, graphMaxCols))
	first := max(1, min(steps-cols+1, step-cols/2))
	last := first + cols - 1
	X := func(t int) float64 { return graphLeft + (float64(t-first)+0.5)*graphCol }
	Y := func(r int) float64 { return graphTop + float64(nRows-1-r)*graphRow + graphRow/2 }
	lo, hi := -1.0, 1.0
	if s, ok := scaleOf(v, p); ok {
		lo, hi = s[0], s[1]
	}
	d := &figures.Diagram{Width: graphLeft + float64(cols)*graphCol + 8, Height: graphTop + float64(nRows)*graphRow + graphFoot, Lo: lo, Hi: hi}
	label := func(x, y float64, s string, small bool, m figures.Mark, align int) {
		d.Labels = append(d.Labels, figures.Label{X: x, Y: y, Text: s, Small: small, Mark: m, Align: align})
	}
	label(4, Y(0), "x", true, figures.Faint, -1)
	label(4, Y(nRows-1), "o", true, figures.Faint, -1)
	for i, r := range lines {
		name := r.name
		if r.layers > 1 {
			name = "H(" + strconv.Itoa(r.layer+1) + ")"
		}
		label(4, Y(i+1), name, true, figures.Faint, -1)
	}
	current := map[int]bool{}
	if step > 0 {
		if len(lines) == 0 {
			current[v.TimeOf("", step)] = true
		}
		for _, r := range lines {
			current[v.TimeOf(r.name, step)] = true
		}
	}
	for t := range current {
		if t >= first && t <= last {
			d.Bands = append(d.Bands, figures.Band{X: X(t) - graphCol/2 + 1, Y: 0, W: graphCol - 2, H: d.Height - graphFoot + 12, Mark: figures.Current})
		}
	}
	done := func(r graphLine, t int) bool { return step > 0 && v.StepOf(r.name, t) <= step }
	outDone := func(t int) bool {
		if len(lines) == 0 {
			return t <= step
		}
		for _, r := range lines {
			if !done(r, t) {
				return false
			}
		}
		return true
	}
	inRead := func(t int) bool {
		if len(lines) == 0 {
			return t <= step
		}
		for _, r := range lines {
			if done(r, t) {
				return true
			}
		}
		return false
	}
	style := func(on bool) figures.EdgeStyle {
		if on {
			return figures.EdgeOn
		}
		return figures.EdgeOff
	}
	arrow := func(on bool, pts ...[2]float64) {
		d.Edges = append(d.Edges, figures.Edge{Points: pts, Arrow: true, Style: style(on)})
	}
	parallel := len(lines) > 1
	for _, r := range lines {
		parallel = parallel && r.layers == 1
	}
	const nw, nh = graphNodeW, graphNodeH
	for t := first; t <= last; t++ {
		x := X(t)
		for i, r := range lines {
			y, on := Y(i+1), done(r, t)
			below := Y(i)
			if i == 0 || lines[i-1].name != r.name {
				below = Y(0)
			}
			switch {
			case parallel && i > 0: // from x_t, around the rows below, on the right
				side := x + nw/2 + 4
				arrow(on, [2]float64{x + nw/2 - 4, Y(0) - nh/2}, [2]float64{side, Y(0) - nh/2 - 6}, [2]float64{side, y + nh/2 + 6}, [2]float64{x + nw/2 - 4, y + nh/2 + graphArrow})
			case r.layer == 0:
				arrow(on, [2]float64{x, Y(0) - nh/2}, [2]float64{x, y + nh/2 + graphArrow})
			default:
				arrow(on, [2]float64{x, below - nh/2}, [2]float64{x, y + nh/2 + graphArrow})
			}
			if parallel && i < len(lines)-1 && arch != "C" { // to o_t, around the rows above, on the left
				side, o := x-nw/2-4, Y(nRows-1)+nh/2
				arrow(outDone(t), [2]float64{x - nw/2 + 4, y - nh/2}, [2]float64{side, y - nh/2 - 6}, [2]float64{side, o + 6}, [2]float64{x - nw/2 + 4, o + graphArrow})
			}
			prev := t - 1
			dir := 1.0
			if r.backward {
				prev, dir = t+1, -1
			}
			if arch != "B" && prev >= first && prev <= last {
				arrow(on, [2]float64{X(prev) + dir*nw/2, y}, [2]float64{x - dir*(nw/2+graphArrow), y})
			}
			if arch == "B" && t > first && i == len(lines)-1 { // the previous output feeds this state
				d.Edges = append(d.Edges, figures.Edge{Points: [][2]float64{{X(t-1) + nw/4, Y(nRows-1) + nh/2}, {x - nw/4, y - nh/2 - graphArrow}}, Arrow: true, Style: feedback(on)})
			}
		}
		top := Y(0)
		if len(lines) > 0 {
			top = Y(len(lines))
		}
		if arch != "C" || t == steps {
			arrow(outDone(t), [2]float64{x, top - nh/2}, [2]float64{x, Y(nRows-1) + nh/2 + graphArrow})
		}
	}
	var tokens []string
	staticOf(v, p, "tokens", &tokens)
	for t := first; t <= last; t++ {
		x := X(t)
		in := figures.Node{X: x, Y: Y(0), W: nw, H: nh, Mark: figures.Pending}
		if inRead(t) {
			in.Mark = figures.Done
		}
		switch {
		case !inputShown(v, p, t):
			in.Text = "?"
		case t-1 < len(tokens):
			in.Text = clipRunes(shownToken(tokens[t-1]), 5)
		default:
			var tok string
			if metaAt(v, p, t, "token", &tok) {
				in.Text = clipRunes(shownToken(tok), 5)
			} else {
				in.Text = "x" + strconv.Itoa(t)
			}
		}
		d.Nodes = append(d.Nodes, in)
		for i, r := range lines {
			n := figures.Node{X: x, Y: Y(i + 1), W: nw, H: nh, Mark: figures.Pending}
			a, ok := v.At(r.name, v.StepOf(r.name, t))
			if ok && done(r, t) {
				n.Mark = figures.Done
				units := r.units
				if units == 0 {
					units = len(a.Data) / r.layers
				}
				off := r.layer * units
				n.Strip = append([]float64(nil), a.Data[off:off+min(units, graphStrip)]...)
			}
			d.Nodes = append(d.Nodes, n)
		}
		if arch != "C" || t == steps {
			o := figures.Node{X: x, Y: Y(nRows - 1), W: nw, H: nh, Text: "o" + strconv.Itoa(t), Mark: figures.Pending}
			if outDone(t) {
				o.Mark = figures.Output
			}
			d.Nodes = append(d.Nodes, o)
		}
		m := figures.Faint
		if current[t] {
			m = figures.Current
		}
		label(x, d.Height-graphFoot/2, strconv.Itoa(t), true, m, 0)
	}
	if arch == "C" && steps > last {
		label(d.Width-8, Y(nRows-1), "one output only, after the last step (t = "+strconv.Itoa(steps)+") →", true, figures.Faint, 1)
	}
	if first > 1 {
		label(graphLeft-4, Y(1), "…", true, figures.Faint, 1)
	}
	d.Key = []figures.KeyEntry{{Mark: figures.Current, Text: "the current step (tinted column)"}, {Mark: figures.Done, Text: "computed: the state's first units as colours"}, {Mark: figures.Pending, Text: "not computed yet"}}
	return figures.Figure{Title: stepTitle(v, p), Diagram: d}, nil
}

// feedback is graph B's output → hidden edge: green once computed.
func feedback(on bool) figures.EdgeStyle {
	if on {
		return figures.EdgeFeedback
	}
	return figures.EdgeOff
}

// shapeOf is a per-step array's shape, from the first frame that has it (nil before).
func shapeOf(v View, name string) []int {
	for s := 1; s <= v.Step(); s++ {
		if a, ok := v.At(name, s); ok {
			return a.Shape
		}
	}
	return nil
}

// clipRunes is s cut to n characters (graph.js's slice(0, 5)).
func clipRunes(s string, n int) string {
	r := []rune(s)
	return string(r[:min(n, len(r))])
}
