package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randomPairs draws B sentence pairs of words (ids above <eos>), each side 1…maxLen
// tokens long, the target ending in <eos>.
func randomPairs(rng *rand.Rand, cfg Seq2SeqConfig, B, maxLen int) Batch {
	src, tgt := make([][]int, B), make([][]int, B)
	word := func(vocab int) int { return EosID + 1 + rng.IntN(vocab-EosID-1) }
	for i := range B {
		for range 1 + rng.IntN(maxLen) {
			src[i] = append(src[i], word(cfg.SrcVocab))
		}
		for range rng.IntN(maxLen) {
			tgt[i] = append(tgt[i], word(cfg.TgtVocab))
		}
		tgt[i] = append(tgt[i], EosID)
	}
	b, err := NewBatch(src, tgt)
	if err != nil {
		panic(err)
	}
	return b
}

// fusedConfigs are the sizes the fused pass is compared at: the bundled corpus
// translator's (seq2seq-corpus), an embedding wider than the hidden state, and a
// narrower one.
var fusedConfigs = []struct {
	name      string
	cfg       Seq2SeqConfig
	B, maxLen int
}{
	{"corpus", Seq2SeqConfig{SrcVocab: 292, TgtVocab: 508, Embed: 32, Hidden: 64, Seed: 46}, 32, 10},
	{"e>h", Seq2SeqConfig{SrcVocab: 9, TgtVocab: 11, Embed: 6, Hidden: 4, Seed: 2}, 7, 6},
	{"e<h", Seq2SeqConfig{SrcVocab: 12, TgtVocab: 10, Embed: 3, Hidden: 8, Seed: 3}, 5, 9},
}

func TestSeq2SeqFusedTrainingIsUsed(t *testing.T) {
	cfg := fusedConfigs[1].cfg
	if !NewSeq2Seq(cfg).fusedTraining() {
		t.Errorf("Seq2Seq: LossAndGrad does not run the fused pass")
	}
	if NewAttentionSeq2Seq(cfg).fusedTraining() {
		t.Errorf("AttentionSeq2Seq: LossAndGrad runs the fused pass, which has no attention")
	}
	m := NewSeq2Seq(cfg)
	m.Decoder = m.Decoder.(*GRU).WithClamp(GateClamp{Gate: "Z", Value: 0.5})
	if m.fusedTraining() {
		t.Errorf("a clamped decoder: LossAndGrad runs the fused pass, which has no clamp")
	}
}

// TestSeq2SeqFusedMatchesSteps trains two copies of each model for the same
// minibatches, one by TrainStep (the fused LossAndGrad), one with
// LossAndGradSteps (Cell.Step and StepBack at every step), and checks that the
// losses, gradient norms and, at the end, every weight agree to 1e-9; the
// gradients of the first step agree to 1e-12.
func TestSeq2SeqFusedMatchesSteps(t *testing.T) {
	const steps = 20
	for _, fc := range fusedConfigs {
		t.Run(fc.name, func(t *testing.T) {
			fused, stepwise := NewSeq2Seq(fc.cfg), NewSeq2Seq(fc.cfg)
			optF, optS := NewAdam(0.005), NewAdam(0.005)
			rng := rand.New(rand.NewPCG(7, 7))
			for k := range steps {
				b := randomPairs(rng, fc.cfg, fc.B, fc.maxLen)
				if k == 0 { // the raw gradients, before clipping and updates
					fused.Params().ZeroGrad()
					stepwise.Params().ZeroGrad()
					fused.LossAndGrad(b)
					stepwise.LossAndGradSteps(b)
					for i, p := range fused.Params() {
						if msg := gradMismatch(p.Name, p.Grad, stepwise.Params()[i].Grad, 1e-12, 1e-15); msg != "" {
							t.Errorf("step 1: %s", msg)
						}
					}
				}
				lossF, normF, _ := fused.TrainStep(b, optF, 1)
				lossS, normS, _ := stepwise.trainStep(b, optS, 1, true)
				if !near(lossF, lossS, 1e-9) || !near(normF, normS, 1e-9) {
					t.Fatalf("step %d: fused loss %.15g gradient norm %.15g, step by step %.15g %.15g", k+1, lossF, normF, lossS, normS)
				}
			}
			for i, p := range fused.Params() {
				if msg := gradMismatch(p.Name, p.Value, stepwise.Params()[i].Value, 1e-9, 1e-9); msg != "" {
					t.Errorf("after %d steps: %s", steps, msg)
				}
			}
		})
	}
}

// near reports |a − b| ≤ tol · max(1, |a|, |b|).
func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b))
}

// TestSeq2SeqFusedGradients checks the fused pass's gradients by finite
// differences of Loss (the step-by-step forward pass) on batches with equal
// lengths, one-token sentences and rows out of length order.
func TestSeq2SeqFusedGradients(t *testing.T) {
	for i, fc := range fusedConfigs[1:] {
		for _, B := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/B=%d", fc.name, B), func(t *testing.T) {
				m := NewSeq2Seq(fc.cfg)
				b := randomPairs(rand.New(rand.NewPCG(uint64(i), uint64(B))), fc.cfg, B, 4)
				m.Params().ZeroGrad()
				m.LossAndGrad(b)
				for _, p := range m.Params() {
					numeric := numericGrad(p.Value, func() float64 { return m.Loss(b) }, attentionFDStep)
					if msg := gradMismatch(p.Name, p.Grad, numeric, 1e-6, 1e-9); msg != "" {
						t.Error(msg)
					}
				}
			})
		}
	}
}

// TestSeq2SeqFusedAllocatesNothing: once its buffers have grown, a fused pass
// allocates nothing.
func TestSeq2SeqFusedAllocatesNothing(t *testing.T) {
	fc := fusedConfigs[0]
	m := NewSeq2Seq(fc.cfg)
	b := randomPairs(rand.New(rand.NewPCG(1, 1)), fc.cfg, fc.B, fc.maxLen)
	p := new(seq2seqPass)
	p.lossAndGrad(&m.EncoderDecoder, b)
	if n := testing.AllocsPerRun(5, func() { p.lossAndGrad(&m.EncoderDecoder, b) }); n != 0 {
		t.Errorf("a fused pass allocates %v times, want 0", n)
	}
}

// BenchmarkSeq2SeqLossAndGrad is one loss-and-gradient pass at the corpus
// translator's sizes, fused and step by step.
func BenchmarkSeq2SeqLossAndGrad(b *testing.B) {
	fc := fusedConfigs[0]
	m := NewSeq2Seq(fc.cfg)
	batch := randomPairs(rand.New(rand.NewPCG(1, 1)), fc.cfg, fc.B, fc.maxLen)
	b.Run("fused", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.LossAndGrad(batch)
		}
	})
	b.Run("steps", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.LossAndGradSteps(batch)
		}
	})
}
