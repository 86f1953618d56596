package exports

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"unroll/figures"
	"unroll/lessons"
)

// Layout of the hypothesis tree, in points at scale 1 (tree.js's).
const (
	treeHead    = 34 // the column heads: the step and its counts
	treeRootW   = 50
	treeHGap    = 28
	treeVGap    = 3
	treeGroup   = 6 // between two parents' groups of expansions
	treeNodeMin = 84
	treeNodeMax = 150
	treeMaxW    = 730 // the widest tree drawn: wider ones show the columns up to the step
)

// treeHeights are a node's height by kind: kept and finished nodes have two lines.
var treeHeights = map[string]float64{"kept": 28, "finished": 28, "pruned": 16, "more": 13}

// treeTight are the heights of a tree too tall for the slide without its pruned nodes.
var treeTight = map[string]float64{"kept": 25, "finished": 25, "pruned": 16, "more": 13}

// treeNode is one entry of the beam search's static tree (models' beam trace).
type treeNode struct {
	ID     int     `json:"id"`
	Parent int     `json:"parent"`
	T      int     `json:"t"`
	Word   string  `json:"word"`
	P      float64 `json:"p"`
	LogP   float64 `json:"log_p"`
	Score  float64 `json:"score"`
	Rank   int     `json:"rank"`
	Fate   string  `json:"fate"`
	Best   bool    `json:"best"`
	Greedy bool    `json:"greedy"`
	More   int     `json:"more"`
}

// treeJSON is the static meta under the tree panel's ID.
type treeJSON struct {
	Nodes  []treeNode `json:"nodes"`
	Counts []struct {
		Kept     int `json:"kept"`
		Finished int `json:"finished"`
		Pruned   int `json:"pruned"`
	} `json:"counts"`
	K     int     `json:"k"`
	Alpha float64 `json:"alpha"`
	Best  int     `json:"best"`
	BOS   string  `json:"bos"`
}

func (n treeNode) kind() string {
	if n.More > 0 {
		return "more"
	}
	return n.Fate
}

