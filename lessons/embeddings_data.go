package lessons

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
)

// This file is the data and training of the word-embeddings lesson: the English
// side of the corpus as word sequences, its vocabulary and word classes, the
// skip-gram examples drawn from it, and the bundled checkpoint.

// Sizes and training settings of the skip-gram model.
const (
	EmbedDim         = 32   // d: room for a few hundred words, small enough for the page to train live
	EmbedWindow      = 2    // default context window: up to 2 words each side (the corpus's sentences are short)
	EmbedNegatives   = 5    // default k: word2vec suggests 5–20 for small data
	embedBatch       = 128  // (centre, context) pairs per training step
	embedLR          = 0.01 // Adam's η: learns a visible map within a few hundred steps and stays stable
	embedMinCount    = 3    // words seen fewer times get no embedding: too few contexts to place them
	embedSubsample   = 1e-3 // t of word2vec's subsampling: "the", "is", "a" are kept far less often as centres
	EmbedTrainSteps  = 4000 // steps cmd/train runs for the bundled checkpoint (about ten passes over the pairs)
	EmbedSeed        = 3    // the bundled checkpoint's seed
	embedCurveEvery  = 50   // the recorded loss curve keeps the mean loss of every 50 steps
	EmbedFile        = "embeddings-en.safetensors"
	embedSampleTries = 100 // bound on redrawing a subsampled-away centre word
)

// embedPunct are the tokens left out of the word sequences: they follow every
// sentence and would be everybody's nearest context.
var embedPunct = map[string]bool{".": true, "?": true, "!": true, ",": true}

// wordCorpus is the English side of the training split as sequences of word ids.
type wordCorpus struct {
	Words     []string       // by id, most frequent first (ties alphabetically)
	Index     map[string]int // word → id
	Counts    []float64      // f(w): occurrences in the training split
	Sentences [][]int        // every sentence, punctuation and rare words left out
	Tokens    int            // Σ f(w)
	Class     []int          // word class of each word, an index into wordClasses
	positions [][2]int       // (sentence, position) of every token, to draw centres from
	keep      []float64      // P(keep w as a centre) under subsampling
	sampler   *models.NegativeSampler
}

// wordClasses name the colours of the embedding map; the class of a word comes from
// the corpus generator's lexicon (lexicon.go), so it is known, not learned.
var wordClasses = []string{"pronoun", "person", "animal", "food & drink", "thing or place", "verb", "adjective", "function word"}

const (
	classPronoun = iota
	classPerson
	classAnimal
	classFood
	classThing
	classVerb
	classAdjective
	classFunction
)

// wordClassOf assigns each English word of the lexicon its class.
var wordClassOf = sync.OnceValue(func() map[string]int {
	out := map[string]int{}
	set := func(class int, words ...string) {
		for _, p := range words {
			for _, w := range strings.Fields(p) {
				if _, ok := out[w]; !ok {
					out[w] = class
				}
			}
		}
	}
	for _, s := range mtPronouns {
		set(classPronoun, s.en)
	}
	set(classPerson, "man men woman women boy boys girl girls child children teacher teachers father mother parents")
	set(classAnimal, "cat cats dog dogs bird birds")
	set(classFood, "apple apples orange oranges cake cakes water milk tea coffee wine beer bread soup")
	set(classFunction, "all") // "you all"
	for _, n := range mtNouns {
		set(classThing, n.en, n.enPl)
	}
	for _, p := range mtPlaces {
		set(classThing, strings.TrimPrefix(p.en, "the "))
	}
	for _, a := range mtAdjectives {
		set(classAdjective, a.en)
	}
	for _, n := range mtAvoirNouns {
		set(classAdjective, n[0])
	}
	for _, v := range append([]mtVerb{frAller, frVouloir}, mtVerbs...) {
		set(classVerb, v.en[:]...)
	}
	set(classVerb, "have has had")
	set(classFunction, enFunctionWords...)
	return out
})

// embedCorpus is the shipped corpus's English training side as a wordCorpus.
var embedCorpus = sync.OnceValue(func() *wordCorpus {
	train, _ := Corpus()
	var sentences [][]string
	for _, p := range train {
		src, _ := p.Tokens()
		sentences = append(sentences, src)
	}
	return newWordCorpus(sentences)
})

