package models

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode"
)

// StepFunc is one decoder step: given the decoder state after the prefix y_<t−1 and
// the last token y_{t−1} (<bos> at t = 1) it returns log P(y_t = w | y_<t, x) for
// every vocabulary word w, and the state after y_{t−1} that the next step starts
// from. It must not modify state and must return a fresh next value, because
// several hypotheses share a state. A word with probability 0 has log-probability
// −Inf and is never chosen; NaN or +Inf panics the search.
type StepFunc[S any] func(state S, last int) (logProbs []float64, next S)

// SearchConfig configures a decoding search. MaxLen caps T, the number of generated
// tokens (<eos> included); BeamSize is the beam width k (BeamSearch only); Alpha is
// the length-normalisation exponent α of the score (1/T^α) Σ_t log P(y_t | y_<t, x)
// (α = 0: the plain log-probability; α = 1: the per-token average).
type SearchConfig struct {
	BOS, EOS int
	MaxLen   int
	BeamSize int
	Alpha    float64
}

// Validate reports a config that no search accepts: MaxLen < 1, BeamSize < 1, or
// Alpha negative, NaN or infinite.
func (c SearchConfig) Validate() error {
	switch {
	case c.MaxLen < 1:
		return fmt.Errorf("models: max length must be at least 1, got %d", c.MaxLen)
	case c.BeamSize < 1:
		return fmt.Errorf("models: beam size must be at least 1, got %d", c.BeamSize)
	case !(c.Alpha >= 0) || math.IsInf(c.Alpha, 1):
		return fmt.Errorf("models: alpha must be a finite number ≥ 0, got %v", c.Alpha)
	}
	return nil
}

// mustValid panics on a config the search cannot run; Greedy and Exhaustive do
// not use BeamSize, so needBeam is false for them.
func (c SearchConfig) mustValid(needBeam bool) {
	if !needBeam {
		c.BeamSize = 1
	}
	if err := c.Validate(); err != nil {
		panic(err.Error())
	}
}

// LengthNormalized is the score (1/T^α) Σ_t log P(y_t | y_<t, x) of a sequence of T
// tokens whose log-probabilities sum to logProb (lecture 003). T = 0 returns logProb.
func LengthNormalized(logProb float64, T int, alpha float64) float64 {
	if T == 0 || alpha == 0 {
		return logProb
	}
	return logProb / math.Pow(float64(T), alpha)
}

// Hypothesis is one decoded sequence y_1 … y_T (without <bos>; ending in <eos> when
// Finished). Length is T = len(Tokens), so a generated <eos> counts; LogProb is
// log P(y|x) = Σ_{t=1..T} log P(y_t | y_<t, x); Score is LengthNormalized(LogProb, T, α).
type Hypothesis struct {
	Tokens   []int   `json:"tokens"`
	LogProb  float64 `json:"log_prob"`
	Length   int     `json:"length"`
	Score    float64 `json:"score"`
	Finished bool    `json:"finished"`
}

func newHypothesis(tokens []int, logProb, alpha float64, eos int) Hypothesis {
	n := len(tokens)
	return Hypothesis{
		Tokens:   tokens,
		LogProb:  logProb,
		Length:   n,
		Score:    LengthNormalized(logProb, n, alpha),
		Finished: n > 0 && tokens[n-1] == eos,
	}
}

func checkLogProb(lp float64, w int) {
	if math.IsNaN(lp) || math.IsInf(lp, 1) {
		panic(fmt.Sprintf("models: step returned log-probability %v for word %d", lp, w))
	}
}

// Greedy is greedy search (lecture 003): y_t = argmax_w log P(w | y_<t, x), until
// <eos> or MaxLen tokens. Ties go to the lowest word id. It stops early, without
// <eos>, if every word has probability 0.
func Greedy[S any](start S, cfg SearchConfig, step StepFunc[S]) Hypothesis {
	cfg.mustValid(false)
	tokens := []int{}
	var sum float64
	state, last := start, cfg.BOS
	for len(tokens) < cfg.MaxLen && (len(tokens) == 0 || last != cfg.EOS) {
		logProbs, next := step(state, last)
		best, bestCum := -1, math.Inf(-1)
		for w, lp := range logProbs {
			checkLogProb(lp, w)
			// compare sum + lp, the quantity a beam of width 1 ranks by
			if cum := sum + lp; !math.IsInf(lp, -1) && (best < 0 || cum > bestCum) {
				best, bestCum = w, cum
			}
		}
		if best < 0 {
			break
		}
		tokens = append(tokens, best)
		sum = bestCum
		state, last = next, best
	}
	return newHypothesis(tokens, sum, cfg.Alpha, cfg.EOS)
}

