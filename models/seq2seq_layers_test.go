package models

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

var stackedCfg = Seq2SeqConfig{SrcVocab: 11, TgtVocab: 9, Embed: 4, Hidden: 5, Seed: 3}

// TestStackedSeq2SeqOneLayerIsSeq2Seq: with L = 1 and Seq2Seq's weights the stacked
// model computes exactly what Seq2Seq computes.
func TestStackedSeq2SeqOneLayerIsSeq2Seq(t *testing.T) {
	ref := NewSeq2Seq(stackedCfg)
	m := NewStackedSeq2Seq(stackedCfg, 1)
	m.SrcEmbed, m.TgtEmbed, m.Out = ref.SrcEmbed, ref.TgtEmbed, ref.Out
	m.Encoder, m.Decoder = []Cell{ref.Encoder}, []Cell{ref.Decoder}
	src := []int{4, 7, 5, 10, 3}
	want, err := ref.FreeRun(src, 8)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.FreeRun(src, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Steps) != len(want.Steps) || !slices.Equal(got.Outputs(), want.Outputs()) {
		t.Fatalf("outputs: got %v want %v", got.Outputs(), want.Outputs())
	}
	for i := range want.Steps {
		if !slices.Equal(got.Steps[i].Probs, want.Steps[i].Probs) || !mat.Equal(got.Steps[i].Decoder.Next.H, want.Steps[i].Decoder.Next.H) {
			t.Errorf("step %d: probabilities or s_t' differ", i+1)
		}
	}
}

// TestStackedSeq2SeqWiring (seed 004: multilayer encoder and decoder): layer l > 1
// reads the layer below at the same step; the context c = h_T^{(L)} is the second
// part of decoder layer 1's input at every step; decoder layer l starts from
// encoder layer l's final state; the output is the softmax of the top decoder state.
func TestStackedSeq2SeqWiring(t *testing.T) {
	for L := 2; L <= MaxSeq2SeqLayers; L++ {
		m := NewStackedSeq2Seq(stackedCfg, L)
		src := []int{4, 7, 5, 10}
		tr, err := m.FreeRun(src, 6)
		if err != nil {
			t.Fatal(err)
		}
		T, e := len(src), stackedCfg.Embed
		for l := 1; l < L; l++ {
			for i := range T {
				if !mat.Equal(tr.EncoderLayers[l][i].X, tr.EncoderLayers[l-1][i].Next.H) {
					t.Errorf("L=%d: encoder layer %d at t=%d does not read layer %d", L, l+1, i+1, l)
				}
			}
			for i := range tr.Steps {
				if !mat.Equal(tr.DecoderLayers[l][i].X, tr.DecoderLayers[l-1][i].Next.H) {
					t.Errorf("L=%d: decoder layer %d at t'=%d does not read layer %d", L, l+1, i+1, l)
				}
			}
		}
		c := tr.EncoderLayers[L-1][T-1].Next.H
		for i, st := range tr.Steps {
			x := tr.DecoderLayers[0][i].X
			_, w := x.Dims()
			if !mat.Equal(x.Slice(0, 1, e, w), c) || !mat.Equal(st.Context, c) {
				t.Errorf("L=%d t'=%d: the decoder's first layer does not read c = h_T^{(L)}", L, i+1)
			}
			logits := m.Out.Forward(tr.DecoderLayers[L-1][i].Next.H).RawRowView(0)
			p := make([]float64, len(logits))
			Softmax(p, logits)
			for v := range p {
				if math.Abs(p[v]-st.Probs[v]) > 1e-15 {
					t.Fatalf("L=%d t'=%d: probabilities are not softmax(s^{(L)} W + b)", L, i+1)
				}
			}
		}
		for l := range L {
			if !mat.Equal(tr.DecoderLayers[l][0].Prev.H, tr.EncoderLayers[l][T-1].Next.H) {
				t.Errorf("L=%d: decoder layer %d does not start from h_T^{(%d)}", L, l+1, l+1)
			}
		}
		if !mat.Equal(tr.Encoder[T-1].Next.H, c) {
			t.Errorf("L=%d: the trace's Encoder is not the top layer", L)
		}
	}
}

// TestStackedSeq2SeqBadInput: the bounds on L panic with a models: message; bad
// sentences are errors.
func TestStackedSeq2SeqBadInput(t *testing.T) {
	for _, L := range []int{0, MaxSeq2SeqLayers + 1} {
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.HasPrefix(r, "models: stacked seq2seq") {
					t.Errorf("L=%d: got panic %q", L, r)
				}
			}()
			NewStackedSeq2Seq(stackedCfg, L)
		}()
	}
	m := NewStackedSeq2Seq(stackedCfg, 2)
	if _, err := m.FreeRun(nil, 3); err == nil {
		t.Error("empty source: no error")
	}
	if _, err := m.FreeRun([]int{4}, 0); err == nil {
		t.Error("maxLen 0: no error")
	}
}

// stackedTinyConfig is the gradient-check size of the stacked model.
var stackedTinyConfig = Seq2SeqConfig{SrcVocab: 6, TgtVocab: 7, Embed: 3, Hidden: 4, Seed: 2}

