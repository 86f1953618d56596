package lessons

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// The beam-search page's limits.
const (
	beamMaxK     = 10  // the widest beam offered: its tree still fits the panel
	beamMaxAlpha = 1.5 // past 1 the normalisation favours long sentences; 1.5 shows it
	// beamMaxLen bounds T_max in both modes: the trained translator writes at most
	// 2·data.MaxSentenceTokens = 20 tokens (its task's MaxOutput, which a test checks),
	// and the tree panel draws that many steps. From 9 on, exhaustive search over the
	// toy's five words exceeds models.MaxExhaustiveNodes, which the page then says.
	beamMaxLen = 2 * data.MaxSentenceTokens
	// treeRows is about how many entries one step of the tree panel shows: every kept
	// and finished expansion, then the best pruned ones of each beam; the rest are counted.
	treeRows = 20
	// treePrunedPerBeam caps the pruned expansions drawn per beam: the toy's five words
	// all show at k = 2, the trained model's 500 do not.
	treePrunedPerBeam = 6
	beamDistTop       = 5 // next words per row of the trained model's table
	// beamTranslatorName is the bundled translator the trained mode searches.
	beamTranslatorName = "seq2seq-corpus"
)

// The page's two modes.
const (
	beamToy     = "toy"
	beamTrained = "trained"
)

// beamTranslator is the bundled seq2seq model, shared (SharedTranslator): the page
// only searches it, which reads the weights and never writes them.
func beamTranslator() (*loadedTranslator, error) {
	tr, meta, err := zoo.SharedTranslator(beamTranslatorName)
	if err != nil {
		return nil, err
	}
	return &loadedTranslator{tr, meta}, nil
}

// beamModel is the beam-search page's sim.Model: one search problem (the toy
// distribution or the trained translator on one sentence) searched greedily, by a
// beam of width k and, where it is small enough, exhaustively. Step t shows the
// expansions of the beam's step t.
type beamModel struct {
	mode  string
	words []string // the target vocabulary, by id
	cfg   models.SearchConfig

	// res is the beam search. Its steps keep only their kept and finished expansions
	// once the tree is drawn (compact): the pruned ones, k·V a step on the trained
	// model (about 5,000 at k = 10), are what made a page hold megabytes.
	res        *models.BeamResult
	expansions []int                   // per step of res, how many expansions it ranked, pruned ones included
	nodes      map[int]models.BeamNode // res's kept and finished expansions by ID
	treeMeta   map[string]any          // the tree panel's data (tree), drawn from every expansion
	greedy     models.Hypothesis
	greedyCum  []float64          // greedy's Σ log P after each of its tokens
	exhaustive *models.Hypothesis // nil when not run
	exhNote    string             // the size of the exhaustive search, and why it did not run
	exhShort   string             // the same in a few words, for the comparison table

	ref     []int // y* ending in <eos>; nil without a reference
	refLogP float64

	pathLogProbs [][]float64 // log P(· | ŷ_<t) for t = 1..|ŷ|
	toy          *models.ToyDistribution
	tr           *zoo.Translator // the translator searched (shared, read-only); nil for the toy
	src          []int           // the source x the translator reads; nil for the toy
	about        map[string]any  // facts about the model
	// beamOf searches again with another width (the export plot).
	beamOf func(k int) *models.BeamResult
}

func buildBeam(v sim.Values) (sim.Model, error) {
	k, alpha := v.Int("k"), v.Float("alpha")
	if v.String("mode") == beamTrained {
		target, note := referenceFor(v.String("sentence"), v.String("target"))
		m, err := buildBeamTrained(v.String("sentence"), target, v.Int("max_len"), k, alpha)
		if err == nil && note != "" {
			m.about["reference"] = note
		}
		return m, err
	}
	words, err := parseToyWords(v.String("words"))
	if err != nil {
		return nil, err
	}
	d, err := parseToy(words, v.String("tables"))
	if err != nil {
		return nil, err
	}
	return buildBeamToy(d, v.String("reference"), v.Int("max_len"), k, alpha)
}

// buildBeamToy searches the toy distribution d for sentences of up to maxLen tokens.
func buildBeamToy(d *models.ToyDistribution, reference string, maxLen, k int, alpha float64) (*beamModel, error) {
	m := &beamModel{mode: beamToy, words: d.Words, cfg: d.Config(maxLen, k, alpha), toy: d}
	if toks := strings.Fields(reference); len(toks) > 0 {
		for i, w := range toks {
			id := slices.Index(d.Words, w)
			switch {
			case id < 0:
				return nil, fmt.Errorf("reference y*: %q is not a toy word (%s)", w, strings.Join(d.Words, " "))
			case id == d.EOS && i < len(toks)-1:
				return nil, fmt.Errorf("reference y*: <eos> ends the sentence, so it can only be the last word")
			}
			m.ref = append(m.ref, id)
		}
		if m.ref[len(m.ref)-1] != d.EOS {
			m.ref = append(m.ref, d.EOS)
		}
	}
	nodes := models.ExhaustiveNodes(len(d.Words), maxLen)
	sum := fmt.Sprintf("Σ_{t=1..%d} %d^t = %d expansions", maxLen, len(d.Words), nodes)
	runExhaustive := nodes <= models.MaxExhaustiveNodes
	if runExhaustive {
		m.exhNote = sum
	} else {
		m.exhNote = fmt.Sprintf("not run: %s, more than the page's bound of %d", sum, models.MaxExhaustiveNodes)
		m.exhShort = fmt.Sprintf("not run: %d expansions > %d", nodes, models.MaxExhaustiveNodes)
	}
	m.about = map[string]any{
		"distribution": "the toy tables (edit them below)",
		"vocabulary":   strings.Join(d.Words, " "),
		"T_max":        maxLen,
	}
	searchAll(m, "", d.Step, runExhaustive)
	return m, nil
}

