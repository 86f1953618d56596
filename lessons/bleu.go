package lessons

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// The page's limits: enough for the lectures' sentences and a student's own, few
// enough that every word and every n-gram fits the panel.
const (
	bleuMaxWords = 30 // words per sentence
	bleuMaxRefs  = 4  // references
)

// bleuExample is one of the lectures' worked examples, preloaded as a choice.
type bleuExample struct {
	candidate  string
	references []string
}

// The choices besides the lecture's examples: "typed" scores the text fields, "model"
// a bundled translator's output on a held-out pair.
const (
	bleuTyped = "typed"
	bleuModel = "model"
)

// bleuExamples are the lectures' examples: 003's cat sentences (p_1 = 5/7, p_2 = 2/3),
// its "the the the…" candidate (p_1 = 2/7), 4.6's label A B C D E F with the
// prediction A B B C D (p_1 = 4/5, p_2 = 3/4, p_3 = 1/3, p_4 = 0) and 4.6's brevity
// case A B, whose penalty is exp(1 − 6/2) (the lecture takes k = 2).
var bleuExamples = map[string]bleuExample{
	"cat":     {"the cat the cat on the mat", []string{"the cat is on the mat", "there is a cat on the mat"}},
	"the-the": {"the the the the the the the", []string{"the cat is on the mat", "there is a cat on the mat"}},
	"ABCDEF":  {"A B B C D", []string{"A B C D E F"}},
	"brevity": {"A B", []string{"A B C D E F"}},
}

// splitReferences splits the references field at "|" and at line breaks.
func splitReferences(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("there is no reference: type at least one correct translation to compare with (separate several by |)")
	}
	var refs []string
	for _, p := range strings.Split(strings.ReplaceAll(strings.TrimSpace(s), "\n", "|"), "|") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("reference %d is empty: write a sentence between the | signs or remove the extra |", len(refs)+1)
		}
		refs = append(refs, p)
	}
	if len(refs) > bleuMaxRefs {
		return nil, fmt.Errorf("there are %d references; this page compares with at most %d", len(refs), bleuMaxRefs)
	}
	for i, r := range refs {
		if n := len(models.Tokenize(r)); n > bleuMaxWords {
			return nil, fmt.Errorf("reference %d has %d words; this page scores sentences of at most %d words", i+1, n, bleuMaxWords)
		}
	}
	return refs, nil
}

// bleuSentence is the bleu lesson's sim.Model: one candidate scored against its
// references. Step n = 1..N shows the n-grams of order n; step N + 1 the brevity
// penalty, both scores, the word error rate and the translation edit rate.
type bleuSentence struct {
	example     string
	source      string // the English sentence of the "model" example
	candidate   string
	refs        []string
	maxN        int
	lower       bool
	smoothing   string            // models.Smooth…: how the zero precisions count
	w           []float64         // the standard form's weights w_n; nil = 1/N
	uniform, d2 models.BLEUResult // Papineni's weights against all references; eq. (7) against the first
	wer         models.WERResult
	ter         models.TERResult // against every reference: the closest counts
	ter1        models.TERResult // against the first reference, the pair WER aligns
	corpus      table            // corpus BLEU of the bundled translators
}

// terView is the ngrams panel's view of TER on the pair WER aligns (the candidate and
// the first reference): the shifts made, in order, and the shifted candidate's word
// alignment. Shift positions count in the candidate as it stood before that shift;
// block holds the moved words' positions in the original candidate, and origin[k] the
// original position of shifted[k].
type terView struct {
	Shifts    []terShiftView `json:"shifts"`
	Shifted   []string       `json:"shifted"`
	Origin    []int          `json:"origin"`
	Alignment []models.Edit  `json:"alignment"`
	Edits     int            `json:"edits"`
	N         int            `json:"n"` // the first reference's words
}

type terShiftView struct {
	Words []string `json:"words"`
	From  int      `json:"from"`
	To    int      `json:"to"`
	Block []int    `json:"block"`
}

// view is r (TER against one reference of n words) as the panel reads it.
func terViewOf(r models.TERResult, n int) terView {
	v := terView{Shifted: r.Shifted, Origin: r.Origin, Alignment: r.Alignment, Edits: r.Edits, N: n, Shifts: []terShiftView{}}
	for _, op := range r.Operations[:r.Shifts] {
		v.Shifts = append(v.Shifts, terShiftView{Words: op.Words, From: op.From, To: op.To, Block: op.Block})
	}
	return v
}

