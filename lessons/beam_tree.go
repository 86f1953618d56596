package lessons

import (
	"math"
	"slices"

	"unroll/models"
)

// The tree panel's size (static/js/panels/tree.js draws it).
const (
	// treeRows is about how many entries one step of the tree panel shows: every kept
	// and finished expansion, then the best pruned ones of each beam; the rest are counted.
	treeRows = 20
	// treePrunedPerBeam caps the pruned expansions drawn per beam: the toy's five words
	// all show at k = 2, the trained model's 500 do not.
	treePrunedPerBeam = 6
)

// treeNode is one expansion the tree panel draws. More > 0 marks a summary entry:
// that many further pruned expansions of Parent at step T that are not drawn.
type treeNode struct {
	ID     int     `json:"id"`
	Parent int     `json:"parent"`
	T      int     `json:"t"`
	Word   string  `json:"word,omitempty"`
	P      float64 `json:"p"`     // P(y_t | y_<t, x)
	LogP   float64 `json:"log_p"` // Σ_{t'≤t} log P(y_t' | y_<t', x)
	Score  float64 `json:"score"` // LogP / t^α
	Rank   int     `json:"rank"`
	Fate   string  `json:"fate"`
	Best   bool    `json:"best,omitempty"`   // on the path of the best hypothesis ŷ
	Greedy bool    `json:"greedy,omitempty"` // on greedy search's path
	More   int     `json:"more,omitempty"`
}

// sig6 keeps 6 significant digits: a smaller snapshot, and still two more than a node
// shows, so the page's rounding to 4 is not a rounding of a rounding (−0.693147 must
// read −0.6931, not −0.6932).
func sig6(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	scale := math.Pow(10, 5-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*scale) / scale
}

// tree is the hypothesis tree as the tree panel draws it (drawTree, at build).
func (m *beamModel) tree() map[string]any { return m.treeMeta }

// drawTree is the hypothesis tree as the tree panel draws it: every kept and finished
// expansion, the best pruned ones of each beam (about treeRows entries a step) and
// a count of the others. It needs every expansion of res (before compact).
func (m *beamModel) drawTree() map[string]any {
	best := map[int]bool{}
	for id := m.res.BestNode; id > 0; id = m.nodes[id].Parent {
		best[id] = true
	}
	// greedy's path, where the beam expanded it: node t of the path extends node t−1
	onGreedy := map[int]bool{}
	for t, prev := 0, 0; t < len(m.greedy.Tokens) && t < len(m.res.Steps); t++ {
		i := slices.IndexFunc(m.res.Steps[t].Expansions, func(n models.BeamNode) bool {
			return n.Parent == prev && n.Token == m.greedy.Tokens[t]
		})
		if i < 0 {
			break
		}
		prev = m.res.Steps[t].Expansions[i].ID
		onGreedy[prev] = true
	}
	var nodes []treeNode
	var counts []map[string]int
	beams := 1 // live beams entering step 1: the root
	for _, st := range m.res.Steps {
		c := map[string]int{}
		for _, n := range st.Expansions {
			c[string(n.Fate)]++
		}
		survivors := len(st.Expansions) - c[string(models.FatePruned)]
		quota := min(treePrunedPerBeam, max(1, (treeRows-survivors)/beams))
		shown, hidden := map[int]int{}, map[int]int{}
		var order []int // parents in order of their first expansion
		for _, n := range st.Expansions {
			if _, ok := shown[n.Parent]; !ok {
				order = append(order, n.Parent)
				shown[n.Parent] = 0
			}
			if n.Fate == models.FatePruned {
				if shown[n.Parent] >= quota {
					hidden[n.Parent]++
					continue
				}
				shown[n.Parent]++
			}
			nodes = append(nodes, treeNode{ID: n.ID, Parent: n.Parent, T: n.T, Word: m.words[n.Token],
				P: sig6(math.Exp(n.LogProb)), LogP: sig6(n.Cum), Score: sig6(n.Score),
				Rank: n.Rank, Fate: string(n.Fate), Best: best[n.ID], Greedy: onGreedy[n.ID]})
		}
		for _, p := range order {
			if hidden[p] > 0 {
				nodes = append(nodes, treeNode{ID: -1, Parent: p, T: st.T, Fate: string(models.FatePruned), More: hidden[p]})
			}
		}
		counts = append(counts, c)
		beams = c[string(models.FateKept)]
	}
	return map[string]any{
		"nodes": nodes, "counts": counts, "k": m.cfg.BeamSize, "alpha": m.cfg.Alpha,
		"best": m.res.BestNode, "bos": models.BosToken,
	}
}