// The trained mode's default sentence and its reference.
const (
	beamSentence = "we listen to the teacher ."
	beamTarget   = "nous écoutons le professeur ."
)

// referenceFor is the reference y* a trained search of sentence is scored against,
// and a note when it is not the one typed. A sentence changed while the reference
// still holds the default sentence's would be scored against an unrelated
// translation: it takes the corpus's reference when the corpus has the sentence, and
// none otherwise.
func referenceFor(sentence, target string) (string, string) {
	norm := func(s string) string { return strings.Join(models.Tokenize(strings.ToLower(s)), " ") }
	if norm(sentence) == norm(beamSentence) || norm(target) != norm(beamTarget) {
		return target, ""
	}
	train, test := data.Corpus()
	for _, p := range append(train, test...) {
		if norm(p.En) == norm(sentence) {
			return p.Fr, fmt.Sprintf("the corpus's translation of this sentence, %q (the field still held the default sentence's)", p.Fr)
		}
	}
	return "", "none: the reference field still holds the default sentence's translation; type this sentence's to score it"
}

// buildBeamTrained searches the bundled translator on the source sentence for
// sentences of up to maxLen tokens (at most the task's MaxOutput).
func buildBeamTrained(sentence, target string, maxLen, k int, alpha float64) (*beamModel, error) {
	loaded, err := beamTranslator()
	if err != nil {
		return nil, err
	}
	tr := loaded.tr
	src, _, err := tr.Source(sentence)
	if err != nil {
		return nil, fmt.Errorf("source sentence x: %v", err)
	}
	words := tr.Tgt.List()
	m := &beamModel{mode: beamTrained, words: words, tr: tr, src: src,
		cfg: models.SearchConfig{BOS: models.BosID, EOS: models.EosID, MaxLen: min(maxLen, tr.Task.MaxOutput), BeamSize: k, Alpha: alpha}}
	target = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(target), models.EosToken))
	if target != "" {
		toks := tr.Task.Tokenize(target)
		for _, w := range toks {
			if tr.Tgt.ID(w) == models.UnkID && w != models.UnkToken {
				return nil, fmt.Errorf("reference y*: %q is not in the model's French vocabulary (%d words), so the model cannot say it", w, len(words))
			}
		}
		if m.ref, err = tr.Target(target); err != nil {
			return nil, fmt.Errorf("reference y*: %v", err)
		}
	}
	m.exhNote = fmt.Sprintf("impossible here: Σ_{t=1..%d} %d^t ≈ 10^%.0f expansions, far beyond the page's bound of %d (switch to the toy)",
		m.cfg.MaxLen, len(words), float64(m.cfg.MaxLen)*math.Log10(float64(len(words))), models.MaxExhaustiveNodes)
	m.exhShort = fmt.Sprintf("impossible: ≈ 10^%.0f expansions", float64(m.cfg.MaxLen)*math.Log10(float64(len(words))))
	m.about = map[string]any{
		"distribution":      fmt.Sprintf("the bundled GRU encoder-decoder %s (trained %s steps)", beamTranslatorName, loaded.meta["steps"]),
		"vocabulary":        fmt.Sprintf("%d French tokens", len(words)),
		"T_max":             m.cfg.MaxLen,
		"test_BLEU_greedy":  loaded.meta["test_bleu_greedy"],
		"test_BLEU_beam":    loaded.meta["test_bleu_beam"],
		"source_tokens_ids": fmt.Sprint(src),
	}
	start, step, err := tr.Model.Searcher(src)
	if err != nil {
		return nil, fmt.Errorf("source sentence x: %v", err)
	}
	searchAll(m, start, step, false)
	return m, nil
}

// searchAll runs every search of the page on one distribution.
func searchAll[S any](m *beamModel, start S, step models.StepFunc[S], exhaustive bool) {
	m.res = models.BeamSearch(start, m.cfg, step)
	m.nodes = map[int]models.BeamNode{}
	for _, st := range m.res.Steps {
		for _, n := range st.Expansions {
			if n.Fate != models.FatePruned { // the path of a kept or finished node is kept nodes
				m.nodes[n.ID] = n
			}
		}
	}
	m.greedy = models.Greedy(start, m.cfg, step)
	m.greedyCum = make([]float64, len(m.greedy.Tokens))
	state, last, sum := start, m.cfg.BOS, 0.0
	for i, y := range m.greedy.Tokens {
		lp, next := step(state, last)
		sum += lp[y]
		m.greedyCum[i] = sum
		state, last = next, y
	}
	state, last = start, m.cfg.BOS
	for _, y := range m.res.Best.Tokens {
		lp, next := step(state, last)
		m.pathLogProbs = append(m.pathLogProbs, lp)
		state, last = next, y
	}
	if exhaustive {
		h := models.Exhaustive(start, m.cfg, step)
		m.exhaustive = &h
	}
	if m.ref != nil {
		m.refLogP = models.SequenceLogProb(start, m.cfg, step, m.ref)
	}
	m.compact()
	cfg := m.cfg
	m.beamOf = func(k int) *models.BeamResult {
		c := cfg
		c.BeamSize = k
		return models.BeamSearch(start, c, step)
	}
}

// compact draws the tree from every expansion, then drops the pruned expansions from
// res: no frame needs them again, only their number (expansions).
func (m *beamModel) compact() {
	m.treeMeta = m.drawTree()
	m.expansions = make([]int, len(m.res.Steps))
	for i := range m.res.Steps {
		st := &m.res.Steps[i]
		m.expansions[i] = len(st.Expansions)
		st.Expansions = slices.Clone(slices.DeleteFunc(st.Expansions, func(n models.BeamNode) bool { return n.Fate == models.FatePruned }))
	}
}

// Steps is the beam's steps and one more, where ŷ is chosen among the finished (and
// capped) hypotheses by length-normalised score.
func (m *beamModel) Steps() int { return len(m.res.Steps) + 1 }

