package lessons

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
	"unroll/zoo"
)

// huffmanInfo is the depth of the corpus's words in the Huffman tree that
// hierarchical softmax would use: the mean weighted by the words' counts, and the deepest.
type huffmanInfo struct {
	mean float64
	max  int
}

// huffmanDepths builds the corpus's Huffman tree once.
var huffmanDepths = sync.OnceValue(func() huffmanInfo {
	counts := data.Words().Counts
	d := models.HuffmanCodeLengths(counts)
	return huffmanInfo{mean: models.MeanCodeLength(counts, d), max: slices.Max(d)}
})

// cooccurrenceGrid is log X_ij of the embedCoocWords most frequent words (X of the
// default window), 1 in seen where X_ij > 0 and 0 where it is 0 (f = 0: no term of J;
// log X is then written as 0 and the panel hatches the cell), and the words.
func cooccurrenceGrid() (logX, seen []float64, words []string) {
	g := coocGrid()
	return g.logX, g.seen, g.words
}

var coocGrid = sync.OnceValue(func() (g struct {
	logX, seen []float64
	words      []string
}) {
	c := data.Words()
	order := make([]int, len(c.Words))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(c.Counts[b], c.Counts[a]) })
	order = order[:embedCoocWords]
	X := zoo.GloVeCooccurrence(zoo.EmbedWindow)
	n := len(order)
	logX, seen, words := make([]float64, n*n), make([]float64, n*n), make([]string, n)
	for a, i := range order {
		words[a] = c.Words[i]
		for b, j := range order {
			if x := X.At(i, j); x > 0 {
				logX[a*n+b], seen[a*n+b] = math.Log(x), 1
			}
		}
	}
	g.logX, g.seen, g.words = logX, seen, words
	return g
})

// sharedGloVeFinal is (e_w + θ_w)/2 of the shared GloVe model, computed once and
// shared read-only by every page (nothing writes it: the page trains skip-gram only).
var sharedGloVeFinal = sync.OnceValue(func() *mat.Dense {
	m, _ := zoo.SharedGloVe()
	return m.Final()
})

// gloveQuality measures the shared GloVe embeddings once.
var gloveQuality = sync.OnceValue(func() zoo.EmbedQuality { return zoo.EmbeddingQuality(sharedGloVeFinal()) })

// ceilLog2 is ⌈log₂ n⌉ for n ≥ 1: the depth of a balanced binary tree with n leaves.
func ceilLog2(n int) int {
	d := 0
	for 1<<d < n {
		d++
	}
	return d
}