func buildBleu(v sim.Values) (sim.Model, error) {
	ex := v.String("example")
	cand, refText := v.String("candidate"), v.String("references")
	var refs []string
	source := ""
	if e, ok := bleuExamples[ex]; ok {
		cand, refs = e.candidate, e.references
	} else if ex == bleuModel {
		var ref string
		var err error
		if cand, ref, source, err = bleuModelPair(v.Int("test_pair")); err != nil {
			return nil, err
		}
		refs = []string{ref}
	} else {
		var err error
		if refs, err = splitReferences(refText); err != nil {
			return nil, err
		}
	}
	words := len(models.Tokenize(cand))
	if words == 0 {
		return nil, fmt.Errorf("the candidate is empty: type the translation to score")
	}
	if words > bleuMaxWords {
		return nil, fmt.Errorf("the candidate has %d words; this page scores sentences of at most %d words", words, bleuMaxWords)
	}
	lower := v.Bool("lowercase")
	var err error
	m := &bleuSentence{example: ex, source: source, candidate: cand, refs: refs, maxN: v.Int("max_n"), lower: lower, smoothing: v.String("smoothing")}
	if m.w, err = parseWeights(v.String("w"), m.maxN); err != nil {
		return nil, err
	}
	if m.corpus, err = bleuCorpusTable(); err != nil {
		return nil, err
	}
	if m.uniform, err = models.SentenceBLEU(cand, refs, models.BLEUOptions{MaxN: m.maxN, Weights: models.WeightsUniform, Lowercase: lower, Smoothing: m.smoothing, W: m.w}); err != nil {
		return nil, err
	}
	if m.d2, err = models.SentenceBLEU(cand, refs[:1], models.BLEUOptions{MaxN: m.maxN, Weights: models.WeightsD2L, Lowercase: lower, Smoothing: m.smoothing}); err != nil {
		return nil, err
	}
	ref0, hyp := refs[0], cand
	if lower {
		ref0, hyp = strings.ToLower(ref0), strings.ToLower(hyp)
	}
	m.wer = models.WER(ref0, hyp)
	toks := make([][]string, len(refs))
	for i, r := range refs {
		toks[i] = m.tokens(r)
	}
	if m.ter, err = models.SentenceTERTokens(m.tokens(cand), toks); err != nil {
		return nil, err
	}
	if m.ter1, err = models.SentenceTERTokens(m.tokens(cand), toks[:1]); err != nil {
		return nil, err
	}
	return m, nil
}

// parseWeights reads the typed weights w_1 … w_N ("" is 1/N each): N numbers from 0
// to 1, separated by spaces or commas, that sum to 1.
func parseWeights(text string, n int) ([]float64, error) {
	fields := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' })
	if len(fields) == 0 {
		return nil, nil
	}
	if len(fields) != n {
		return nil, fmt.Errorf("the weights wₙ need one number per order n = 1 … %d, got %d", n, len(fields))
	}
	w := make([]float64, n)
	sum := 0.0
	for i, f := range fields {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || !(x >= 0 && x <= 1) {
			return nil, fmt.Errorf("the weight w%s must be a number from 0 to 1, got %.12q", subscript(i+1), f)
		}
		w[i], sum = x, sum+x
	}
	if math.Abs(sum-1) > models.WeightsTolerance {
		return nil, fmt.Errorf("the weights wₙ must sum to 1, these sum to %.4g", sum)
	}
	return w, nil
}

// emptyOrders says why BLEU is 0 when the candidate is too short to have n-grams of
// the higher orders ("" when it has every order).
func (m *bleuSentence) emptyOrders() string {
	c := m.uniform.CandidateLength
	if c >= m.maxN || m.smoothing == models.SmoothEffectiveOrder {
		return ""
	}
	return fmt.Sprintf("the candidate has %d words, so it has no n-grams of order %d to %d: those pₙ are 0/0, which the paper counts as 0, and a single pₙ = 0 makes BLEU 0 however right the words are. Lower N to %d, or choose effective order (a perfect match then scores 1) or a smoothing", c, c+1, m.maxN, max(1, c))
}