// Passes: the search extends the beams at t = 1..T, then one step chooses ŷ by score.
func (m *beamModel) Passes() []sim.Pass {
	return []sim.Pass{
		{Name: "beam search", Steps: len(m.res.Steps), Index: "t"},
		{Steps: 1, Stages: []string{"choose ŷ by score"}},
	}
}

// sentence writes ids as words.
func (m *beamModel) sentence(ids []int) string {
	if len(ids) == 0 {
		return "(empty)"
	}
	ws := make([]string, len(ids))
	for i, id := range ids {
		ws[i] = m.words[id]
	}
	return strings.Join(ws, " ")
}

// probText writes P = e^logP: a plain number for the toy's sizes, e-notation below 0.001.
func probText(logP float64) string {
	p := math.Exp(logP)
	if p == 0 {
		return "0"
	}
	if p >= 1e-3 {
		return fmt.Sprintf("%.4g", p)
	}
	return fmt.Sprintf("%.3g", p)
}

// beamNum writes a number for the panels, 4 significant digits; −Inf (a
// sequence of probability 0) is written out.
func beamNum(v float64) string {
	if math.IsInf(v, -1) {
		return "−∞"
	}
	return fmt.Sprintf("%.4g", v)
}

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

// searchRow is one row of the comparison table.
// A hypothesis cut off at T_max, without <eos>, says so.
func (m *beamModel) searchRow(label string, h models.Hypothesis, mark string) tableRow {
	text := m.sentence(h.Tokens)
	if !h.Finished && len(h.Tokens) > 0 {
		text += " … (cut off at Tₘₐₓ)"
	}
	return tableRow{Label: label, Mark: mark, Cells: []tableCell{
		{Text: text}, {Text: fmt.Sprint(h.Length)},
		{Text: probText(h.LogProb)}, {Text: beamNum(h.LogProb)}, {Text: beamNum(h.Score)},
	}}
}

// compare is the table of the three searches and the reference.
func (m *beamModel) compare() table {
	tab := table{Title: fmt.Sprintf("the sentence each search returns (α = %g)", m.cfg.Alpha),
		Head: []string{"sentence", "T", "P(y|x)", "log P", "score"}}
	best := max(m.greedy.Score, m.res.Best.Score)
	if m.exhaustive != nil {
		best = max(best, m.exhaustive.Score)
	}
	mark := func(h models.Hypothesis) string {
		if h.Score == best {
			return "now"
		}
		return ""
	}
	tab.Rows = append(tab.Rows, m.searchRow("greedy", m.greedy, mark(m.greedy)),
		m.searchRow(fmt.Sprintf("beam, k = %d", m.cfg.BeamSize), m.res.Best, mark(m.res.Best)))
	if m.exhaustive != nil {
		tab.Rows = append(tab.Rows, m.searchRow("exhaustive", *m.exhaustive, mark(*m.exhaustive)))
	} else {
		tab.Rows = append(tab.Rows, tableRow{Label: "exhaustive", Cells: []tableCell{{Text: m.exhShort, Mark: "off"}}})
	}
	if m.ref != nil {
		h := models.Hypothesis{Tokens: m.ref, Length: len(m.ref), LogProb: m.refLogP, Finished: true,
			Score: models.LengthNormalized(m.refLogP, len(m.ref), m.cfg.Alpha)}
		tab.Rows = append(tab.Rows, m.searchRow("reference y*", h, ""))
	}
	return tab
}

// bestFinished is the finished hypothesis (ending in <eos>) of highest score that the
// beam found, and whether there is one: ŷ may be a capped one, cut off at T_max.
func (m *beamModel) bestFinished() (models.Hypothesis, bool) {
	var best models.Hypothesis
	found := false
	for _, h := range m.res.Finished { // by step then rank: ties go to the earlier, as BeamSearch's
		if !found || h.Score > best.Score {
			best, found = h, true
		}
	}
	return best, found
}

// verdict is the lecture's error analysis on the beam's ŷ and the reference y*,
// comparing the quantity the search maximises: log P(y|x)/T^α (α = 0: P(y|x) itself).
// It compares like with like: y* is a finished sentence (it ends in <eos>), so ŷ is
// the best finished hypothesis of the beam, not one cut off at T_max, whose
// probability is that of a prefix and so larger than that of any sentence it begins.
// When the beam finished none within T_max there is nothing to compare, and it says so.
func (m *beamModel) verdict() string {
	if m.ref == nil {
		return "type a reference y* to ask whether the search or the model is at fault"
	}
	yHat, ok := m.bestFinished()
	if !ok {
		return fmt.Sprintf("no comparison: no hypothesis of the beam finished (said <eos>) within Tₘₐₓ = %d, and an unfinished prefix such as %q is at least as probable as any sentence it begins, so comparing it with the finished y* would blame the model unfairly; raise Tₘₐₓ",
			m.cfg.MaxLen, m.sentence(m.res.Best.Tokens))
	}
	which := ""
	if !m.res.Best.Finished {
		which = fmt.Sprintf(" (ŷ is the best finished hypothesis, %q; the beam's best, %q, was cut off at Tₘₐₓ = %d)", m.sentence(yHat.Tokens), m.sentence(m.res.Best.Tokens), m.cfg.MaxLen)
	}
	if slices.Equal(yHat.Tokens, m.ref) {
		return "ŷ = y*: the beam found the reference, so there is nothing to blame" + which
	}
	if math.IsInf(m.refLogP, -1) {
		return "P(y*|x) = 0: the model rules the reference out, so the model is at fault" + which
	}
	refScore := models.LengthNormalized(m.refLogP, len(m.ref), m.cfg.Alpha)
	what, a, b := "P", probText(m.refLogP), probText(yHat.LogProb)
	if m.cfg.Alpha != 0 {
		what, a, b = fmt.Sprintf("score (α = %g)", m.cfg.Alpha), beamNum(refScore), beamNum(yHat.Score)
	}
	if refScore > yHat.Score {
		if len(m.ref) > m.cfg.MaxLen {
			return fmt.Sprintf("%s(y*|x) = %s > %s(ŷ|x) = %s: the model prefers y*, but y* has %d tokens, more than Tₘₐₓ = %d, so no search here can return it: the length cap is at fault, not the beam width: raise Tₘₐₓ%s",
				what, a, what, b, len(m.ref), m.cfg.MaxLen, which)
		}
		return fmt.Sprintf("%s(y*|x) = %s > %s(ŷ|x) = %s: the model prefers y* but the beam missed it, so the search is at fault: widen the beam%s", what, a, what, b, which)
	}
	return fmt.Sprintf("%s(y*|x) = %s ≤ %s(ŷ|x) = %s: the search found what the model prefers, so the model is at fault: more data, regularisation or a better architecture%s", what, a, what, b, which)
}

