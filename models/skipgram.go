package models

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// UnigramPower is the exponent word2vec raises word counts to before it samples
// negatives, P(w) ∝ f(w)^{3/4}: it flattens the unigram distribution so that rare
// words are drawn more often than their share and "the" a little less.
const UnigramPower = 0.75

// negativeRedraws bounds how often a negative that equals the true context word is
// drawn again (a vocabulary where one word has nearly all the mass would loop forever).
const negativeRedraws = 10

// SkipGram is word2vec's skip-gram model trained with negative sampling (lecture 003).
// Word w has an embedding e_w, row w of E, and an output vector θ_w, row w of Theta.
// The model says how likely it is that t appears near the centre word c,
//
//	P(y = 1 | c, t) = σ(θ_tᵀ e_c),
//
// a binary classifier per pair instead of a softmax over the whole vocabulary.
// E holds the word embeddings the lessons show; Theta is used only in training.
type SkipGram struct {
	E     *Param // V×d, row w is e_w
	Theta *Param // V×d, row w is θ_w
}

// NewSkipGram returns a skip-gram model of vocab words in dim dimensions, started as
// word2vec starts it: every entry of E drawn from U(−0.5/d, 0.5/d), Theta zero.
func NewSkipGram(vocab, dim int, rng *rand.Rand) *SkipGram {
	if vocab <= 0 || dim <= 0 {
		panic(fmt.Sprintf("models: skip-gram needs vocab > 0 and dim > 0, got %d and %d", vocab, dim))
	}
	m := &SkipGram{E: NewParam("E", vocab, dim), Theta: NewParam("Theta", vocab, dim)}
	m.E.Uniform(0.5/float64(dim), rng)
	return m
}

// Params lists E then Theta.
func (m *SkipGram) Params() Params { return Params{m.E, m.Theta} }

// Vocab is V, the number of words.
func (m *SkipGram) Vocab() int { r, _ := m.E.Value.Dims(); return r }

// Dim is d, the size of an embedding.
func (m *SkipGram) Dim() int { _, c := m.E.Value.Dims(); return c }

// Embedding returns e_w, row w of E (a view: do not modify).
func (m *SkipGram) Embedding(w int) []float64 { m.mustWord(w); return m.E.Value.RawRowView(w) }

// Score is P(y = 1 | c, t) = σ(θ_tᵀ e_c): how sure the model is that t appears in the
// context of c.
func (m *SkipGram) Score(c, t int) float64 {
	m.mustWord(c)
	m.mustWord(t)
	return sigmoid(floats.Dot(m.Theta.Value.RawRowView(t), m.E.Value.RawRowView(c)))
}

func (m *SkipGram) mustWord(w int) {
	if w < 0 || w >= m.Vocab() {
		panic(fmt.Sprintf("models: word id %d outside vocabulary [0, %d)", w, m.Vocab()))
	}
}

// SkipGramExample is one training example of negative sampling: the centre word c,
// a word t that really appeared in its context window (the positive pair, y = 1), and
// k words n_1 … n_k drawn from the noise distribution (negative pairs, y = 0).
type SkipGramExample struct {
	Centre, Context int
	Negatives       []int
}

// Loss is the mean over the batch of the negative-sampling loss of each example,
//
//	L = −log σ(θ_tᵀ e_c) − Σ_{i=1}^{k} log σ(−θ_{n_i}ᵀ e_c),
//
// the cross-entropy of k + 1 binary classifiers: the true pair labelled 1, the
// sampled pairs labelled 0. An empty batch is an error; a word id outside the
// vocabulary panics.
func (m *SkipGram) Loss(batch []SkipGramExample) (float64, error) {
	return m.pass(batch, false)
}

// Backward returns Loss(batch) and adds its gradients to E.Grad and Theta.Grad. For
// one example, with s_t = σ(θ_tᵀ e_c) and s_i = σ(θ_{n_i}ᵀ e_c),
//
//	∂L/∂θ_t = (s_t − 1) e_c        ∂L/∂θ_{n_i} = s_i e_c
//	∂L/∂e_c = (s_t − 1) θ_t + Σ_i s_i θ_{n_i}
//
// each divided by the batch size (L is the batch mean). A word drawn twice collects
// both gradients. Only the rows of the batch's words change.
func (m *SkipGram) Backward(batch []SkipGramExample) (float64, error) {
	return m.pass(batch, true)
}