func (m *bleuSentence) Steps() int { return m.maxN + 1 }

// Passes: one step per n-gram order n = 1..N, then the word error rates.
func (m *bleuSentence) Passes() []sim.Pass {
	return []sim.Pass{
		{Name: "modified precision", Steps: m.maxN, Index: "n"},
		{Steps: 1, Stages: []string{"word error rate"}},
	}
}

// tokens splits s into words as the scores saw them.
func (m *bleuSentence) tokens(s string) []string {
	if m.lower {
		s = strings.ToLower(s)
	}
	return models.Tokenize(s)
}

func (m *bleuSentence) Static() sim.Frame {
	refs := make([][]string, len(m.refs))
	for i, r := range m.refs {
		refs[i] = m.tokens(r)
	}
	meta := map[string]any{
		"candidate": m.tokens(m.candidate), "references": refs,
		"ngrams": m.uniform.NGrams, "edits": m.wer.Edits, "ter": terViewOf(m.ter1, len(refs[0])),
		"max_n": m.maxN, "candidate_length_c": m.uniform.CandidateLength,
		"closest_reference_length_r":       m.uniform.RefLength,
		"first_reference_length_len_label": m.d2.RefLength,
	}
	meta["corpus"] = m.corpus
	meta["axes"] = map[string]any{"p": map[string]any{"col_title": "n"}} // the bars are p_1 … p_N
	switch m.example {
	case bleuTyped:
	case bleuModel:
		meta["example"] = fmt.Sprintf("the seq2seq model's greedy translation of held-out pair %q (the text fields are not used)", m.source)
	default:
		meta["example"] = fmt.Sprintf("lecture example %q (the text fields are not used)", m.example)
	}
	if len(m.refs) > 1 {
		meta["d2l_form"] = "eq. (7) compares with the first reference only"
	}
	return sim.Frame{Meta: meta}
}

// precisions is p_n for n = 1..N, with the orders after upTo left at 0 (not shown yet).
func (m *bleuSentence) precisions(upTo int) []float64 {
	p := make([]float64, m.maxN)
	for i := 0; i < min(upTo, m.maxN); i++ {
		p[i] = m.uniform.Precisions[i].Value()
	}
	return p
}

func (m *bleuSentence) At(t int) sim.Frame {
	arrays := []sim.Array{sim.Vector("p", m.precisions(t))}
	meta := map[string]any{}
	if t <= m.maxN {
		pr := m.uniform.Precisions[t-1]
		meta["n"] = t
		meta["p_n"] = fmt.Sprintf("%d/%d = %.4f", pr.Matched, pr.Total, pr.Value())
		if pr.Total == 0 {
			meta["p_n"] = fmt.Sprintf("0/0: the candidate has fewer than %d words, so p%s counts as 0", t, subscript(t))
		}
		if len(m.refs) > 1 {
			d := m.d2.Precisions[t-1]
			meta["p_n_first_reference"] = fmt.Sprintf("%d/%d = %.4f", d.Matched, d.Total, d.Value())
		}
		return sim.Frame{Arrays: arrays, Meta: meta}
	}
	arrays = append(arrays,
		sim.Vector("BP", []float64{m.uniform.BrevityPenalty}),
		sim.Vector("BP_d2l", []float64{m.d2.BrevityPenalty}),
		sim.Vector("BLEU", []float64{m.uniform.BLEU}),
		sim.Vector("BLEU_d2l", []float64{m.d2.BLEU}))
	meta["BP"] = fmt.Sprintf("%.4f (c = %d, r = %d)", m.uniform.BrevityPenalty, m.uniform.CandidateLength, m.uniform.RefLength)
	meta["BP_d2l"] = fmt.Sprintf("%.4f (len_pred = %d, len_label = %d)", m.d2.BrevityPenalty, m.d2.CandidateLength, m.d2.RefLength)
	meta["BLEU_uniform"] = round4(m.uniform.BLEU)
	if why := m.emptyOrders(); why != "" {
		meta["why_zero"] = why
	}
	meta["BLEU_d2l"] = round4(m.d2.BLEU)
	w := m.wer
	meta["WER"] = fmt.Sprintf("(S + D + I)/N = (%d + %d + %d)/%d = %.4f", w.Substitutions, w.Deletions, w.Insertions, w.N, w.Rate)
	meta["TER"] = m.terFact()
	return sim.Frame{Arrays: arrays, Meta: meta}
}