// Fate is what beam search did with one expansion.
type Fate string

// The fates of an expansion.
const (
	FateKept     Fate = "kept"     // in the top k and not <eos>: a live beam for the next step
	FatePruned   Fate = "pruned"   // outside the top k: dropped
	FateFinished Fate = "finished" // in the top k and ending in <eos>: a finished hypothesis
)

// BeamNode is one expansion y_<t ⧺ w considered at step t. ID numbers nodes from 1
// in the order they are ranked (0 is the root, the <bos> prefix); Parent is the ID
// of the prefix it extends. LogProb is log P(y_t = Token | y_<t, x), Cum the prefix
// sum Σ_{t'≤t} log P, Score = Cum/t^α, Rank its 0-based place among all expansions
// of step t (by Cum, best first).
type BeamNode struct {
	ID      int     `json:"id"`
	Parent  int     `json:"parent"`
	T       int     `json:"t"`
	Token   int     `json:"token"`
	LogProb float64 `json:"log_prob"`
	Cum     float64 `json:"cum"`
	Score   float64 `json:"score"`
	Rank    int     `json:"rank"`
	Fate    Fate    `json:"fate"`
}

// BeamStep holds every expansion considered at step t, in rank order.
type BeamStep struct {
	T          int        `json:"t"`
	Expansions []BeamNode `json:"expansions"`
}

// BeamResult is a beam search with its whole hypothesis tree. Finished lists the
// hypotheses that produced <eos>, by step then rank; Capped the beams still live
// after MaxLen steps, by rank. Best is the candidate of highest Score among
// Finished and Capped (ties to the earlier in that order) and BestNode the ID of
// its last node; when no word ever had non-zero probability Best is empty and
// BestNode is −1.
type BeamResult struct {
	Best     Hypothesis   `json:"best"`
	BestNode int          `json:"best_node"`
	Finished []Hypothesis `json:"finished"`
	Capped   []Hypothesis `json:"capped"`
	Steps    []BeamStep   `json:"steps"`
}