func (m *SkipGram) pass(batch []SkipGramExample, grad bool) (float64, error) {
	if len(batch) == 0 {
		return 0, errors.New("models: skip-gram loss of an empty batch")
	}
	d := m.Dim()
	scale := 1 / float64(len(batch))
	dE := make([]float64, d)
	loss := 0.0
	for _, ex := range batch {
		m.mustWord(ex.Centre)
		m.mustWord(ex.Context)
		e := m.E.Value.RawRowView(ex.Centre)
		clear(dE)
		// term adds one binary classifier: label y for the pair (c, w).
		term := func(w int, y float64) {
			theta := m.Theta.Value.RawRowView(w)
			a := floats.Dot(theta, e)
			if y == 1 {
				loss -= logSigmoid(a)
			} else {
				loss -= logSigmoid(-a)
			}
			if !grad {
				return
			}
			g := (sigmoid(a) - y) * scale // ∂L/∂a
			floats.AddScaled(m.Theta.Grad.RawRowView(w), g, e)
			floats.AddScaled(dE, g, theta)
		}
		term(ex.Context, 1)
		for _, n := range ex.Negatives {
			m.mustWord(n)
			term(n, 0)
		}
		if grad {
			floats.Add(m.E.Grad.RawRowView(ex.Centre), dE)
		}
	}
	loss *= scale
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, fmt.Errorf("models: skip-gram loss is %v", loss)
	}
	return loss, nil
}

// logSigmoid is log σ(a), computed without overflow for large |a|.
func logSigmoid(a float64) float64 {
	if a >= 0 {
		return -math.Log1p(math.Exp(-a))
	}
	return a - math.Log1p(math.Exp(a))
}

// NegativeSampler draws the negative words of skip-gram training from the noise
// distribution P(w) = f(w)^α / Σ_j f(w_j)^α, f(w) being the count of word w
// (α = UnigramPower in word2vec).
type NegativeSampler struct {
	cum []float64 // cum[w] = P(0) + … + P(w); cum[V−1] = 1
}

// NewNegativeSampler returns the sampler for the given word counts and exponent α.
// Counts must be finite and ≥ 0 with at least one positive.
func NewNegativeSampler(counts []float64, alpha float64) (*NegativeSampler, error) {
	if len(counts) == 0 {
		return nil, errors.New("models: negative sampler of an empty vocabulary")
	}
	cum := make([]float64, len(counts))
	total := 0.0
	for w, f := range counts {
		if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("models: count of word %d is %v", w, f)
		}
		if f > 0 {
			total += math.Pow(f, alpha)
		}
		cum[w] = total
	}
	if total == 0 {
		return nil, errors.New("models: negative sampler: every count is 0")
	}
	floats.Scale(1/total, cum)
	cum[len(cum)-1] = 1
	return &NegativeSampler{cum: cum}, nil
}

// Prob is P(w), the probability that Draw returns w.
func (s *NegativeSampler) Prob(w int) float64 {
	if w == 0 {
		return s.cum[0]
	}
	return s.cum[w] - s.cum[w-1]
}

// Draw returns one word drawn from P.
func (s *NegativeSampler) Draw(rng *rand.Rand) int {
	u := rng.Float64()
	return sort.Search(len(s.cum), func(w int) bool { return s.cum[w] > u })
}

// Negatives draws k words from P for the positive pair (c, t), drawing again (a
// bounded number of times) any word equal to t, which would be a positive pair.
func (s *NegativeSampler) Negatives(rng *rand.Rand, k, t int) []int {
	out := make([]int, k)
	for i := range out {
		w := s.Draw(rng)
		for try := 0; w == t && try < negativeRedraws; try++ {
			w = s.Draw(rng)
		}
		out[i] = w
	}
	return out
}

// Cosine is the cosine similarity the lecture compares embeddings with,
//
//	sim(u, v) = cos φ = uᵀv / (‖u‖₂ ‖v‖₂),
//
// 1 for vectors pointing the same way, 0 for orthogonal ones (any two distinct one-hot
// vectors), −1 for opposite ones; 0 when either vector is zero. It panics if the
// lengths differ.
func Cosine(u, v []float64) float64 {
	if len(u) != len(v) {
		panic(fmt.Sprintf("models: cosine of vectors of lengths %d and %d", len(u), len(v)))
	}
	nu, nv := floats.Norm(u, 2), floats.Norm(v, 2)
	if nu == 0 || nv == 0 {
		return 0
	}
	return floats.Dot(u, v) / (nu * nv)
}

// Neighbour is a word and its cosine similarity to a query vector.
type Neighbour struct {
	Word   int
	Cosine float64
}

