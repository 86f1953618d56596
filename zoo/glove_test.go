package zoo

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
)

// TestGloVeCooccurrence (seed 003: X_ij counts i in the context of j): X of the
// corpus is symmetric and holds one count per (position, neighbour within the window).
func TestGloVeCooccurrence(t *testing.T) {
	X := GloVeCooccurrence(EmbedWindow)
	if !mat.Equal(X, X.T()) {
		t.Fatal("X is not symmetric")
	}
	pairs := 0
	for _, s := range data.Words().Sentences {
		for i := range s {
			pairs += min(len(s)-1, i+EmbedWindow) - max(0, i-EmbedWindow)
		}
	}
	if got := mat.Sum(X); got != float64(pairs) {
		t.Errorf("ΣX: got %v want %d (position, neighbour) pairs", got, pairs)
	}
}

// TestSharedGloVeTrains: J falls over the shared model's training, to below 1% of
// its start, and its vectors group words by class well above chance.
func TestSharedGloVeTrains(t *testing.T) {
	m, curve := SharedGloVe()
	if len(curve) != GloVeSteps || !(curve[len(curve)-1] < 0.01*curve[0]) {
		t.Errorf("J: %d steps, from %v to %v; want %d steps and a fall below 1%%", len(curve), curve[0], curve[len(curve)-1], GloVeSteps)
	}
	if q := EmbeddingQuality(m.Final()); q.SameClass < q.Chance+0.2 {
		t.Errorf("same-class neighbours of GloVe: got %.2f want ≥ chance %.2f + 0.2", q.SameClass, q.Chance)
	}
}