// BeamSearch is beam search with width k = BeamSize (lecture 003). The root is the
// <bos> prefix. At step t = 1, 2, … every live beam is expanded by every word of
// non-zero probability, and all these expansions are ranked together by
// Σ_{t'≤t} log P (within a step all have length t, so this is also the order of the
// normalised score); ties keep the order of the parent beams, then word ids. The top
// k expansions survive: those ending in <eos> become finished (they use up a place
// of the k), the others are the live beams of step t+1. The search stops after step
// MaxLen or when no beam is live, and returns the finished or capped hypothesis of
// highest length-normalised score. With k = 1 it is Greedy; with k at least the
// number of possible prefixes it is Exhaustive.
func BeamSearch[S any](start S, cfg SearchConfig, step StepFunc[S]) *BeamResult {
	cfg.mustValid(true)
	type beam struct {
		node  int
		state S
		last  int
		cum   float64
	}
	type expansion struct {
		node   BeamNode
		parent int // index into live
	}
	parents := []int{-1} // node ID → parent ID
	tokens := []int{-1}  // node ID → token
	hyp := func(id int, cum float64) Hypothesis {
		var seq []int
		for ; id > 0; id = parents[id] {
			seq = append(seq, tokens[id])
		}
		slices.Reverse(seq)
		if seq == nil {
			seq = []int{}
		}
		return newHypothesis(seq, cum, cfg.Alpha, cfg.EOS)
	}

	res := &BeamResult{BestNode: -1, Finished: []Hypothesis{}, Capped: []Hypothesis{}, Steps: []BeamStep{}}
	live := []beam{{node: 0, state: start, last: cfg.BOS}}
	var finishedNodes []int
	for t := 1; t <= cfg.MaxLen && len(live) > 0; t++ {
		var exps []expansion
		nexts := make([]S, len(live))
		for bi, b := range live {
			logProbs, next := step(b.state, b.last)
			nexts[bi] = next
			for w, lp := range logProbs {
				checkLogProb(lp, w)
				if math.IsInf(lp, -1) {
					continue
				}
				cum := b.cum + lp
				exps = append(exps, expansion{node: BeamNode{
					Parent: b.node, T: t, Token: w, LogProb: lp,
					Cum: cum, Score: LengthNormalized(cum, t, cfg.Alpha),
				}, parent: bi})
			}
		}
		slices.SortStableFunc(exps, func(a, b expansion) int { return cmp.Compare(b.node.Cum, a.node.Cum) })
		st := BeamStep{T: t, Expansions: make([]BeamNode, len(exps))}
		var nextLive []beam
		for rank, e := range exps {
			n := e.node
			n.ID, n.Rank = len(parents), rank
			parents = append(parents, n.Parent)
			tokens = append(tokens, n.Token)
			switch {
			case rank >= cfg.BeamSize:
				n.Fate = FatePruned
			case n.Token == cfg.EOS:
				n.Fate = FateFinished
				res.Finished = append(res.Finished, hyp(n.ID, n.Cum))
				finishedNodes = append(finishedNodes, n.ID)
			default:
				n.Fate = FateKept
				nextLive = append(nextLive, beam{node: n.ID, state: nexts[e.parent], last: n.Token, cum: n.Cum})
			}
			st.Expansions[rank] = n
		}
		res.Steps = append(res.Steps, st)
		live = nextLive
	}
	candidates := finishedNodes
	for _, b := range live { // still live after MaxLen steps
		res.Capped = append(res.Capped, hyp(b.node, b.cum))
		candidates = append(candidates, b.node)
	}
	all := append(slices.Clone(res.Finished), res.Capped...)
	for i, h := range all {
		if res.BestNode < 0 || h.Score > res.Best.Score {
			res.Best, res.BestNode = h, candidates[i]
		}
	}
	if res.BestNode < 0 {
		res.Best = newHypothesis([]int{}, 0, cfg.Alpha, cfg.EOS)
	}
	return res
}

// MaxExhaustiveNodes bounds Exhaustive: about a million expansions keeps a page's
// exhaustive search well under a second.
const MaxExhaustiveNodes = 1 << 20

// ExhaustiveNodes is the most expansions Exhaustive can visit for a vocabulary of
// V words and sequences of up to maxLen tokens, Σ_{t=1..maxLen} V^t, saturating at
// math.MaxInt.
func ExhaustiveNodes(vocabSize, maxLen int) int {
	total, layer := 0, 1
	for range maxLen {
		if vocabSize != 0 && layer > math.MaxInt/vocabSize {
			return math.MaxInt
		}
		layer *= vocabSize
		if total > math.MaxInt-layer {
			return math.MaxInt
		}
		total += layer
	}
	return total
}

// Exhaustive scores every sequence the search space holds — every y_1 … y_T ending
// in <eos> with T ≤ MaxLen, and every y_1 … y_MaxLen without <eos> — and returns the
// one of highest LengthNormalized score (ties to the first in lexicographic order of
// word ids). It panics when ExhaustiveNodes of the vocabulary size (the length of
// the first step's output) and MaxLen exceeds MaxExhaustiveNodes.
func Exhaustive[S any](start S, cfg SearchConfig, step StepFunc[S]) Hypothesis {
	cfg.mustValid(false)
	first, next := step(start, cfg.BOS)
	if n := ExhaustiveNodes(len(first), cfg.MaxLen); n > MaxExhaustiveNodes {
		panic(fmt.Sprintf("models: exhaustive search over %d words up to length %d needs more than %d expansions", len(first), cfg.MaxLen, MaxExhaustiveNodes))
	}
	best := newHypothesis([]int{}, 0, cfg.Alpha, cfg.EOS)
	found := false
	prefix := make([]int, 0, cfg.MaxLen)
	var visit func(logProbs []float64, next S, cum float64)
	visit = func(logProbs []float64, next S, cum float64) {
		for w, lp := range logProbs {
			checkLogProb(lp, w)
			if math.IsInf(lp, -1) {
				continue
			}
			c := cum + lp
			prefix = append(prefix, w)
			if w == cfg.EOS || len(prefix) == cfg.MaxLen {
				if s := LengthNormalized(c, len(prefix), cfg.Alpha); !found || s > best.Score {
					best, found = newHypothesis(slices.Clone(prefix), c, cfg.Alpha, cfg.EOS), true
				}
			} else {
				lps, n := step(next, w)
				visit(lps, n, c)
			}
			prefix = prefix[:len(prefix)-1]
		}
	}
	visit(first, next, 0)
	return best
}

