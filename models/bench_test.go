package models

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The sizes of the speed comparison with PyTorch (bench/pytorch/gru_sequence.py).
const benchT, benchD, benchH = 32, 32, 64

// benchSequence times one forward pass and full BPTT of c over a batch of B
// sequences with loss Σ_t Σ H_t (every dH_t all ones); weights and inputs are
// drawn once, outside the timed loop.
func benchSequence(b *testing.B, c Cell, B int, rng *rand.Rand) {
	xs := cellSequence(benchT, B, c.InputSize(), rng)
	dH := make([]*mat.Dense, benchT)
	for t := range dH {
		dH[t] = mat.NewDense(B, c.HiddenSize(), nil)
		for i := range B {
			for j := range c.HiddenSize() {
				dH[t].Set(i, j, 1)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Params().ZeroGrad()
		tr, err := Forward(c, xs, State{})
		if err != nil {
			b.Fatal(err)
		}
		Backward(c, tr, dH, BPTTOptions{})
	}
}

// BenchmarkGRUSequence is the lecture-4.3 GRU, T=32, d=32, h=64, float64, at
// batch sizes 1 and 32, through the public Forward and Backward.
func BenchmarkGRUSequence(b *testing.B) {
	for _, B := range []int{1, 32} {
		b.Run(fmt.Sprintf("B=%d", B), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			benchSequence(b, NewGRU(benchD, benchH, rng), B, rng)
		})
	}
}

// BenchmarkLSTMSequence is the lecture-4.4 LSTM at the GRU benchmark's sizes, B=1
// (the generic step-by-step path).
func BenchmarkLSTMSequence(b *testing.B) {
	b.Run("B=1", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(1, 1))
		benchSequence(b, NewLSTM(benchD, benchH, rng), 1, rng)
	})
}

// BenchmarkRNNSequence is the tanh RNN at the GRU benchmark's sizes, B=1.
func BenchmarkRNNSequence(b *testing.B) {
	b.Run("B=1", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(1, 1))
		benchSequence(b, NewRNN(benchD, benchH, ActTanh, rng), 1, rng)
	})
}
