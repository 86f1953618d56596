package models

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The two BLEU weightings docs/api.md names.
const (
	// WeightsUniform is Papineni et al. 2002: BLEU = BP · exp(Σ_{n=1..N} (1/N) log p_n).
	WeightsUniform = "uniform"
	// WeightsD2L is lecture 4.6 eq. (7): BLEU = exp(min(0, 1 − len_label/len_pred)) · Π_{n=1..k} p_n^{1/2^n}.
	WeightsD2L = "d2l"
)

// Smoothings of zero precisions (BLEUOptions.Smoothing). A sentence shorter than n
// words has no n-grams, and a short or poor one often has no match of some order;
// unsmoothed, either makes BLEU 0, which is how the paper defines it for a corpus.
// Sentence-level practice smooths; these are the named methods.
const (
	// SmoothNone is Papineni et al. 2002 (the default, "" too): any p_n = 0 gives BLEU 0.
	SmoothNone = "none"
	// SmoothEffectiveOrder (sacreBLEU's effective order) averages over the orders
	// 1 … N_eff that the candidate has n-grams of, N_eff = min(N, c), with their weights
	// renormalised to sum to 1: "the cat" against "the cat" scores 1 for any N.
	SmoothEffectiveOrder = "effective-order"
	// SmoothEpsilon is Chen & Cherry 2014's method 1 (NLTK's method1): a zero match
	// count becomes ε = SmoothingEpsilon, p_n = ε / max(1, total_n).
	SmoothEpsilon = "epsilon"
	// SmoothAddOne is Lin & Och 2004 (NLTK's method2): for n ≥ 2,
	// p_n = (matched_n + 1) / (max(1, total_n) + 1).
	SmoothAddOne = "add-one"
)

// SmoothingEpsilon is SmoothEpsilon's ε: NLTK's default, 0.1.
const SmoothingEpsilon = 0.1

// WeightsTolerance: general weights w_n must sum to 1 within this (a hand-typed
// 0.333 0.333 0.334 is accepted; 0.3 0.3 0.3 is not).
const WeightsTolerance = 1e-3

// MaxBLEUOrder is the largest max_n accepted: the lectures use n ≤ 4, and past 8 a
// sentence almost never matches while the n-gram breakdown keeps growing.
const MaxBLEUOrder = 8

// MaxNGramRefSpans caps the reference spans listed for one credited n-gram occurrence
// (NGram.Refs): the first 16 references that hold it. Without a cap the listing grows
// with candidate length × max_n × the number of references (a 400-word candidate against
// 2,000 copies of itself listed 274 MB); with it, it grows with the candidate alone. 16 is
// the API's own limit on references (check.MaxReferences), so no answer of the API is cut,
// and the bleu lesson shows at most 4. The counts (Count, Clip, Matched) always use every
// reference.
const MaxNGramRefSpans = 16

// Errors for bad BLEU input; the returned errors wrap these and add the bad value.
var (
	ErrBLEUMaxN         = fmt.Errorf("models: max_n must be between 1 and %d", MaxBLEUOrder)
	ErrBLEUWeights      = errors.New(`models: weights must be "uniform" or "d2l"`)
	ErrBLEUNoReferences = errors.New("models: a candidate needs at least one reference")
	ErrBLEUOneReference = errors.New(`models: weights "d2l" compare with exactly one reference`)
	ErrBLEUCorpusShape  = errors.New("models: the corpus needs one list of references per candidate")
	ErrBLEUEmptyCorpus  = errors.New("models: the corpus has no candidates")
	ErrBLEUSmoothing    = fmt.Errorf("models: smoothing must be %q, %q, %q or %q", SmoothNone, SmoothEffectiveOrder, SmoothEpsilon, SmoothAddOne)
	ErrBLEUW            = errors.New("models: the weights w_n must be N numbers from 0 to 1 that sum to 1, for the uniform weighting only")
)