// terFact writes TER with its count of each kind of edit: to the closest reference,
// over the average reference length.
func (m *bleuSentence) terFact() string {
	t := m.ter
	kinds := map[string]int{}
	for _, op := range t.Operations {
		kinds[op.Op]++
	}
	s := fmt.Sprintf("(shifts + S + D + I)/N̄ = (%d + %d + %d + %d)/%g = %.4f", kinds[models.TERShift], kinds[models.TERSubstitute], kinds[models.TERDelete], kinds[models.TERInsert], t.RefLength, t.TER)
	if len(m.refs) > 1 {
		s += fmt.Sprintf(", reference %d closest, N̄ the average of %d references", t.Reference+1, len(m.refs))
	}
	return s
}

// precisionSeries is p_n against n, the two weightings' scores in the label.
func precisionSeries(sm sim.Model) []Series {
	m := sm.(*bleuSentence)
	s := Series{Label: fmt.Sprintf(`\(p_n\) (BLEU \(1/N\) = %.4f, BLEU \(1/2^n\) = %.4f)`, m.uniform.BLEU, m.d2.BLEU)}
	for n, p := range m.precisions(m.maxN) {
		s.X = append(s.X, float64(n+1))
		s.Y = append(s.Y, p)
	}
	return []Series{s}
}