// distribution is the table of what is being searched: the toy's tables, or the
// trained model's top next words after each prefix of ŷ. Green marks the word ŷ
// takes next, yellow greedy's different pick.
func (m *beamModel) distribution() table {
	yHat, g := m.res.Best.Tokens, m.greedy.Tokens
	// picks returns ŷ's and greedy's next words after prefix (−1 when prefix is not theirs).
	picks := func(prefix []int) (int, int) {
		next := func(seq []int) int {
			if len(seq) > len(prefix) && slices.Equal(seq[:len(prefix)], prefix) {
				return seq[len(prefix)]
			}
			return -1
		}
		return next(yHat), next(g)
	}
	markFor := func(w, hat, gr int) string {
		switch w {
		case hat:
			return "on"
		case gr:
			return "changed"
		}
		return ""
	}
	if m.toy != nil {
		d := m.toy
		tab := table{Title: "the toy's P(yₜ | y₁ … yₜ₋₁), one row per prefix", Head: append([]string{"prefix"}, d.Words...)}
		row := func(label, shown string, prefix []int, probs []float64) {
			hat, gr := -1, -1
			if prefix != nil {
				hat, gr = picks(prefix)
			}
			cells := []tableCell{{Text: shown}}
			for w, p := range probs {
				cells = append(cells, tableCell{Text: fmt.Sprintf("%.4g", p), Mark: markFor(w, hat, gr)})
			}
			tab.Rows = append(tab.Rows, tableRow{Label: label, Cells: cells})
		}
		row("t = 1", models.BosToken, []int{}, d.Table(""))
		for _, prefix := range slices.Sorted(maps.Keys(d.Tables)) {
			if prefix == "" {
				continue
			}
			ids, _ := d.Encode(prefix)
			row(fmt.Sprintf("t = %d", len(ids)+1), prefix, ids, d.Tables[prefix])
		}
		row("other", "any other prefix", nil, d.Default)
		return tab
	}
	tab := table{Title: fmt.Sprintf("the model's top %d next words after each prefix of ŷ", beamDistTop),
		Head: []string{"prefix"}}
	for i := range beamDistTop {
		tab.Head = append(tab.Head, fmt.Sprintf("#%d", i+1))
	}
	for t, lp := range m.pathLogProbs {
		prefix := yHat[:t]
		hat, gr := picks(prefix)
		ids := make([]int, len(lp))
		for i := range ids {
			ids[i] = i
		}
		slices.SortStableFunc(ids, func(a, b int) int { return compareDesc(lp[a], lp[b]) })
		cells := []tableCell{{Text: strings.TrimSpace(models.BosToken + " " + m.sentenceOrEmpty(prefix))}}
		for _, w := range ids[:min(beamDistTop, len(ids))] {
			cells = append(cells, tableCell{Text: m.words[w], Sub: probText(lp[w]), Mark: markFor(w, hat, gr)})
		}
		tab.Rows = append(tab.Rows, tableRow{Label: fmt.Sprintf("t = %d", t+1), Cells: cells})
	}
	return tab
}

func (m *beamModel) sentenceOrEmpty(ids []int) string {
	if len(ids) == 0 {
		return ""
	}
	return m.sentence(ids)
}

// compareDesc orders larger values first.
func compareDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

func (m *beamModel) Static() sim.Frame {
	meta := map[string]any{
		"tree": m.tree(), "compare": m.compare(), "dist": m.distribution(),
		"exhaustive_search": m.exhNote,
	}
	for k, v := range m.about {
		meta[k] = v
	}
	return sim.Frame{Meta: meta}
}

// At is step t of the beam: what it kept, finished and pruned; the step after the
// last ranks the candidates by score and names ŷ.
func (m *beamModel) At(t int) sim.Frame {
	beamLogP, greedyLogP := m.res.Best.LogProb, m.greedy.LogProb
	meta := map[string]any{}
	if t <= len(m.res.Steps) {
		st := m.res.Steps[t-1] // kept and finished expansions only (compact)
		var kept, finished []string
		for _, n := range st.Expansions {
			switch n.Fate {
			case models.FateKept:
				kept = append(kept, fmt.Sprintf("%s (P %s)", m.path(n.ID), probText(n.Cum)))
			case models.FateFinished:
				finished = append(finished, fmt.Sprintf("%s (P %s)", m.path(n.ID), probText(n.Cum)))
			}
		}
		all := m.expansions[t-1]
		meta["expansions"] = fmt.Sprintf("%d: %d kept, %d finished, %d pruned", all, len(kept), len(finished), all-len(kept)-len(finished))
		if len(kept) > 0 {
			meta["live_beams"] = strings.Join(kept, " · ")
		}
		if len(finished) > 0 {
			meta["finished_now"] = strings.Join(finished, " · ")
		}
		if len(st.Expansions) > 0 {
			beamLogP = st.Expansions[0].Cum
		}
		if n := len(m.greedyCum); n > 0 {
			greedyLogP = m.greedyCum[min(t, n)-1]
		}
	} else {
		meta["candidates"] = m.ranking()
		cut := ""
		if !m.res.Best.Finished {
			cut = ", cut off at Tₘₐₓ: not a finished sentence"
		}
		meta["beam_result_ŷ"] = fmt.Sprintf("%s (P %s, score %s%s)", m.sentence(m.res.Best.Tokens), probText(m.res.Best.LogProb), beamNum(m.res.Best.Score), cut)
	}
	meta["error_analysis"] = m.verdict()
	return sim.Frame{
		Arrays: []sim.Array{sim.Vector("beam_log_p", []float64{beamLogP}), sim.Vector("greedy_log_p", []float64{greedyLogP})},
		Meta:   meta,
	}
}