// TestStackedSeq2SeqGradients: the stacked model's backward pass (seed 004's
// multilayer encoder and decoder, trained by teacher forcing) agrees with central
// finite differences for every parameter of every layer, L = 1 … MaxSeq2SeqLayers,
// on padded batches; <pad> (used only as padding here) gets no gradient.
func TestStackedSeq2SeqGradients(t *testing.T) {
	for L := 1; L <= MaxSeq2SeqLayers; L++ {
		for _, tc := range []struct {
			name     string
			src, tgt [][]int
		}{
			{"B=2 padded", [][]int{{4, 5, 3, 2}, {5, 0}}, [][]int{{6, EosID}, {4, 5, EosID}}},
			{"B=2 long target", [][]int{{2, 3, 4}, {5}}, [][]int{{4, 5, 6, EosID}, {EosID}}},
			{"B=1", [][]int{{4, 0, 5}}, [][]int{{5, 6, EosID}}},
		} {
			t.Run(fmt.Sprintf("L=%d/%s", L, tc.name), func(t *testing.T) {
				m := NewStackedSeq2Seq(stackedTinyConfig, L)
				b, err := NewBatch(tc.src, tc.tgt)
				if err != nil {
					t.Fatal(err)
				}
				ps := m.Params()
				if want := 2 + 2*L*len(m.Encoder[0].Params()) + 2; len(ps) != want {
					t.Fatalf("%d parameters, want %d", len(ps), want)
				}
				ps.ZeroGrad()
				m.LossAndGrad(b)
				for _, p := range ps {
					numeric := numericGrad(p.Value, func() float64 { return m.Loss(b) }, attentionFDStep)
					if msg := gradMismatch(p.Name, p.Grad, numeric, 1e-6, 1e-9); msg != "" {
						t.Error(msg)
					}
				}
				for _, name := range []string{"src_embed.E", "tgt_embed.E"} {
					if row := ps.ByName(name).Grad.RawRowView(PadID); slices.ContainsFunc(row, func(g float64) bool { return g != 0 }) {
						t.Errorf("%s: <pad> row has gradient %v, want 0", name, row)
					}
				}
			})
		}
	}
}

// TestStackedSeq2SeqOneLayerTrainsAsSeq2Seq: with L = 1 and Seq2Seq's weights the
// stacked model's loss and every gradient equal Seq2Seq's step-by-step pass to 1e-12.
func TestStackedSeq2SeqOneLayerTrainsAsSeq2Seq(t *testing.T) {
	ref := NewSeq2Seq(stackedCfg)
	m := NewStackedSeq2Seq(stackedCfg, 1)
	m.SrcEmbed, m.TgtEmbed, m.Out = ref.SrcEmbed, ref.TgtEmbed, ref.Out
	m.Encoder, m.Decoder = []Cell{ref.Encoder}, []Cell{ref.Decoder}
	b, err := NewBatch([][]int{{4, 7, 5, 10, 3}, {8, 9}, {6}}, [][]int{{3, 5, EosID}, {7, 8, 4, 6, EosID}, {EosID}})
	if err != nil {
		t.Fatal(err)
	}
	ref.Params().ZeroGrad()
	want := ref.LossAndGradSteps(b)
	wantGrads := make([]*mat.Dense, 0)
	for _, p := range ref.Params() {
		wantGrads = append(wantGrads, mat.DenseCopyOf(p.Grad))
	}
	ps := m.Params()
	ps.ZeroGrad()
	got := m.LossAndGrad(b)
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("loss: got %.15g want %.15g", got, want)
	}
	if len(ps) != len(wantGrads) {
		t.Fatalf("%d parameters, Seq2Seq has %d", len(ps), len(wantGrads))
	}
	for i, p := range ps {
		if msg := gradMismatch(p.Name, p.Grad, wantGrads[i], 0, 1e-12); msg != "" {
			t.Error(msg)
		}
	}
}

// TestStackedSeq2SeqTrainStepLearns: a few clipped Adam steps on one batch lower
// its loss for every depth, and the reported norm is the gradient's before clipping.
func TestStackedSeq2SeqTrainStepLearns(t *testing.T) {
	b, err := NewBatch([][]int{{4, 7, 5}, {8, 9}}, [][]int{{3, 5, EosID}, {7, 8, EosID}})
	if err != nil {
		t.Fatal(err)
	}
	for L := 1; L <= MaxSeq2SeqLayers; L++ {
		m := NewStackedSeq2Seq(stackedCfg, L)
		before := m.Loss(b)
		m.Params().ZeroGrad()
		m.LossAndGrad(b)
		norm := m.Params().GradNorm()
		opt := NewAdam(0.05)
		_, gotNorm, clipped := m.TrainStep(b, opt, norm/2)
		if math.Abs(gotNorm-norm) > 1e-12 || !clipped {
			t.Errorf("L=%d: TrainStep reports norm %v clipped %v, want %v and true", L, gotNorm, clipped, norm)
		}
		for range 30 {
			m.TrainStep(b, opt, 1)
		}
		if after := m.Loss(b); !(after < before/2) {
			t.Errorf("L=%d: loss %v after 31 steps, want below half of %v", L, after, before)
		}
	}
}

// TestStackedSeq2SeqCopy: a Copier's copy computes what the original does, and
// training the copy leaves the original's weights as they were.
func TestStackedSeq2SeqCopy(t *testing.T) {
	m := NewStackedSeq2Seq(stackedCfg, 2)
	c := NewCopier().StackedSeq2Seq(m)
	b, err := NewBatch([][]int{{4, 7, 5}}, [][]int{{3, 5, EosID}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Loss(b), m.Loss(b); got != want {
		t.Fatalf("copy's loss %v, original's %v", got, want)
	}
	c.TrainStep(b, NewAdam(0.1), 1)
	if c.Loss(b) == m.Loss(b) {
		t.Error("training the copy changed nothing")
	}
	fresh := NewStackedSeq2Seq(stackedCfg, 2)
	for i, p := range m.Params() {
		if !mat.Equal(p.Value, fresh.Params()[i].Value) {
			t.Errorf("%s: training the copy changed the original", p.Name)
		}
	}
}
