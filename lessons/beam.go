package lessons

import (
	"fmt"
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
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/beam-search.html"), Scripts: []string{seq2seqScript}},
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