// BLEUOptions selects the BLEU variant: n-grams up to MaxN (N in the paper, k in the
// lecture), the weighting (WeightsUniform or WeightsD2L; there is no default), and
// whether tokens are lowercased before matching.
//
// Smoothing (one of the Smooth… names; "" is SmoothNone) treats zero precisions, and
// W, when set, gives the uniform weighting's general weights w_1 … w_N (the paper's
// w_n; nil is w_n = 1/N): BLEU = BP · exp(Σ w_n log p_n).
type BLEUOptions struct {
	MaxN      int       `json:"max_n"`
	Weights   string    `json:"weights"`
	Lowercase bool      `json:"lowercase"`
	Smoothing string    `json:"smoothing,omitempty"`
	W         []float64 `json:"w,omitempty"`
}

func (o BLEUOptions) validate() error {
	if o.MaxN < 1 || o.MaxN > MaxBLEUOrder {
		return fmt.Errorf("%w, got %d", ErrBLEUMaxN, o.MaxN)
	}
	if o.Weights != WeightsUniform && o.Weights != WeightsD2L {
		return fmt.Errorf("%w, got %q", ErrBLEUWeights, o.Weights)
	}
	switch o.Smoothing {
	case "", SmoothNone, SmoothEffectiveOrder, SmoothEpsilon, SmoothAddOne:
	default:
		return fmt.Errorf("%w, got %q", ErrBLEUSmoothing, o.Smoothing)
	}
	if o.W != nil {
		sum := 0.0
		for _, w := range o.W {
			if !(w >= 0 && w <= 1) {
				return fmt.Errorf("%w: got %g", ErrBLEUW, w)
			}
			sum += w
		}
		if len(o.W) != o.MaxN || o.Weights != WeightsUniform || math.Abs(sum-1) > WeightsTolerance {
			return fmt.Errorf("%w: got %d weights summing to %g for N = %d", ErrBLEUW, len(o.W), sum, o.MaxN)
		}
	}
	return nil
}

// Precision is the modified n-gram precision p_n = Matched/Total: Matched is the sum
// over distinct candidate n-grams of min(count in candidate, clip), Total = c − n + 1
// is the number of n-grams in a candidate of c words (0 when c < n).
type Precision struct {
	N       int `json:"n"`
	Matched int `json:"matched"`
	Total   int `json:"total"`
}

// Value is p_n = Matched/Total. A candidate shorter than n has no n-grams (Total 0)
// and so cannot show a single match: Value is then 0, which makes BLEU 0 under both
// weightings.
func (p Precision) Value() float64 {
	if p.Total == 0 {
		return 0
	}
	return float64(p.Matched) / float64(p.Total)
}

// RefSpan locates words of reference Ref (0-based index into the references) by
// their 0-based token positions.
type RefSpan struct {
	Ref       int   `json:"ref"`
	Positions []int `json:"positions"`
}

// NGram is one occurrence of an n-gram in the candidate, for highlighting.
//
// JSON fields: "n" the order; "words" the n words; "start" the 0-based position of
// the first word in the candidate; "count" how often these words occur in the
// candidate; "clip" the most times they occur in any single reference; "matched" =
// min(count, clip), the credit this n-gram type adds to Precision.Matched;
// "credited" whether this occurrence is one of the credited ones (the first
// "matched" occurrences, left to right); "refs" where a credited occurrence sits in
// the references: the k-th occurrence pairs with the k-th occurrence in every
// reference that has at least k+1, at most MaxNGramRefSpans of them in reference order
// (empty when not credited).
type NGram struct {
	N        int       `json:"n"`
	Words    []string  `json:"words"`
	Start    int       `json:"start"`
	Count    int       `json:"count"`
	Clip     int       `json:"clip"`
	Matched  int       `json:"matched"`
	Credited bool      `json:"credited"`
	Refs     []RefSpan `json:"refs"`
}