// beamRanked is how many of the hypotheses the beam ended with the last step lists:
// enough to see what α re-ranks.
const beamRanked = 5

// ranked is the beamRanked best hypotheses the beam ended with, finished or capped,
// best score first, and how many more there are.
func (m *beamModel) ranked() ([]models.Hypothesis, int) {
	hyps := append(slices.Clone(m.res.Finished), m.res.Capped...)
	slices.SortStableFunc(hyps, func(a, b models.Hypothesis) int { return compareDesc(a.Score, b.Score) })
	n := min(beamRanked, len(hyps))
	return hyps[:n], len(hyps) - n
}

// ranking lists the hypotheses the beam ended with, best score first.
func (m *beamModel) ranking() string {
	hyps, more := m.ranked()
	var parts []string
	for _, h := range hyps {
		end := ""
		if !h.Finished {
			end = ", capped at Tₘₐₓ"
		}
		parts = append(parts, fmt.Sprintf("%s: %s/%d^%g = %s%s", m.sentence(h.Tokens), beamNum(h.LogProb), h.Length, m.cfg.Alpha, beamNum(h.Score), end))
	}
	if more > 0 {
		parts = append(parts, fmt.Sprintf("%d more", more))
	}
	return strings.Join(parts, " · ")
}

// path writes the words from the root to node id.
func (m *beamModel) path(id int) string { return m.sentence(m.pathIDs(id)) }

// pathIDs is the tokens from the root to node id, y_1 … y_t.
func (m *beamModel) pathIDs(id int) []int {
	var ids []int
	for ; id > 0; id = m.nodes[id].Parent {
		ids = append(ids, m.nodes[id].Token)
	}
	slices.Reverse(ids)
	return ids
}

// widthSeries is the score of the best hypothesis against the beam width k, with
// greedy's and (where it ran) exhaustive search's as flat lines.
func widthSeries(sm sim.Model) []Series {
	m := sm.(*beamModel)
	b := Series{Label: "beam search"}
	g := Series{Label: "greedy"}
	e := Series{Label: "exhaustive"}
	for k := 1; k <= beamMaxK; k++ {
		b.X, b.Y = append(b.X, float64(k)), append(b.Y, m.beamOf(k).Best.Score)
		g.X, g.Y = append(g.X, float64(k)), append(g.Y, m.greedy.Score)
		if m.exhaustive != nil {
			e.X, e.Y = append(e.X, float64(k)), append(e.Y, m.exhaustive.Score)
		}
	}
	out := []Series{b, g}
	if m.exhaustive != nil {
		out = append(out, e)
	}
	return out
}

// alphaSeries is the normalised score log P/T^α of each hypothesis the beam ended
// with (finished or capped, the best few) against α: where two lines cross, the
// length normalisation changes the winner.
func alphaSeries(sm sim.Model) []Series {
	const shown = 6 // lines a slide can tell apart
	const points = 31
	m := sm.(*beamModel)
	hyps := append(slices.Clone(m.res.Finished), m.res.Capped...)
	slices.SortStableFunc(hyps, func(a, b models.Hypothesis) int { return compareDesc(a.LogProb, b.LogProb) })
	var out []Series
	for _, h := range hyps[:min(shown, len(hyps))] {
		s := Series{Label: m.sentence(h.Tokens)}
		for i := range points {
			a := beamMaxAlpha * float64(i) / float64(points-1)
			s.X, s.Y = append(s.X, a), append(s.Y, models.LengthNormalized(h.LogProb, h.Length, a))
		}
		out = append(out, s)
	}
	return out
}