var bleuLesson = &Lesson{
	Slug:    "bleu",
	Short:   "BLEU",
	Section: "4.6",
	Title:   "BLEU and word error rate",
	Summary: `Score a translation against references: clipped n-gram matches, \(p_n\), the brevity penalty, BLEU under two weightings, the word error rate's alignment and the translation edit rate's shifts.`,
	Prose: []string{
		`A translation has no single right answer, so a machine translation is scored by how much it overlaps with one or more human <b>references</b>. BLEU counts the candidate's n-grams (runs of \(n\) words) that also occur in a reference. Counting plainly would reward “the the the the the the the”: every word is in the reference. So each n-gram's count is <b>clipped</b> to the most times it occurs in any single reference, and the <b>modified precision</b> \(p_n\) is the clipped matches over the candidate's n-grams. On that candidate “the” occurs 7 times but at most twice in a reference: \(p_1 = 2/7\).`,
		`Step through: step \(n\) shows the candidate's n-grams of order \(n\). Green ones are credited (their words in the references are marked), orange ones occur in a reference but were clipped away, grey ones occur in no reference. The table beside them lists each distinct n-gram's count, clip and credited matches. After the last order come the brevity penalty, both scores, the word error rate and the translation edit rate.`,
		`Precision alone rewards short candidates (“A B” has \(p_1 = p_2 = 1\) against A B C D E F), so BLEU multiplies by a <b>brevity penalty</b> below 1 when the candidate is shorter than the reference. The two forms shown differ in two ways. Papineni et al.'s standard BLEU weights the orders equally, \(\exp\sum_n \tfrac1N \log p_n\), the geometric mean, and takes \(r\) as the reference length closest to the candidate's. The lecture's eq. (7) (from d2l) raises \(p_n\) to \(1/2^n\): the exponents \(1/2, 1/4, 1/8, 1/16\) shrink with \(n\), so the same shortfall costs much less at \(n = 4\) than at \(n = 1\) (the lecture puts it as rewarding longer matches: for a fixed \(p_n < 1\) the factor \(p_n^{1/2^n}\) grows with \(n\)); the standard form charges every order alike. And eq. (7) compares with one reference, \(\mathrm{len}_{\text{label}}\) its length; with several references typed here it uses the first, so its \(p_n\) can be lower (the facts show both). Both are 0 as soon as one \(p_n\) is 0.`,
		`That last rule is harsh on one sentence. “the cat” scored against “the cat” with \(N = 4\) gets 0: two words have no 3-grams or 4-grams, so \(p_3\) and \(p_4\) are 0/0 and count as 0. The paper defines BLEU for a whole test corpus, where every order has n-grams; for single sentences practice changes how zero precisions count. <b>Effective order</b> (sacreBLEU) averages only over the orders the candidate has, so a perfect match scores 1 again; NLTK's <b>epsilon</b> (Chen and Cherry's method 1) replaces a zero count by 0.1, and <b>add-one</b> (Lin and Och) adds 1 above and below for \(n \ge 2\). The unsmoothed score stays the default, as the paper defines it. The standard form also allows any weights \(w_n \ge 0\) that sum to 1 in place of \(1/N\): type them to weigh short matches more.`,
		`The <b>word error rate</b> (lecture 002) comes from speech recognition: align the candidate to the (first) reference with the fewest edits and count substitutions \(S\), deletions \(D\) and insertions \(I\); WER \(= (S + D + I)/N\) over the reference's \(N\) words. Unlike BLEU it is an error (0 is perfect) and can exceed 1.`,
		`The <b>translation edit rate</b> TER (Snover et al. 2006; the lecture calls it the translation error rate) counts the edits a person would make to turn the candidate into a reference: substitutions, deletions and insertions as in WER, plus <b>shifts</b>, each moving a run of words to another place at the cost of one edit. A translation that says the right things in the wrong order gets a few shifts instead of a deletion and an insertion for every misplaced word. TER divides the edits to the closest reference by the average length \(\bar N\) of the references, so like WER it is an error and can exceed 1. Finding the fewest edits with shifts is too hard to do exactly, so the page searches the way tercom, the authors' program, does: it tries every shift of up to 10 words to a place where the reference has the same words and both sides are wrong, keeps the one that lowers the other edits most, and repeats until no shift helps. The last step draws both alignments of the candidate with the first reference: WER's above, TER's shifts and then its alignment below. Type “sat on the mat the cat” against “the cat sat on the mat” to see one shift replace four edits.`,
		`Pick a lecture example, or “typed” and type your own candidate and references (several references separated by |, at most 4, each at most 30 words). The 4.6 brevity example is worked with \(k = 2\): set max n to 2 to get \(\exp(1 - 6/2) = e^{-2}\).`,
	},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-p}{p_n} = \frac{\sum_{g \in \text{n-grams}(\hat y)} \min\big(\mathrm{count}_{\hat y}(g),\ \max_{y^*} \mathrm{count}_{y^*}(g)\big)}{\sum_{g \in \text{n-grams}(\hat y)} \mathrm{count}_{\hat y}(g)}`,
			Symbols: []Symbol{{ID: "p", Array: "p"}}},
		{TeX: `\text{standard: } \mathrm{BLEU} = \htmlClass{sym-BP}{\mathrm{BP}} \cdot \exp\Big(\sum_{n=1}^{N} w_n \log p_n\Big)`,
			Symbols: []Symbol{{ID: "BP", Array: "BP"}}},
		{TeX: `\mathrm{BP} = \min\big(1,\ e^{1 - r/c}\big), \qquad w_n = \tfrac{1}{N} \text{ unless typed}`},
		{TeX: `\text{eq. (7): } \mathrm{BLEU} = \htmlClass{sym-BP_d2l}{\exp\Big(\min\Big(0,\ 1 - \frac{\mathrm{len}_{\text{label}}}{\mathrm{len}_{\text{pred}}}\Big)\Big)} \prod_{n=1}^{k} p_n^{1/2^n}`,
			Symbols: []Symbol{{ID: "BP_d2l", Array: "BP_d2l"}}},
		{TeX: `\mathrm{WER} = \frac{S + D + I}{N}`},
		{TeX: `\mathrm{TER} = \frac{\text{shifts} + S + D + I}{\bar N}`},
		{TeX: `\bar N = \text{the references' average length}`},
	},
	Arrays: []Array{
		{Name: "p", Label: `\(p_n\)`, Axes: []Axis{Ranks}, PerStep: true},
		{Name: "BP", Label: `\(\mathrm{BP}\)`, Axes: []Axis{Scalar}, PerStep: true},
		{Name: "BP_d2l", Label: `\(\mathrm{BP}\) (d2l)`, Axes: []Axis{Scalar}, PerStep: true},
		{Name: "BLEU", Label: `\(\mathrm{BLEU}\)`, Axes: []Axis{Scalar}, PerStep: true},
		{Name: "BLEU_d2l", Label: `\(\mathrm{BLEU}\) (d2l)`, Axes: []Axis{Scalar}, PerStep: true},
	},
	Stage: []string{"ngrams", "p"},
	Panels: []Panel{
		{ID: "p", Static: []string{"axes"}, Kind: Bars, Title: `modified precisions \(p_n\), n = 1 … N`, Arrays: []string{"p"}, Scale: []float64{0, 1}, Symbol: "p",
			Note: "Each step adds one order; orders not reached yet show 0."},
		{ID: "ngrams", Static: []string{"candidate", "references", "max_n", "ngrams", "edits", "ter"}, Meta: []string{"WER", "TER"}, Kind: NGrams, Title: "n-gram matches, then the word alignments of WER and TER",
			Note: "Green: credited; orange: in a reference but clipped; grey: in no reference. The last step aligns the candidate with the first reference twice: WER's edits, then TER's shifts (arrows) and edits."},
		{ID: "corpus", Static: []string{"corpus"}, Kind: Table, Title: "corpus BLEU of the bundled translators on the held-out split",
			Note: "Corpus BLEU adds up the clipped matches and lengths of all sentences before dividing, so it is not the mean of sentence scores."},
		{ID: "scores", Static: []string{"axes"}, Kind: Bars, Title: `brevity penalties and scores`, Arrays: []string{"BP", "BP_d2l", "BLEU", "BLEU_d2l"}, Legend: []string{"BP (standard)", "BP in eq. (7)", "BLEU (standard)", "BLEU by eq. (7)"}, Scale: []float64{0, 1}, Symbol: "BP", Also: []string{"BP_d2l"},
			Note: "Shown at the last step: standard (1/N, closest reference) beside eq. (7) (1/2ⁿ, first reference)."},
	},
	Params: sim.Specs{
		{Name: "example", Label: "example", Kind: sim.Choice, Default: "cat", Choices: []string{"cat", "the-the", "ABCDEF", "brevity", bleuModel, bleuTyped},
			Help: "The lectures' examples: cat (p₁ = 5/7, p₂ = 2/3), the-the (p₁ = 2/7), ABCDEF (A B B C D: 4/5, 3/4, 1/3, 0), brevity (A B, use max n = 2); “model” scores the seq2seq model's translation of a held-out pair; “typed” scores the fields below."},
		{Name: "test_pair", Label: "held-out pair (model)", Kind: sim.Int, Default: "1", Min: 1, Max: float64(corpusTestSize()), Step: 1,
			Help: "Which held-out pair the “model” example translates and scores."},
		{Name: "candidate", Label: "candidate (the translation to score)", Kind: sim.Text, MaxLen: 200, MaxLenWhy: "this page scores sentences of at most 30 words, and the n-gram panel draws every word", Default: "the cat the cat on the mat",
			Help: "Words separated by spaces, at most 30."},
		{Name: "references", Label: "references", Kind: sim.Text, MaxLen: 600, MaxLenWhy: "this page scores at most 4 references of at most 30 words each", Default: "the cat is on the mat | there is a cat on the mat",
			Help: "One or more correct translations separated by | (at most 4, 30 words each); eq. (7) and the WER use the first."},
		{Name: "max_n", Label: "max n", Symbol: `N`, Kind: sim.Int, Default: "4", Min: 1, Max: 4, Step: 1,
			Help: "The longest n-grams counted (N in the paper, k in the lecture)."},
		{Name: "lowercase", Label: "lowercase", Kind: sim.Bool, Default: "true",
			Help: "Lower-case all words before matching."},
		{Name: "smoothing", Label: "zero precisions", Kind: sim.Choice, Default: models.SmoothNone, Choices: []string{models.SmoothNone, models.SmoothEffectiveOrder, models.SmoothEpsilon, models.SmoothAddOne},
			Help: "none: the paper's BLEU, 0 as soon as one \\(p_n\\) is 0. effective-order (sacreBLEU): only the orders the candidate has n-grams of count. epsilon (Chen & Cherry's method 1, NLTK method1): a zero count becomes 0.1. add-one (Lin & Och, NLTK method2): \\(p_n\\) = (matches + 1)/(n-grams + 1) for \\(n \\ge 2\\)."},
		{Name: "w", Label: "weights", Symbol: `w_n`, Kind: sim.Text, MaxLen: 80, Default: "",
			Help: "The standard form's weights \\(w_1 \\dots w_N\\), \\(N\\) numbers that sum to 1 (e.g. 0.4 0.3 0.2 0.1); empty means 1/N each."},
	},
	Plots: []Plot{
		{Name: "precisions", Title: `modified precisions \(p_n\)`, XLabel: `\(n\)`, YLabel: `\(p_n\)`, Series: precisionSeries},
	},
	Build:   buildBleu,
	Facts:   bleuFacts,
	Largest: sim.Values{"example": bleuTyped, "candidate": strings.Repeat("the cat sat ", 10), "references": strings.Repeat("the cat is on the mat ", 5) + "| " + strings.Repeat("a cat sat on the mat ", 5) + "| " + strings.Repeat("the mat sat on a cat ", 5)},
	// 97 KB measured on a 30-word candidate and three 30-word references (with TER's alignment), 33 KB at the defaults stepped to the end.
	SessionBytes: 128 << 10,
}