// newWordCorpus builds the vocabulary (words seen at least embedMinCount times,
// punctuation left out) and the id sequences of sentences.
func newWordCorpus(sentences [][]string) *wordCorpus {
	count := map[string]int{}
	for _, s := range sentences {
		for _, w := range s {
			if !embedPunct[w] {
				count[w]++
			}
		}
	}
	c := &wordCorpus{Index: map[string]int{}}
	for w, n := range count {
		if n >= embedMinCount {
			c.Words = append(c.Words, w)
		}
	}
	slices.SortFunc(c.Words, func(a, b string) int {
		return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b))
	})
	classes := wordClassOf()
	for i, w := range c.Words {
		c.Index[w] = i
		c.Counts = append(c.Counts, float64(count[w]))
		class, ok := classes[w]
		if !ok {
			class = classFunction
		}
		c.Class = append(c.Class, class)
		c.Tokens += count[w]
	}
	for _, s := range sentences {
		var ids []int
		for _, w := range s {
			if id, ok := c.Index[w]; ok {
				ids = append(ids, id)
			}
		}
		if len(ids) < 2 {
			continue
		}
		for i := range ids {
			c.positions = append(c.positions, [2]int{len(c.Sentences), i})
		}
		c.Sentences = append(c.Sentences, ids)
	}
	for _, f := range c.Counts {
		// word2vec's subsampling: keep a word with probability √(t/p) + t/p, p = f/N
		p := f / float64(c.Tokens)
		c.keep = append(c.keep, min(1, math.Sqrt(embedSubsample/p)+embedSubsample/p))
	}
	s, err := models.NewNegativeSampler(c.Counts, models.UnigramPower)
	if err != nil {
		panic("lessons: " + err.Error()) // the shipped corpus is never empty
	}
	c.sampler = s
	return c
}

// Batch draws n training examples: a centre token drawn uniformly from the corpus
// (frequent words kept only with their subsampling probability), a context word
// drawn uniformly from the window of ±window words around it, and k negatives from
// P(w) ∝ f(w)^{3/4}.
func (c *wordCorpus) Batch(rng *rand.Rand, n, window, k int) []models.SkipGramExample {
	out := make([]models.SkipGramExample, n)
	for i := range out {
		var s []int
		var at int
		for try := 0; ; try++ {
			pos := c.positions[rng.IntN(len(c.positions))]
			s, at = c.Sentences[pos[0]], pos[1]
			if try == embedSampleTries || rng.Float64() < c.keep[s[at]] {
				break
			}
		}
		lo, hi := max(0, at-window), min(len(s)-1, at+window)
		j := lo + rng.IntN(hi-lo) // one of the hi − lo positions other than at
		if j >= at {
			j++
		}
		out[i] = models.SkipGramExample{Centre: s[at], Context: s[j], Negatives: c.sampler.Negatives(rng, k, s[j])}
	}
	return out
}

// Pairs lists the (centre, context) pairs of a sentence with a window of ±window
// words, in reading order: the positive examples of skip-gram.
func Pairs(ids []int, window int) [][2]int {
	var out [][2]int
	for i := range ids {
		for j := max(0, i-window); j <= min(len(ids)-1, i+window); j++ {
			if j != i {
				out = append(out, [2]int{ids[i], ids[j]})
			}
		}
	}
	return out
}

// EmbedModel is the lesson's skip-gram model with its optimiser.
type EmbedModel struct {
	*models.SkipGram
	opt *models.Adam
}

// NewEmbedModel returns an untrained model over the shipped corpus's vocabulary.
func NewEmbedModel(seed uint64) *EmbedModel {
	rng := rand.New(rand.NewPCG(seed, 0x5e6))
	return &EmbedModel{SkipGram: models.NewSkipGram(len(embedCorpus().Words), EmbedDim, rng), opt: models.NewAdam(embedLR)}
}

// TrainStep runs one step of Adam on a batch drawn from rng and returns its loss.
func (m *EmbedModel) TrainStep(rng *rand.Rand, window, k int) (float64, error) {
	batch := embedCorpus().Batch(rng, embedBatch, window, k)
	m.Params().ZeroGrad()
	loss, err := m.Backward(batch)
	if err != nil {
		return loss, err
	}
	m.opt.Step(m.Params())
	return loss, nil
}

// embedTrainRNG is the stream training examples are drawn from for a seed.
func embedTrainRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x7a1)) }

// TrainEmbeddings trains a model from seed for steps steps with the default window
// and k, and returns it with its loss curve (the mean of every embedCurveEvery steps).
func TrainEmbeddings(seed uint64, steps int) (*EmbedModel, []float64, error) {
	m := NewEmbedModel(seed)
	rng := embedTrainRNG(seed)
	var curve []float64
	sum := 0.0
	for s := 1; s <= steps; s++ {
		loss, err := m.TrainStep(rng, EmbedWindow, EmbedNegatives)
		if err != nil {
			return nil, nil, err
		}
		sum += loss
		if s%embedCurveEvery == 0 {
			curve = append(curve, sum/embedCurveEvery)
			sum = 0
		}
	}
	return m, curve, nil
}

// EmbedQuality is what cmd/train measures of trained embeddings and records with them.
type EmbedQuality struct {
	// SameClass is the share of content words (not function words) whose nearest
	// neighbour by cosine is of the same word class; Chance is that share for a
	// random neighbour (Σ over classes of share², the content words' mix).
	SameClass, Chance float64
	// Analogies is how many of EmbedAnalogies the top answer gets right.
	Analogies, AnalogyCount int
}