var beamLesson = &Lesson{
	Slug:    "beam-search",
	Short:   "Beam search",
	Section: "4.6",
	Title:   "Beam search",
	Summary: "Greedy, beam and exhaustive search on a toy distribution you edit and on the trained translator: the hypothesis tree, length normalisation, and the error analysis that blames the search or the model.",
	Prose: []string{
		`A decoder gives, at every step, a distribution \(P(y_t \mid x, y_1, \dots, y_{t-1})\) over the next word. A translation is good when the whole sentence is likely: \(P(y \mid x)\) is the product of the steps' probabilities, and we want the sentence that maximises it. <b>Greedy search</b> takes the most likely word at each step; that is a local choice, and a word that looks best now can lead to a worse sentence. <b>Exhaustive search</b> scores every sentence, which is exact but costs \(V + V^2 + \dots + V^{T}\) expansions: five words and six steps are 19 530, a 500-word vocabulary and 20 steps about \(10^{54}\).`,
		`<b>Beam search</b> keeps the \(k\) best prefixes (the beam) at each step: it extends each of them by every word, ranks all the extensions by \(\log P\) so far, keeps the top \(k\) and prunes the rest. An extension ending in <code>&lt;eos&gt;</code> that makes the top \(k\) is a finished hypothesis and takes one of the \(k\) places. With \(k = 1\) this is greedy search; with \(k\) as large as the number of prefixes nothing is pruned and it is exhaustive search.`,
		`The toy is the lecture's example: translating “Jane visite l'Afrique”, greedy search takes “goes” after “jane” (0.4 against 0.3 for “visits”) and ends with \(P = 0.5 \cdot 0.4 \cdot 0.4 \cdot 0.6 = 0.048\), while “jane visits africa” has \(0.5 \cdot 0.3 \cdot 0.6 \cdot 0.6 = 0.054\). Step through the tree with \(k = 2\): both prefixes survive step 2, and at step 3 “jane visits africa” overtakes. Blue boxes are kept, green ones finished, dashed grey ones pruned; greedy's path is dashed orange, and one step after the search ends ŷ, the finished sentence of best score, is outlined in red. Set \(k = 1\) to watch the beam become greedy.`,
		`Products of many probabilities below 1 shrink with every word, so the search prefers short sentences. <b>Length normalisation</b> ranks finished sentences by \(\frac{1}{T_y^{\alpha}} \sum_t \log P\) instead: \(\alpha = 0\) is the plain log-probability, \(\alpha = 1\) the average per word; values around 0.7 are common. Move \(\alpha\) and watch the scores, and perhaps the winner, change.`,
		`<b>Error analysis</b> (lecture 003): when the output ŷ is worse than a human's translation \(y^*\), compare \(P(y^* \mid x)\) with \(P(\hat y \mid x)\). If the model gives \(y^*\) the higher probability, the search missed a better sentence: widen the beam. Otherwise the search did its job and the model is at fault: it needs more data, regularisation or a better architecture. With \(\alpha > 0\) the page compares the normalised scores, the quantity the search maximises. Both sides must be finished sentences: a hypothesis cut off at \(T_{\max}\) without <code>&lt;eos&gt;</code> is only a prefix, and a prefix is at least as probable as every sentence that begins with it, so ŷ here is the best hypothesis that finished, and when none finished within \(T_{\max}\) the page says the comparison cannot be made. Type \(y^*\) in the reference field; the verdict is among the facts.`,
		`<b>Editing the toy.</b> The tables field lists entries separated by <code>;</code>. Each entry is a prefix, a colon, and the probabilities of the next word in the order of the words field followed by <code>&lt;eos&gt;</code>: <code>jane goes: 0.1 0.2 0.2 0.4 0.1</code> means \(P(\text{africa} \mid \text{jane goes}) = 0.4\). <code>&lt;bos&gt;</code> is the first step's prefix and <code>*</code> every prefix not listed (uniform if omitted). Probabilities may be decimals or fractions such as 2/5, and each row must sum to 1; a mistake is reported with the entry it is in, and nothing changes until it is fixed. The table panel shows the tables as the search reads them. In <b>trained</b> mode the same searches run on the bundled GRU translator (section 4.6); there exhaustive search is impossible, and the table shows the model's top five next words after each prefix of ŷ. On the default sentence greedy search says “nous avons le professeur .” while \(k = 2\) finds the reference “nous écoutons le professeur .”: at \(k = 1\) the error analysis blames the search. The longest sentence \(T_{\max}\) applies here too, up to the translator's 20 tokens. Try “does she lose the keys ?” with the reference “est-ce qu'elle perd les clés ?” and \(T_{\max} = 7\) or more (at the default 6 no hypothesis finishes, and the page says so): there a wider beam finds sentences the model likes better than the reference, so the model is at fault.`,
	},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-logp}{\log P(y \mid x)} = \sum_{t=1}^{T_y} \log P(y_t \mid x, y_1, \dots, y_{t-1})`,
			Symbols: []Symbol{{ID: "logp", Array: "beam_log_p"}}},
		{TeX: `\text{greedy: } y_t = \operatorname*{argmax}_{w} P(w \mid x, y_{<t})`},
		{TeX: `\hat y = \operatorname*{argmax}_{y \text{ finished}} \frac{1}{T_y^{\alpha}} \sum_{t=1}^{T_y} \log P(y_t \mid x, y_{<t})`},
		{TeX: `\begin{aligned} P(y^* \mid x) &> P(\hat y \mid x) &&\Rightarrow \text{the search is at fault: widen the beam} \\ P(y^* \mid x) &\le P(\hat y \mid x) &&\Rightarrow \text{the model is at fault} \end{aligned}`},
	},
	Arrays: []Array{
		{Name: "beam_log_p", Label: `\(\log P(\hat{y}_{1..t})\) of the best beam`, Axes: []Axis{Scalar}, PerStep: true},
		{Name: "greedy_log_p", Label: `\(\log P\) of the greedy prefix`, Axes: []Axis{Scalar}, PerStep: true},
	},
	Stage: []string{"compare", "logp", "tree"},
	Panels: []Panel{
		{ID: "tree", Static: []string{"tree"}, Kind: Tree, Title: `the hypothesis tree, step by step`,
			Note: `Each column is a step t; every box is a prefix with \(P(y_t \mid \text{prefix})\) and its score so far. Hover a box for its numbers.`},
		{ID: "compare", Static: []string{"compare"}, Kind: Table, Title: `greedy vs beam vs exhaustive, and the reference \(y^*\)`,
			Note: "The highlighted rows reach the best score any of the searches found."},
		{ID: "dist", Static: []string{"dist"}, Kind: Table, Title: `the distribution searched`,
			Note: "Green: the word ŷ takes after that prefix; yellow: greedy's different pick."},
		{ID: "logp", Kind: Line, Title: `\(\log P\) of the beam's best prefix and of greedy's prefix at step t`, Arrays: []string{"beam_log_p", "greedy_log_p"}, Legend: []string{"beam's best prefix", "greedy's prefix"}, Symbol: "logp",
			Note: "Greedy's value stays at its last after it says <eos>."},
	},
	Params: sim.Specs{
		{Name: "k", Label: "beam size", Symbol: `k`, Kind: sim.Int, Default: "2", Min: 1, Max: beamMaxK, Step: 1,
			Help: "How many prefixes survive each step; k = 1 is greedy search."},
		{Name: "alpha", Label: "length normalisation", Symbol: `\alpha`, Kind: sim.Float, Default: "0", Min: 0, Max: beamMaxAlpha, Step: 0.05,
			Help: "Scores are Σ log P / T^α: 0 is the plain log-probability, 1 the per-word average."},
		{Name: "mode", Label: "distribution", Kind: sim.Choice, Default: beamToy, Choices: []string{beamToy, beamTrained},
			Help: "toy: the tables below, by hand; trained: the bundled GRU translator on the source sentence."},
		{Name: "reference", Label: "toy: reference y*", Kind: sim.Text, MaxLen: 200, MaxLenWhy: "no search returns a sentence longer than the toy's longest, 10 words, and 200 characters hold far more", Default: "jane visits africa <eos>",
			Help: "A sentence in the toy words for the error analysis (<eos> is added if missing); empty skips it."},
		{Name: "tables", Label: "toy: tables", Kind: sim.Text, MaxLen: 1200, MaxLenWhy: "tables are typed and read by hand, and 1200 characters hold several times the default's", Default: formatToy(models.ClassicGreedyTrap()),
			Help: "prefix: P(next word) for each word, then <eos>; entries separated by ; (see the text)."},
		{Name: "words", Label: "toy: words", Kind: sim.Text, MaxLen: 120, MaxLenWhy: "the toy has at most 6 words", Default: "jane visits goes africa", Advanced: true,
			Help: "The toy vocabulary, 1 to 6 words; <eos> is the last word of every table."},
		{Name: "max_len", Label: "longest sentence", Symbol: `T_{\max}`, Kind: sim.Int, Default: "6", Min: 1, Max: beamMaxLen, Step: 1, Advanced: true,
			Help: "Every search stops after this many tokens, <eos> included, in both modes (the translator writes at most 20); exhaustive search runs up to 8 (five words)."},
		{Name: "sentence", Label: "trained: source sentence x", Kind: sim.Text, MaxLen: 200, MaxLenWhy: "the model reads at most 20 words", Default: beamSentence,
			Help: "English, at most 20 words."},
		{Name: "target", Label: "trained: reference y*", Kind: sim.Text, MaxLen: 200, MaxLenWhy: "the model writes at most 20 words", Default: beamTarget,
			Help: "French words of the model's vocabulary; empty skips the error analysis."},
	},
	Plots: []Plot{
		{Name: "width", Title: `best score found against the beam width \(k\)`, XLabel: `beam size \(k\)`, YLabel: `score \(= \log P / T^{\alpha}\)`, Series: widthSeries},
		{Name: "alpha", Title: `final hypotheses' scores against \(\alpha\)`, XLabel: `\(\alpha\)`, YLabel: `\(\log P(y \mid x) / T^{\alpha}\)`, Series: alphaSeries},
	},
	Build:   buildBeam,
	Facts:   beamFacts,
	Largest: sim.Values{"mode": beamTrained, "k": "10", "sentence": longSentence, "max_len": strconv.Itoa(beamMaxLen)},
	// 351 KB measured on the trained model at k = 10 and a 20-token sentence, 28 KB at the defaults: the tree as drawn, not every expansion.
	SessionBytes: 528 << 10,
}