// SequenceLogProb is log P(y|x) = Σ_{t=1..T} log P(y_t | y_<t, x) for the given
// tokens y_1 … y_T (without <bos>), the quantity lecture 003's error analysis
// compares for the human y* and the search's ŷ: P(y*|x) > P(ŷ|x) blames the search,
// otherwise the model. It is −Inf when a token has probability 0; a token outside
// the vocabulary panics.
func SequenceLogProb[S any](start S, cfg SearchConfig, step StepFunc[S], tokens []int) float64 {
	var sum float64
	state, last := start, cfg.BOS
	for _, y := range tokens {
		logProbs, next := step(state, last)
		if y < 0 || y >= len(logProbs) {
			panic(fmt.Sprintf("models: token %d outside vocabulary [0, %d)", y, len(logProbs)))
		}
		checkLogProb(logProbs[y], y)
		sum += logProbs[y]
		state, last = next, y
	}
	return sum
}

// ToyBOS is the <bos> id of a ToyDistribution: the toy conditions on the prefix
// words alone, so <bos> needs no word of its own.
const ToyBOS = -1

// Bounds on a ToyDistribution, which a page lets students edit.
const (
	MaxToyWords      = 16   // a table of more words no longer fits a slide
	toyProbTolerance = 1e-9 // probabilities typed with a few decimals sum to 1 up to rounding
)

// ToyDistribution is a hand-written conditional distribution P(y_t | y_<t) for
// decoding by hand: a small vocabulary Words (one of which, Words[EOS], ends a
// sequence) and one probability table per prefix. Tables maps a prefix — its words
// joined by single spaces, "" for the first step — to P(y_t = Words[i] | prefix) for
// every i; any prefix without a table uses Default. Edit the tables, call Validate,
// then search with Step and Config:
//
//	d := ClassicGreedyTrap()
//	best := BeamSearch("", d.Config(5, 2, 0), d.Step)
type ToyDistribution struct {
	Words   []string             `json:"words"`
	EOS     int                  `json:"eos"`
	Tables  map[string][]float64 `json:"tables"`
	Default []float64            `json:"default"`
}

// ClassicGreedyTrap is the lecture-003 situation where greedy search misses the most
// probable sentence. Words: jane, visits, goes, africa, <eos>. Greedy takes the
// locally likelier "goes" and ends with
// P(jane goes africa <eos>) = 0.5·0.4·0.4·0.6 = 0.048, while the best sentence is
// P(jane visits africa <eos>) = 0.5·0.3·0.6·0.6 = 0.054, which beam search with
// k = 2 (and exhaustive search) finds for any MaxLen ≥ 4 and α = 0.
func ClassicGreedyTrap() *ToyDistribution {
	// ids: 0 jane, 1 visits, 2 goes, 3 africa, 4 <eos>
	return &ToyDistribution{
		Words: []string{"jane", "visits", "goes", "africa", EosToken},
		EOS:   4,
		Tables: map[string][]float64{
			"":                   {0.5, 0.18, 0.16, 0.14, 0.02},
			"jane":               {0.05, 0.3, 0.4, 0.2, 0.05},
			"jane goes":          {0.1, 0.2, 0.2, 0.4, 0.1},
			"jane goes africa":   {0.1, 0.1, 0.1, 0.1, 0.6},
			"jane visits":        {0.1, 0.1, 0.1, 0.6, 0.1},
			"jane visits africa": {0.1, 0.1, 0.1, 0.1, 0.6},
		},
		Default: []float64{0.2, 0.2, 0.2, 0.2, 0.2},
	}
}