// BLEUResult is a BLEU score with its breakdown, under docs/api.md's JSON names.
// CandidateLength is c; RefLength is r (uniform: the reference length closest to c,
// a tie going to the shorter; d2l: len_label). NGrams lists every candidate n-gram
// occurrence, n ascending then start ascending. In the corpus form c, r and the
// precisions are corpus sums, NGrams is empty and Sentences holds each sentence's
// own result without its listing (NGrams empty there too: the listing is for
// highlighting one sentence, and for a corpus it would be the largest part of the
// answer by far; score a sentence alone to get it).
type BLEUResult struct {
	BLEU            float64      `json:"bleu"`
	BrevityPenalty  float64      `json:"brevity_penalty"`
	Precisions      []Precision  `json:"precisions"`
	CandidateLength int          `json:"candidate_length"`
	RefLength       int          `json:"ref_length"`
	NGrams          []NGram      `json:"ngrams"`
	Sentences       []BLEUResult `json:"sentences,omitempty"`
}

// BrevityPenalty is BP = exp(min(0, 1 − r/c)) for a candidate of c words and an
// effective reference length r — Papineni's "1 if c > r, else exp(1 − r/c)" and the
// lecture's exp(min(0, 1 − len_label/len_pred)) are the same function. An empty
// candidate (c = 0) gets 0, the limit for c → 0⁺.
func BrevityPenalty(c, r int) float64 {
	if c <= 0 {
		return 0
	}
	return math.Exp(math.Min(0, 1-float64(r)/float64(c)))
}