// beamFacts labels the page's facts in the lecture's words.
var beamFacts = factTable{
	static: []fact{
		{key: "vocabulary", label: "vocabulary"},
		{key: "distribution", label: "distribution"},
		{key: "T_max", label: `longest output \(T_{max}\)`},
		{key: "exhaustive_search", label: "exhaustive search"},
		{key: "source_tokens_ids", label: "source"},
		{key: "reference", label: `reference \(y^*\)`},
		{key: "test_BLEU_greedy", label: "test BLEU, greedy", measured: true},
		{key: "test_BLEU_beam", label: "test BLEU, beam", measured: true},
	},
	step: []fact{
		{key: "expansions", label: "expansions"},
		{key: "live_beams", label: "live beams"},
		{key: "finished_now", label: "finished now"},
		{key: "candidates", label: "candidates"},
		{key: "beam_result_ŷ", label: "beam result ŷ"},
		{key: "error_analysis", label: "error analysis"},
	},
}

// The toy distribution's text form, which the beam-search page keeps in its URL:
//
//	<bos>: 0.5 0.18 0.16 0.14 0.02; jane: 0.05 0.3 0.4 0.2 0.05; *: 0.2 0.2 0.2 0.2 0.2
//
// Entries are separated by ";". Each entry is a prefix y_<t, a colon, then
// P(y_t = w | y_<t) for every word w in the order of the word list with <eos> last.
// The prefix is toy words separated by spaces; "<bos>" alone is the empty prefix of
// the first step, and "*" is the table of every prefix not listed. A probability is a
// decimal (0.4, .4) or a fraction (2/5).
const (
	toyStart   = models.BosToken // the prefix of the first step
	toyOther   = "*"             // every prefix without an entry of its own
	toyMaxWord = 20              // characters per toy word: a node of the tree still fits it
	// toyMaxWords bounds the words before <eos>: a table row of probabilities still fits
	// the panel, and exhaustive search stays possible for a few steps.
	toyMaxWords = 6
	// toySumTolerance is how far a table may sum from 1: numbers typed to a few
	// decimals add up to 1 within rounding (models.ToyDistribution checks the same).
	toySumTolerance = 1e-9
)

// parseToyWords reads the toy vocabulary: 1 to toyMaxWords distinct words before
// <eos>, which the page adds as the last word.
func parseToyWords(s string) ([]string, error) {
	words := strings.Fields(s)
	if len(words) == 0 || len(words) > toyMaxWords {
		return nil, fmt.Errorf("toy words: type 1 to %d words separated by spaces (got %d); <eos> is added as the last word", toyMaxWords, len(words))
	}
	for i, w := range words {
		switch {
		case w == models.EosToken || w == models.BosToken || w == toyOther:
			return nil, fmt.Errorf("toy words: %q is reserved; the page adds <eos> itself", w)
		case strings.ContainsAny(w, ":;"):
			return nil, fmt.Errorf("toy words: %q contains : or ;, which separate the tables", w)
		case len([]rune(w)) > toyMaxWord:
			return nil, fmt.Errorf("toy words: %q is longer than %d characters", w, toyMaxWord)
		case slices.Index(words, w) < i:
			return nil, fmt.Errorf("toy words: %q appears twice", w)
		}
	}
	return append(words, models.EosToken), nil
}