// bleuFacts labels the page's facts in the lecture's words.
var bleuFacts = factTable{
	static: []fact{
		{key: "example", label: "example"},
		{key: "candidate_length_c", label: "candidate length c"},
		{key: "closest_reference_length_r", label: "closest reference length r"},
		{key: "first_reference_length_len_label", label: "length of the first reference"},
		{key: "max_n", label: "largest n", keep: true},
		{key: "d2l_form", label: "d2l form"},
	},
	step: []fact{
		{key: "n", label: "n"},
		{key: "p_n", label: `modified precision \(p_n\)`},
		{key: "p_n_first_reference", label: `\(p_n\) against the first reference`},
		{key: "BP", label: "BP"},
		{key: "BP_d2l", label: "BP (d2l)"},
		{key: "BLEU_uniform", label: "BLEU, standard form", measured: true},
		{key: "why_zero", label: "why BLEU is 0"},
		{key: "BLEU_d2l", label: "BLEU (d2l)", measured: true},
		{key: "WER", label: "word error rate", keep: true},
		{key: "TER", label: "translation edit rate TER", keep: true},
	},
}

// bleuCorpusTable is the corpus-BLEU table of the bleu page: one row per model and
// decoding with p_1 … p_4, the brevity penalty and BLEU.
func bleuCorpusTable() (table, error) {
	runs, err := zoo.CorpusBLEU()
	if err != nil {
		return table{}, err
	}
	_, test := data.Corpus()
	tab := table{
		Title: fmt.Sprintf("corpus BLEU over the %d held-out pairs (one reference each, N = 4, uniform weights)", len(test)),
		Head:  []string{"p₁", "p₂", "p₃", "p₄", "c", "r", "BP", "BLEU"},
	}
	for _, r := range runs {
		var cells []tableCell
		for _, p := range r.Score.Precisions {
			cells = append(cells, tableCell{Text: fmt.Sprintf("%.3f", p.Value()), Sub: fmt.Sprintf("%d/%d", p.Matched, p.Total)})
		}
		cells = append(cells,
			tableCell{Text: fmt.Sprint(r.Score.CandidateLength)},
			tableCell{Text: fmt.Sprint(r.Score.RefLength)},
			tableCell{Text: fmt.Sprintf("%.3f", r.Score.BrevityPenalty)},
			tableCell{Text: fmt.Sprintf("%.3f", r.Score.BLEU), Mark: "on"})
		tab.Rows = append(tab.Rows, tableRow{Label: r.Model + ", " + r.Decoding, Cells: cells})
	}
	return tab, nil
}

// corpusTestSize is the number of held-out corpus pairs.
func corpusTestSize() int {
	_, test := data.Corpus()
	return len(test)
}

// bleuModelPair is the bleu page's "model" example: test pair i (1-based) of the
// corpus, the greedy translation of zoo.CorpusBLEUModels[0] as the candidate and the
// pair's French side as the reference.
func bleuModelPair(i int) (candidate, reference, source string, err error) {
	runs, err := zoo.CorpusBLEU()
	if err != nil {
		return "", "", "", err
	}
	_, test := data.Corpus()
	if i < 1 || i > len(test) {
		return "", "", "", fmt.Errorf("test pair %d does not exist: choose 1 to %d", i, len(test))
	}
	return runs[0].Outputs[i-1], test[i-1].Fr, test[i-1].En, nil
}