// treeFigure draws the beam search's hypothesis tree up to the view's step (tree.js):
// a column per step, each parent's expansions grouped beside it; kept (a live beam),
// finished (ending in <eos>) and pruned nodes with P(y_t | prefix) and the score (or
// P so far); greedy's path underlined; at the step after the last, the best
// hypothesis ŷ's path outlined.
func treeFigure(v View, p lessons.Panel) (figures.Figure, error) {
	var tree treeJSON
	if !staticOf(v, p, p.ID, &tree) || tree.Nodes == nil || tree.Counts == nil {
		return figures.Figure{}, errNoData(p, "no search to show")
	}
	steps := len(tree.Counts)
	now, done := min(v.Step(), steps), v.Step() > steps
	byID := map[int]treeNode{}
	for _, n := range tree.Nodes {
		if n.More == 0 {
			byID[n.ID] = n
		}
	}
	// a tree too tall for the slide shows each parent's pruned expansions as one
	// "+n more pruned" entry, then none (the column heads count them) with each
	// column's groups stacked from the top rather than centred on their parents
	var d *figures.Diagram
	for detail := range 3 {
		nodes := treeDetail(tree.Nodes, detail)
		heights, vgap := treeHeights, float64(treeVGap)
		if detail == 2 { // and a little tighter
			heights, vgap = treeTight, treeVGap-1
		}
		d = func() *figures.Diagram {
			// every entry of every step placed (so the tree does not move as it grows): each
			// parent's expansions form a group centred on the parent where there is room,
			// pushed down where there is not
			type placed struct {
				n   treeNode
				top float64
				h   float64
			}
			var all []placed
			y := map[int]float64{0: 0}
			for t := 1; t <= steps; t++ {
				groups := map[int][]treeNode{}
				var parents []int
				for _, n := range nodes {
					if n.T != t {
						continue
					}
					if _, ok := groups[n.Parent]; !ok {
						parents = append(parents, n.Parent)
					}
					groups[n.Parent] = append(groups[n.Parent], n)
				}
				slices.SortStableFunc(parents, func(a, b int) int { return cmp.Compare(y[a], y[b]) })
				cursor := math.Inf(-1)
				for _, par := range parents {
					g := groups[par]
					slices.SortStableFunc(g, func(a, b treeNode) int {
						return cmp.Or(cmp.Compare(min(a.More, 1), min(b.More, 1)), cmp.Compare(a.Rank, b.Rank))
					})
					h := float64(len(g)-1) * vgap
					for _, n := range g {
						h += heights[n.kind()]
					}
					top := max(y[par]-h/2, cursor)
					if detail == 2 { // stacked from the top: the tallest a column can be
						top = max(cursor, 0)
					}
					for _, n := range g {
						hh := heights[n.kind()]
						if n.More == 0 {
							y[n.ID] = top + hh/2
						}
						all = append(all, placed{n: n, top: top, h: hh})
						top += hh + vgap
					}
					cursor = top - vgap + treeGroup
				}
			}
			wordW, pW := 0.0, 0.0
			for _, n := range nodes {
				if n.More == 0 {
					wordW = max(wordW, float64(len([]rune(n.Word)))*6.2)
					pW = max(pW, float64(len(fmtValue(n.P)))*4.8)
				}
			}
			nodeW := min(treeNodeMax, max(treeNodeMin, wordW+pW+20))
			colW := nodeW + treeHGap
			nCols := max(1, min(steps, int((treeMaxW-treeRootW)/colW)))
			first := 1
			focus := max(now, 1)
			if b, ok := byID[tree.Best]; done && ok {
				focus = b.T
			}
			if steps > nCols {
				first = max(1, min(steps-nCols+1, focus-nCols+1))
			}
			lastCol := first + nCols - 1
			visible := func(t int) bool {
				if t == 0 {
					return first == 1
				}
				return t >= first && t <= lastCol
			}
			X := func(t int) float64 {
				if t == 0 {
					return 0
				}
				return treeRootW + treeHGap + float64(t-first)*colW
			}
			// shift the columns in view to start under the heads
			lo, hi := math.Inf(1), math.Inf(-1)
			if first == 1 {
				lo, hi = -heights["kept"]/2, heights["kept"]/2
			}
			for _, e := range all {
				if e.n.T >= first && e.n.T <= lastCol {
					lo, hi = min(lo, e.top), max(hi, e.top+e.h+3)
				}
			}
			if !(lo <= hi) {
				lo, hi = 0, heights["kept"]
			}
			shift := treeHead - lo
			d := &figures.Diagram{Width: X(lastCol) + nodeW + 16, Height: hi - lo + treeHead + 4}
			label := func(x, y float64, s string, small bool, m figures.Mark, align int) {
				d.Labels = append(d.Labels, figures.Label{X: x, Y: y, Text: s, Small: small, Mark: m, Align: align})
			}
			for t := first; t <= lastCol && t <= steps; t++ {
				c := tree.Counts[t-1]
				x := X(t) + nodeW/2
				m := figures.Faint
				switch {
				case t == now:
					m = figures.Current
				case t < now:
					m = 0
				}
				label(x, 7, "t = "+strconv.Itoa(t), false, m, 0)
				var parts []string
				if c.Kept > 0 {
					parts = append(parts, fmt.Sprintf("%d kept", c.Kept))
				}
				if c.Finished > 0 {
					parts = append(parts, fmt.Sprintf("%d done", c.Finished))
				}
				if c.Pruned > 0 {
					parts = append(parts, fmt.Sprintf("%d pruned", c.Pruned))
				}
				label(x, 22, strings.Join(parts, " · "), true, figures.Faint, 0)
			}
			if first > 1 {
				label(0, 7, fmt.Sprintf("… steps 1–%d", first-1), true, figures.Faint, -1)
			}
			rootY := y[0] + shift
			if visible(0) {
				m := figures.Done
				if done && tree.Best > 0 {
					m |= figures.Best
				}
				bos := tree.BOS
				if bos == "" {
					bos = "<bos>"
				}
				d.Nodes = append(d.Nodes, figures.Node{X: (treeRootW - 6) / 2, Y: rootY, W: treeRootW - 6, H: heights["kept"], Text: bos, Mark: m})
			}
			var shown []placed
			for _, e := range all {
				if e.n.T <= now && visible(e.n.T) {
					shown = append(shown, e)
				}
			}
			edge := func(e placed, style figures.EdgeStyle) {
				py := y[e.n.Parent] + shift
				x0 := X(e.n.T) - treeHGap + 4
				switch {
				case e.n.Parent == 0:
					x0 = treeRootW - 6
				case visible(e.n.T - 1):
					x0 = X(e.n.T-1) + nodeW
				}
				d.Edges = append(d.Edges, figures.Edge{Points: [][2]float64{{x0, py}, {X(e.n.T), e.top + shift + e.h/2}}, Curve: true, Style: style})
			}
			for _, e := range shown {
				if done && e.n.Best {
					continue
				}
				switch {
				case e.n.Greedy:
				case e.n.Fate == "pruned" || e.n.More > 0:
					edge(e, figures.EdgePruned)
				case e.n.Fate == "finished":
					edge(e, figures.EdgeFeedback)
				default:
					edge(e, figures.EdgeKept)
				}
			}
			for _, e := range shown {
				if e.n.Greedy && !(done && e.n.Best) {
					edge(e, figures.EdgeGreedy)
				}
			}
			if done {
				for _, e := range shown {
					if e.n.Best {
						edge(e, figures.EdgeBest)
					}
				}
			}
			for _, e := range shown {
				n, x, top := e.n, X(e.n.T), e.top+shift
				if n.More > 0 {
					label(x+4, top+e.h/2, fmt.Sprintf("+%d more pruned", n.More), true, figures.Faint, -1)
					continue
				}
				node := figures.Node{X: x + nodeW/2, Y: top + e.h/2, W: nodeW, H: e.h}
				switch n.Fate {
				case "kept":
					node.Mark = figures.Done
				case "finished":
					node.Mark = figures.Finished
				default:
					node.Mark = figures.Pruned
				}
				if done && n.Best {
					node.Mark |= figures.Best
				}
				if n.Greedy {
					node.Mark |= figures.Greedy
				}
				if n.Fate == "pruned" {
					node.Text = n.Word + "  p " + fmtValue(n.P)
				} else {
					node.Text = n.Word
					if tree.Alpha != 0 {
						node.Sub = "p " + fmtValue(n.P) + " · score " + fmtValue(n.Score)
					} else {
						node.Sub = "p " + fmtValue(n.P) + " · P " + fmtValue(math.Exp(n.LogP))
					}
				}
				d.Nodes = append(d.Nodes, node)
				if done && n.Best && n.Fate == "finished" {
					label(x+nodeW+4, top+e.h/2, "ŷ", false, figures.Best, -1)
				}
			}
			if now == 0 {
				label(treeRootW+treeHGap, rootY, "step forward to expand the beam", true, figures.Faint, -1)
			}
			d.Key = []figures.KeyEntry{{Mark: figures.Done, Text: "kept (top k)"}, {Mark: figures.Finished, Text: "finished (<eos>)"}, {Mark: figures.Pruned, Text: "pruned"}, {Mark: figures.Greedy, Text: "greedy's path"}}
			if done {
				d.Key = append(d.Key, figures.KeyEntry{Mark: figures.Best, Text: "best ŷ, chosen by score"})
			}
			return d
		}()
		if d.Legible() {
			break
		}
	}
	return figures.Figure{Title: stepTitle(v, p), Diagram: d}, nil
}

// treeDetail is the tree's entries at a level of detail: all (0); each parent's
// pruned expansions at a step as one entry counting them (1); no pruned ones (2).
func treeDetail(nodes []treeNode, detail int) []treeNode {
	if detail == 0 {
		return nodes
	}
	type group struct{ parent, t int }
	more := map[group]int{}
	var out []treeNode
	var order []group
	for _, n := range nodes {
		if n.More == 0 && n.Fate != "pruned" {
			out = append(out, n)
			continue
		}
		g := group{n.Parent, n.T}
		if _, ok := more[g]; !ok {
			order = append(order, g)
		}
		more[g] += max(n.More, 1)
	}
	if detail == 1 {
		for _, g := range order {
			out = append(out, treeNode{Parent: g.parent, T: g.t, More: more[g], Rank: math.MaxInt})
		}
	}
	return out
}
