package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMeanEmbedding: the averaging model's input (seed 003) is the mean of the
// word vectors, and MeanBackward is its gradient, checked by central differences
// with repeated words and sequences of different lengths.
func TestMeanEmbedding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	emb := NewEmbedding("E", 6, 4, rng)
	seqs := [][]int{{1, 2, 2}, {5}, {0, 3, 1, 1, 4}}
	m := emb.Mean(seqs)
	for b, ids := range seqs {
		for j := 0; j < 4; j++ {
			want := 0.0
			for _, id := range ids {
				want += emb.E.Value.At(id, j)
			}
			want /= float64(len(ids))
			if got := m.At(b, j); math.Abs(got-want) > 1e-12 {
				t.Errorf("mean[%d][%d]: got %v want %v", b, j, got, want)
			}
		}
	}
	g := layersRandom(3, 4, rng)
	emb.E.Grad.Zero()
	emb.MeanBackward(seqs, g)
	layersGradCheck(t, "∂L/∂E", emb.E.Value, func() float64 { return layersDot(emb.Mean(seqs), g) }, emb.E.Grad, 1e-9)
}

func TestMeanEmbeddingEmpty(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("Mean of an empty sequence did not panic")
		}
	}()
	NewEmbedding("E", 2, 2, rand.New(rand.NewPCG(1, 1))).Mean([][]int{{}})
}