// Nearest returns the k rows w of E (V×d) most similar to q by Cosine, best first
// (ties by lower w), leaving out the words in exclude: argmax_w sim(e_w, q).
func Nearest(E *mat.Dense, q []float64, k int, exclude ...int) []Neighbour {
	vocab, dim := E.Dims()
	if len(q) != dim {
		panic(fmt.Sprintf("models: nearest neighbours of a %d-vector among %d-vectors", len(q), dim))
	}
	all := make([]Neighbour, 0, vocab)
	for w := range vocab {
		if !slices.Contains(exclude, w) {
			all = append(all, Neighbour{Word: w, Cosine: Cosine(E.RawRowView(w), q)})
		}
	}
	slices.SortStableFunc(all, func(x, y Neighbour) int { return cmp.Compare(y.Cosine, x.Cosine) })
	return all[:min(k, len(all))]
}

// AnalogyVector is the lecture's query vector for "a → b as c → ?":
// e_c − e_a + e_b (king − man + woman for man → woman as king → ?).
func AnalogyVector(E *mat.Dense, a, b, c int) []float64 {
	v := slices.Clone(E.RawRowView(c))
	floats.Sub(v, E.RawRowView(a))
	floats.Add(v, E.RawRowView(b))
	return v
}

// Analogy answers "a is to b as c is to ?" the way the lecture does: the k words w
// with the largest sim(e_w, e_c − e_a + e_b), leaving out a, b and c themselves (the
// query vector is usually closest to e_c).
func Analogy(E *mat.Dense, a, b, c, k int) []Neighbour {
	return Nearest(E, AnalogyVector(E, a, b, c), k, a, b, c)
}

// SoftmaxNormaliser is Z(c) = Σ_w exp(θ_wᵀ e_c), the denominator of word2vec's
// softmax objective (lecture 003)
//
//	P(t | c) = exp(θ_tᵀ e_c) / Σ_{w=1}^{V} exp(θ_wᵀ e_c),
//
// a sum over the whole vocabulary: V dot products for one prediction, and the
// softmax's gradient touches all V output vectors θ_w. Negative sampling avoids it.
func (m *SkipGram) SoftmaxNormaliser(c int) float64 {
	m.mustWord(c)
	z := 0.0
	for w := range m.Vocab() {
		z += math.Exp(floats.Dot(m.Theta.Value.RawRowView(w), m.E.Value.RawRowView(c)))
	}
	return z
}

// SoftmaxProb is P(t | c) = exp(θ_tᵀ e_c) / SoftmaxNormaliser(c): the probability the
// softmax objective gives t as a context word of c, with this model's vectors.
func (m *SkipGram) SoftmaxProb(c, t int) float64 {
	m.mustWord(t)
	return math.Exp(floats.Dot(m.Theta.Value.RawRowView(t), m.E.Value.RawRowView(c))) / m.SoftmaxNormaliser(c)
}

// HuffmanCodeLengths returns, for each word, the depth of its leaf in the Huffman
// tree built from counts: the number of binary decisions σ(θ_nᵀ e_c), one per inner
// node n on the path from the root, that hierarchical softmax multiplies to get
// P(t | c). Frequent words sit near the root. A vocabulary of one word has depth 0.
// Counts must be positive.
func HuffmanCodeLengths(counts []float64) []int {
	type node struct {
		weight float64
		leaves []int
	}
	if len(counts) == 0 {
		panic("models: Huffman code of an empty vocabulary")
	}
	nodes := make([]node, len(counts))
	for w, f := range counts {
		if !(f > 0) {
			panic(fmt.Sprintf("models: Huffman code needs positive counts, word %d has %v", w, f))
		}
		nodes[w] = node{weight: f, leaves: []int{w}}
	}
	depth := make([]int, len(counts))
	for len(nodes) > 1 {
		// merge the two lightest (ties by their first leaf, so the tree is deterministic)
		slices.SortStableFunc(nodes, func(a, b node) int {
			return cmp.Or(cmp.Compare(a.weight, b.weight), cmp.Compare(a.leaves[0], b.leaves[0]))
		})
		a, b := nodes[0], nodes[1]
		for _, w := range append(slices.Clone(a.leaves), b.leaves...) {
			depth[w]++
		}
		merged := node{weight: a.weight + b.weight, leaves: append(slices.Clone(a.leaves), b.leaves...)}
		slices.Sort(merged.leaves)
		nodes = append(nodes[2:], merged)
	}
	return depth
}

// MeanCodeLength is Σ_w f(w) depth(w) / Σ_w f(w): the average number of binary
// decisions hierarchical softmax takes per prediction when target words come with
// frequencies counts.
func MeanCodeLength(counts []float64, depth []int) float64 {
	sum, n := 0.0, 0.0
	for w, f := range counts {
		sum += f * float64(depth[w])
		n += f
	}
	return sum / n
}