// ClosestRefLength is Papineni's best match length: the reference length closest
// to c, a tie going to the shorter. refLens must not be empty.
func ClosestRefLength(c int, refLens []int) int {
	best := refLens[0]
	for _, r := range refLens[1:] {
		d, bd := abs(r-c), abs(best-c)
		if d < bd || (d == bd && r < best) {
			best = r
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// SentenceBLEU scores one candidate against its references; the strings are split
// with Tokenize (after lowercasing when opts.Lowercase).
func SentenceBLEU(candidate string, references []string, opts BLEUOptions) (BLEUResult, error) {
	refs := make([][]string, len(references))
	for i, r := range references {
		refs[i] = Tokenize(r)
	}
	return SentenceBLEUTokens(Tokenize(candidate), refs, opts)
}

// SentenceBLEUTokens is SentenceBLEU on tokenised text. With clipped counts
// (each candidate n-gram counts at most as often as it occurs in any single
// reference) it computes p_1 … p_N and
//
//	uniform: BLEU = BP · exp(Σ_{n=1..N} (1/N) log p_n), BP = BrevityPenalty(c, r), r = ClosestRefLength
//	d2l:     BLEU = exp(min(0, 1 − len_label/len_pred)) · Π_{n=1..k} p_n^{1/2^n}, one reference only
//
// Any p_n = 0 (including Total = 0, a candidate shorter than n) gives BLEU 0, and an
// empty candidate gives BLEU 0 with BP 0; neither is an error.
func SentenceBLEUTokens(candidate []string, references [][]string, opts BLEUOptions) (BLEUResult, error) {
	if err := opts.validate(); err != nil {
		return BLEUResult{}, err
	}
	if err := checkReferences(len(references), opts); err != nil {
		return BLEUResult{}, err
	}
	res := sentenceCounts(lowerIf(candidate, opts.Lowercase), lowerAllIf(references, opts.Lowercase), opts, true)
	res.BLEU, res.BrevityPenalty = combineBLEU(res.Precisions, res.CandidateLength, res.RefLength, opts)
	return res, nil
}

// CorpusBLEU scores candidates[i] against references[i] as one corpus: matched and
// total n-gram counts are summed over the sentences, c and r are summed likewise,
// and the sentence formula is applied to the sums (for "d2l" too: len_label and
// len_pred become corpus sums — the lecture defines only the sentence form).
func CorpusBLEU(candidates []string, references [][]string, opts BLEUOptions) (BLEUResult, error) {
	cands := make([][]string, len(candidates))
	for i, c := range candidates {
		cands[i] = Tokenize(c)
	}
	refs := make([][][]string, len(references))
	for i, rs := range references {
		refs[i] = make([][]string, len(rs))
		for j, r := range rs {
			refs[i][j] = Tokenize(r)
		}
	}
	return CorpusBLEUTokens(cands, refs, opts)
}

// CorpusBLEUTokens is CorpusBLEU on tokenised text.
func CorpusBLEUTokens(candidates [][]string, references [][][]string, opts BLEUOptions) (BLEUResult, error) {
	if err := opts.validate(); err != nil {
		return BLEUResult{}, err
	}
	if len(candidates) == 0 {
		return BLEUResult{}, ErrBLEUEmptyCorpus
	}
	if len(candidates) != len(references) {
		return BLEUResult{}, fmt.Errorf("%w: %d candidates, %d reference lists", ErrBLEUCorpusShape, len(candidates), len(references))
	}
	total := BLEUResult{Precisions: make([]Precision, opts.MaxN), NGrams: []NGram{}}
	for n := range total.Precisions {
		total.Precisions[n].N = n + 1
	}
	for i := range candidates {
		if err := checkReferences(len(references[i]), opts); err != nil {
			return BLEUResult{}, fmt.Errorf("%w (candidate %d)", err, i+1)
		}
		s := sentenceCounts(lowerIf(candidates[i], opts.Lowercase), lowerAllIf(references[i], opts.Lowercase), opts, false)
		s.BLEU, s.BrevityPenalty = combineBLEU(s.Precisions, s.CandidateLength, s.RefLength, opts)
		for n, p := range s.Precisions {
			total.Precisions[n].Matched += p.Matched
			total.Precisions[n].Total += p.Total
		}
		total.CandidateLength += s.CandidateLength
		total.RefLength += s.RefLength
		total.Sentences = append(total.Sentences, s)
	}
	total.BLEU, total.BrevityPenalty = combineBLEU(total.Precisions, total.CandidateLength, total.RefLength, opts)
	return total, nil
}

func checkReferences(n int, opts BLEUOptions) error {
	if n == 0 {
		return ErrBLEUNoReferences
	}
	if opts.Weights == WeightsD2L && n != 1 {
		return fmt.Errorf("%w, got %d", ErrBLEUOneReference, n)
	}
	return nil
}

// combineBLEU turns the precisions and lengths into (BLEU, BP) for the options'
// weighting, weights and smoothing.
func combineBLEU(ps []Precision, c, r int, opts BLEUOptions) (bleu, bp float64) {
	bp = BrevityPenalty(c, r)
	if c == 0 {
		return 0, bp
	}
	// w_n: the uniform 1/N, the general W, or d2l's 1/2^n
	w := make([]float64, len(ps))
	for i, p := range ps {
		switch {
		case opts.Weights == WeightsD2L:
			w[i] = math.Ldexp(1, -p.N)
		case opts.W != nil:
			w[i] = opts.W[i]
		default:
			w[i] = 1 / float64(len(ps))
		}
	}
	if opts.Smoothing == SmoothEffectiveOrder {
		eff := 0
		for eff < len(ps) && ps[eff].Total > 0 {
			eff++
		}
		if eff == 0 {
			return 0, bp
		}
		ps, w = ps[:eff], w[:eff]
		if opts.Weights != WeightsD2L { // the weights of the orders kept, summing to 1 again
			sum := 0.0
			for _, x := range w {
				sum += x
			}
			for i := range w {
				w[i] /= sum
			}
		}
	}
	var sum float64
	for i, p := range ps {
		v := smoothed(p, opts.Smoothing)
		if w[i] == 0 {
			continue // 0 · log p_n: an order weighted 0 does not count, even unmatched
		}
		if v == 0 {
			return 0, bp // log 0 = −∞
		}
		sum += w[i] * math.Log(v)
	}
	return bp * math.Exp(sum), bp
}

// smoothed is p_n after the smoothing (Precision.Value unsmoothed).
func smoothed(p Precision, smoothing string) float64 {
	switch {
	case smoothing == SmoothEpsilon && p.Matched == 0:
		return SmoothingEpsilon / float64(max(1, p.Total))
	case smoothing == SmoothAddOne && p.N >= 2:
		return float64(p.Matched+1) / float64(max(1, p.Total)+1)
	}
	return p.Value()
}

// sentenceCounts fills everything of a sentence result except BLEU and BP; NGrams
// only when listing (it stays empty otherwise).
func sentenceCounts(cand []string, refs [][]string, opts BLEUOptions, listing bool) BLEUResult {
	res := BLEUResult{
		Precisions:      make([]Precision, opts.MaxN),
		CandidateLength: len(cand),
		NGrams:          []NGram{},
	}
	if opts.Weights == WeightsD2L {
		res.RefLength = len(refs[0])
	} else {
		lens := make([]int, len(refs))
		for i, r := range refs {
			lens[i] = len(r)
		}
		res.RefLength = ClosestRefLength(len(cand), lens)
	}
	for n := 1; n <= opts.MaxN; n++ {
		p := &res.Precisions[n-1]
		p.N = n
		p.Total = max(0, len(cand)-n+1)
		candStarts := ngramStarts(cand, n)
		refStarts := make([]map[string][]int, len(refs))
		for j, r := range refs {
			refStarts[j] = ngramStarts(r, n)
		}
		seen := map[string]int{} // occurrences of each n-gram so far, left to right
		for start := 0; start+n <= len(cand); start++ {
			key := ngramKey(cand[start : start+n])
			k := seen[key]
			seen[key]++
			clip := 0
			for _, rs := range refStarts {
				clip = max(clip, len(rs[key]))
			}
			count := len(candStarts[key])
			credited := k < min(count, clip)
			if credited {
				p.Matched++
			}
			if !listing {
				continue
			}
			g := NGram{
				N:        n,
				Words:    append([]string(nil), cand[start:start+n]...),
				Start:    start,
				Count:    count,
				Clip:     clip,
				Matched:  min(count, clip),
				Credited: credited,
				Refs:     []RefSpan{},
			}
			if credited {
				for j, rs := range refStarts {
					if k < len(rs[key]) && len(g.Refs) < MaxNGramRefSpans {
						g.Refs = append(g.Refs, RefSpan{Ref: j, Positions: span(rs[key][k], n)})
					}
				}
			}
			res.NGrams = append(res.NGrams, g)
		}
	}
	return res
}

// ngramStarts maps each n-gram of toks to its start positions, ascending.
func ngramStarts(toks []string, n int) map[string][]int {
	m := map[string][]int{}
	for s := 0; s+n <= len(toks); s++ {
		key := ngramKey(toks[s : s+n])
		m[key] = append(m[key], s)
	}
	return m
}

// ngramKey encodes words as "len:word" pieces, so distinct n-grams always get
// distinct keys whatever bytes the words hold.
func ngramKey(words []string) string {
	var b strings.Builder
	for _, w := range words {
		b.WriteString(strconv.Itoa(len(w)))
		b.WriteByte(':')
		b.WriteString(w)
	}
	return b.String()
}

func span(start, n int) []int {
	ps := make([]int, n)
	for i := range ps {
		ps[i] = start + i
	}
	return ps
}

func lowerIf(toks []string, lower bool) []string {
	if !lower {
		return toks
	}
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = strings.ToLower(t)
	}
	return out
}

func lowerAllIf(refs [][]string, lower bool) [][]string {
	if !lower {
		return refs
	}
	out := make([][]string, len(refs))
	for i, r := range refs {
		out[i] = lowerIf(r, true)
	}
	return out
}