// parseProbability reads one probability: a decimal or a fraction a/b.
func parseProbability(s string) (float64, error) {
	num, den, frac := strings.Cut(s, "/")
	p, err := strconv.ParseFloat(num, 64)
	if err == nil && frac {
		var d float64
		if d, err = strconv.ParseFloat(den, 64); err == nil {
			if d == 0 {
				return 0, fmt.Errorf("%q divides by zero", s)
			}
			p /= d
		}
	}
	if err != nil || math.IsNaN(p) || math.IsInf(p, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if p < 0 || p > 1 {
		return 0, fmt.Errorf("%s is not a probability between 0 and 1", s)
	}
	return p, nil
}

// parseToy reads the tables (the text form above) over words (ending in <eos>) into a
// validated ToyDistribution. A missing "*" entry makes every unlisted prefix uniform,
// but tables without any entry are refused: an emptied field is far more likely a
// slip than a wish for the uniform distribution, which "*" states explicitly.
// Errors name the field and the entry, in words a student can act on.
func parseToy(words []string, tables string) (*models.ToyDistribution, error) {
	d := &models.ToyDistribution{Words: words, EOS: len(words) - 1, Tables: map[string][]float64{}}
	order := strings.Join(words, " ")
	if strings.Trim(tables, " \t\n;") == "" {
		uniform := strings.TrimSpace(strings.Repeat(" 1/"+strconv.Itoa(len(words)), len(words)))
		return nil, fmt.Errorf("toy tables: there are no entries; write at least one, such as \"<bos>: %s\" (every word equally likely), one per prefix, separated by ;", uniform)
	}
	n := 0
	for entry := range strings.SplitSeq(tables, ";") {
		if strings.TrimSpace(entry) == "" {
			continue // a trailing or doubled ;
		}
		n++
		head, body, ok := strings.Cut(entry, ":")
		prefix := strings.Join(strings.Fields(head), " ")
		name := fmt.Sprintf("toy tables, entry %d (%q)", n, prefix)
		if !ok {
			return nil, fmt.Errorf("toy tables, entry %d: write the prefix, a colon, then the probabilities, as in \"jane: 0.1 0.3 0.4 0.1 0.1\"", n)
		}
		switch {
		case prefix == toyStart:
			prefix = ""
		case strings.HasPrefix(prefix, toyStart+" "):
			prefix = strings.TrimPrefix(prefix, toyStart+" ")
		case prefix == "":
			return nil, fmt.Errorf("%s: the prefix is empty; write <bos> for the first step or * for every other prefix", name)
		}
		if prefix != toyOther {
			for _, w := range strings.Fields(prefix) {
				switch i := slices.Index(words, w); {
				case i < 0:
					return nil, fmt.Errorf("%s: %q is not a toy word (%s)", name, w, order)
				case i == d.EOS:
					return nil, fmt.Errorf("%s: a prefix cannot contain <eos>, which ends the sentence", name)
				}
			}
		}
		fields := strings.Fields(body)
		if len(fields) != len(words) {
			return nil, fmt.Errorf("%s: %d probabilities, want %d, one per word in the order %s", name, len(fields), len(words), order)
		}
		probs := make([]float64, len(fields))
		var sum float64
		for i, f := range fields {
			p, err := parseProbability(f)
			if err != nil {
				return nil, fmt.Errorf("%s: the probability of %q: %v", name, words[i], err)
			}
			probs[i], sum = p, sum+p
		}
		if math.Abs(sum-1) > toySumTolerance {
			return nil, fmt.Errorf("%s: the probabilities sum to %s, want 1", name, strconv.FormatFloat(sum, 'g', sumDigits(sum), 64))
		}
		if prefix == toyOther {
			if d.Default != nil {
				return nil, fmt.Errorf("%s: * is listed twice", name)
			}
			d.Default = probs
			continue
		}
		if _, dup := d.Tables[prefix]; dup {
			return nil, fmt.Errorf("%s: this prefix is listed twice", name)
		}
		d.Tables[prefix] = probs
	}
	if d.Default == nil {
		d.Default = make([]float64, len(words))
		for i := range d.Default {
			d.Default[i] = 1 / float64(len(words))
		}
	}
	if err := d.Validate(); err != nil { // the checks above should have caught everything
		return nil, fmt.Errorf("toy tables: %s", strings.TrimPrefix(err.Error(), "models: "))
	}
	return d, nil
}

// formatToy writes d's tables in the text form: <bos> first, then the prefixes in
// sorted order, then *.
func formatToy(d *models.ToyDistribution) string {
	entry := func(prefix string, probs []float64) string {
		nums := make([]string, len(probs))
		for i, p := range probs {
			nums[i] = strconv.FormatFloat(p, 'g', -1, 64)
		}
		return prefix + ": " + strings.Join(nums, " ")
	}
	var entries []string
	if t, ok := d.Tables[""]; ok {
		entries = append(entries, entry(toyStart, t))
	}
	for _, prefix := range slices.Sorted(maps.Keys(d.Tables)) {
		if prefix != "" {
			entries = append(entries, entry(prefix, d.Tables[prefix]))
		}
	}
	entries = append(entries, entry(toyOther, d.Default))
	return strings.Join(entries, "; ")
}

// sumDigits is how many digits show a wrong sum as different from 1: 6 usually, more
// when it misses by rounding.
func sumDigits(sum float64) int {
	if math.Abs(sum-1) < 1e-5 {
		return 15
	}
	return 6
}