// Validate checks the toy: 2 to MaxToyWords distinct words without white space,
// EOS naming one of them, a Default table, every table with one probability per
// word, each in [0, 1], summing to 1, and every prefix made of non-<eos> words
// joined by single spaces.
func (d *ToyDistribution) Validate() error {
	if len(d.Words) < 2 || len(d.Words) > MaxToyWords {
		return fmt.Errorf("models: the toy vocabulary has %d words, want 2 to %d", len(d.Words), MaxToyWords)
	}
	seen := map[string]bool{}
	for _, w := range d.Words {
		if w == "" || strings.IndexFunc(w, unicode.IsSpace) >= 0 {
			return fmt.Errorf("models: toy word %q is empty or contains a space", w)
		}
		if seen[w] {
			return fmt.Errorf("models: toy word %q appears twice", w)
		}
		seen[w] = true
	}
	if d.EOS < 0 || d.EOS >= len(d.Words) {
		return fmt.Errorf("models: toy eos id %d is not one of the %d words", d.EOS, len(d.Words))
	}
	if d.Default == nil {
		return fmt.Errorf("models: the toy distribution needs a default table")
	}
	if err := d.checkTable("the default table", d.Default); err != nil {
		return err
	}
	for _, prefix := range slices.Sorted(maps.Keys(d.Tables)) {
		if strings.Join(strings.Fields(prefix), " ") != prefix {
			return fmt.Errorf("models: toy prefix %q must be words joined by single spaces", prefix)
		}
		for _, w := range strings.Fields(prefix) {
			if i := slices.Index(d.Words, w); i < 0 || i == d.EOS {
				return fmt.Errorf("models: toy prefix %q uses %q, which is not a word before <eos>", prefix, w)
			}
		}
		if err := d.checkTable(fmt.Sprintf("the table for %q", prefix), d.Tables[prefix]); err != nil {
			return err
		}
	}
	return nil
}

func (d *ToyDistribution) checkTable(name string, probs []float64) error {
	if len(probs) != len(d.Words) {
		return fmt.Errorf("models: %s has %d probabilities, want one per word (%d)", name, len(probs), len(d.Words))
	}
	var sum float64
	for i, p := range probs {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("models: %s gives %q probability %v, want a number in [0, 1]", name, d.Words[i], p)
		}
		sum += p
	}
	if math.Abs(sum-1) > toyProbTolerance {
		return fmt.Errorf("models: %s sums to %v, want 1", name, sum)
	}
	return nil
}

// Table is P(y_t = Words[i] | prefix) for the prefix (words joined by single
// spaces): its own table, else Default. The slice is the toy's own; do not modify.
func (d *ToyDistribution) Table(prefix string) []float64 {
	if t, ok := d.Tables[prefix]; ok {
		return t
	}
	return d.Default
}

// Step is the toy as a StepFunc[string]: the state is the prefix before last, and
// the result is log Table(prefix ⧺ last) with the extended prefix as next state.
// Start a search from the state "" with last = ToyBOS (Config sets it).
func (d *ToyDistribution) Step(prefix string, last int) ([]float64, string) {
	next := prefix
	if last != ToyBOS {
		if next != "" {
			next += " "
		}
		next += d.Words[last]
	}
	probs := d.Table(next)
	logProbs := make([]float64, len(probs))
	for i, p := range probs {
		logProbs[i] = math.Log(p)
	}
	return logProbs, next
}

// Config is the SearchConfig for decoding this toy (BOS = ToyBOS, EOS = d.EOS).
func (d *ToyDistribution) Config(maxLen, beamSize int, alpha float64) SearchConfig {
	return SearchConfig{BOS: ToyBOS, EOS: d.EOS, MaxLen: maxLen, BeamSize: beamSize, Alpha: alpha}
}

// Encode maps a space-separated sentence of toy words to their ids.
func (d *ToyDistribution) Encode(sentence string) ([]int, error) {
	words := Tokenize(sentence)
	ids := make([]int, len(words))
	for i, w := range words {
		ids[i] = slices.Index(d.Words, w)
		if ids[i] < 0 {
			return nil, fmt.Errorf("models: %q is not a word of the toy vocabulary", w)
		}
	}
	return ids, nil
}

// Decode joins the words of ids with single spaces.
func (d *ToyDistribution) Decode(ids []int) string {
	words := make([]string, len(ids))
	for i, id := range ids {
		words[i] = d.Words[id]
	}
	return strings.Join(words, " ")
}
