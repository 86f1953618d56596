package data

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"unroll/models"
)

// This file is the word corpus of the word-embeddings lesson: the English side of
// the shipped corpus's training split as sequences of word ids, its vocabulary and
// word classes, and the skip-gram examples drawn from it.

// Settings of the vocabulary and of the drawing of centre words.
const (
	WordMinCount  = 3    // words seen fewer times get no embedding: too few contexts to place them
	WordSubsample = 1e-3 // t of word2vec's subsampling: "the", "is", "a" are kept far less often as centres
	sampleTries   = 100  // bound on redrawing a subsampled-away centre word
)

// punct are the tokens left out of the word sequences: they follow every
// sentence and would be everybody's nearest context.
var punct = map[string]bool{".": true, "?": true, "!": true, ",": true}

// IsPunct reports whether w is a punctuation token, which the word sequences leave out.
func IsPunct(w string) bool { return punct[w] }

// WordCorpus is a set of English sentences as sequences of word ids, with its
// vocabulary, word counts and word classes.
type WordCorpus struct {
	Words     []string       // by id, most frequent first (ties alphabetically)
	Index     map[string]int // word → id
	Counts    []float64      // f(w): occurrences in the training split
	Sentences [][]int        // every sentence, punctuation and rare words left out
	Tokens    int            // Σ f(w)
	Class     []int          // word class of each word, an index into WordClasses
	positions [][2]int       // (sentence, position) of every token, to draw centres from
	keep      []float64      // P(keep w as a centre) under subsampling
	sampler   *models.NegativeSampler
}

// WordClasses name the colours of the embedding map; the class of a word comes from
// the corpus generator's lexicon (lexicon.go), so it is known, not learned.
var WordClasses = []string{"pronoun", "person", "animal", "food & drink", "thing or place", "verb", "adjective", "function word"}

// The word classes, indices into WordClasses. ClassFunction is also the class of a
// word the lexicon does not name.
const (
	classPronoun = iota
	classPerson
	classAnimal
	classFood
	classThing
	classVerb
	classAdjective
	ClassFunction
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
	set(ClassFunction, "all") // "you all"
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
	set(ClassFunction, enFunctionWords...)
	return out
})

// Words is the shipped corpus's English training side as a WordCorpus, built once.
// Callers must not modify it.
func Words() *WordCorpus { return words() }

var words = sync.OnceValue(func() *WordCorpus {
	train, _ := Corpus()
	var sentences [][]string
	for _, p := range train {
		src, _ := p.Tokens()
		sentences = append(sentences, src)
	}
	return newWordCorpus(sentences)
})

// newWordCorpus builds the vocabulary (words seen at least WordMinCount times,
// punctuation left out) and the id sequences of sentences.
func newWordCorpus(sentences [][]string) *WordCorpus {
	count := map[string]int{}
	for _, s := range sentences {
		for _, w := range s {
			if !punct[w] {
				count[w]++
			}
		}
	}
	c := &WordCorpus{Index: map[string]int{}}
	for w, n := range count {
		if n >= WordMinCount {
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
			class = ClassFunction
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
		c.keep = append(c.keep, min(1, math.Sqrt(WordSubsample/p)+WordSubsample/p))
	}
	s, err := models.NewNegativeSampler(c.Counts, models.UnigramPower)
	if err != nil {
		panic("data: " + err.Error()) // the shipped corpus is never empty
	}
	c.sampler = s
	return c
}

// Batch draws n training examples: a centre token drawn uniformly from the corpus
// (frequent words kept only with their subsampling probability), a context word
// drawn uniformly from the window of ±window words around it, and k negatives from
// P(w) ∝ f(w)^{3/4}.
func (c *WordCorpus) Batch(rng *rand.Rand, n, window, k int) []models.SkipGramExample {
	out := make([]models.SkipGramExample, n)
	for i := range out {
		var s []int
		var at int
		for try := 0; ; try++ {
			pos := c.positions[rng.IntN(len(c.positions))]
			s, at = c.Sentences[pos[0]], pos[1]
			if try == sampleTries || rng.Float64() < c.keep[s[at]] {
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

// Negatives draws k negative words for a positive pair with context word t, from
// P(w) ∝ f(w)^{3/4} (models.NegativeSampler.Negatives).
func (c *WordCorpus) Negatives(rng *rand.Rand, k, t int) []int {
	return c.sampler.Negatives(rng, k, t)
}

// SkipGramPairs lists the (centre, context) pairs of a sentence with a window of
// ±window words, in reading order: the positive examples of skip-gram.
func SkipGramPairs(ids []int, window int) [][2]int {
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