// EmbedAnalogies are the corpus's own analogy questions a → b as c → d.
var EmbedAnalogies = [][4]string{
	{"man", "woman", "boy", "girl"},
	{"boy", "girl", "man", "woman"},
	{"boy", "boys", "girl", "girls"},
	{"man", "men", "woman", "women"},
	{"cat", "cats", "dog", "dogs"},
	{"eat", "eats", "drink", "drinks"},
	{"eat", "eating", "drink", "drinking"},
	{"he", "she", "boy", "girl"},
	{"father", "mother", "man", "woman"},
}

// Quality measures m on the shipped corpus.
func (m *EmbedModel) Quality() EmbedQuality {
	c := embedCorpus()
	E := m.E.Value
	var q EmbedQuality
	share := make([]float64, len(wordClasses))
	content := 0
	for w, class := range c.Class {
		if class == classFunction {
			continue
		}
		content++
		share[class]++
		nn := models.Nearest(E, E.RawRowView(w), 1, w)
		if c.Class[nn[0].Word] == class {
			q.SameClass++
		}
	}
	q.SameClass /= float64(content)
	for _, n := range share {
		q.Chance += (n / float64(content)) * (n / float64(content))
	}
	for _, a := range EmbedAnalogies {
		ids := make([]int, 4)
		ok := true
		for i, w := range a {
			id, found := c.Index[w]
			ids[i], ok = id, ok && found
		}
		if !ok {
			continue
		}
		q.AnalogyCount++
		if models.Analogy(E, ids[0], ids[1], ids[2], 1)[0].Word == ids[3] {
			q.Analogies++
		}
	}
	return q
}

// EmbedCheckpointMeta is the metadata cmd/train records with the bundled model.
func EmbedCheckpointMeta(m *EmbedModel, seed uint64, steps int, curve []float64) map[string]string {
	q := m.Quality()
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	points := make([]string, len(curve))
	for i, l := range curve {
		points[i] = f(l)
	}
	return map[string]string{
		"model": "skip-gram negative sampling", "words": strings.Join(embedCorpus().Words, " "),
		"dim": strconv.Itoa(EmbedDim), "window": strconv.Itoa(EmbedWindow), "negatives": strconv.Itoa(EmbedNegatives),
		"batch": strconv.Itoa(embedBatch), "lr": f(embedLR), "subsample": f(embedSubsample), "min_count": strconv.Itoa(embedMinCount),
		"seed": strconv.FormatUint(seed, 10), "steps": strconv.Itoa(steps),
		"loss_curve": strings.Join(points, ","), "loss_curve_every": strconv.Itoa(embedCurveEvery),
		"same_class_nn": f(q.SameClass), "same_class_chance": f(q.Chance),
		"analogies": fmt.Sprintf("%d/%d", q.Analogies, q.AnalogyCount),
	}
}

// SaveEmbeddings writes m's E and Theta and meta to path (atomically).
func SaveEmbeddings(path string, m *EmbedModel, meta map[string]string) error {
	return models.SaveCheckpoint(path, m.Params(), meta)
}

// embedCheckpoint loads the bundled embeddings once, the shared read-only model (see
// bundled), and checks that they were trained on today's vocabulary.
var embedCheckpoint = sync.OnceValues(func() (bundled[*EmbedModel], error) {
	b, err := loadBundled(EmbedFile, NewEmbedModel(0))
	if err != nil {
		return b, err
	}
	if got, want := b.meta["words"], strings.Join(embedCorpus().Words, " "); got != want {
		return b, fmt.Errorf("lessons: checkpoint %s was trained on another vocabulary (run go run ./cmd/train)", EmbedFile)
	}
	return b, nil
})

// LoadEmbedModel returns a fresh copy of the bundled trained model and its metadata.
func LoadEmbedModel() (*EmbedModel, map[string]string, error) {
	b, err := embedCheckpoint()
	if err != nil {
		return nil, nil, err
	}
	return b.copyOf(NewEmbedModel(0)), b.meta, nil
}

// sharedEmbedModel is LoadEmbedModel without the copy: the one loaded model, shared
// by every page that only reads it (Score, Loss, Embedding and E never write).
func sharedEmbedModel() (*EmbedModel, map[string]string, error) {
	b, err := embedCheckpoint()
	return b.model, b.meta, err
}

// featureWords and featureNames are the lecture's featurised representation: each
// word scored by hand on a few features. man, woman, king and queen carry the
// lecture's numbers; boy, girl, apple and orange are added in the same spirit.
var (
	featureNames = []string{"gender", "royal", "age", "food"}
	featureWords = []string{"man", "woman", "king", "queen", "boy", "girl", "apple", "orange"}
	featureTable = mat.NewDense(8, 4, []float64{
		// gender royal age food
		-1, 0.01, 0.01, 0.03, // man
		1, 0.02, 0.01, 0.04, // woman
		-0.99, 0.97, 0.78, 0.04, // king
		0.99, 0.96, 0.77, 0.02, // queen
		-0.98, 0.00, -0.75, 0.02, // boy
		0.99, 0.01, -0.76, 0.01, // girl
		0.00, -0.01, 0.03, 0.95, // apple
		0.01, 0.00, -0.02, 0.97, // orange
	})
)
