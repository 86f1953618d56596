package models

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// seq2seqModel is what the tests need of both encoder-decoders.
type seq2seqModel interface {
	Params() Params
	Loss(b Batch) float64
	LossAndGrad(b Batch) float64
	TrainStep(b Batch, opt Optimizer, clip float64) (loss, gradNorm float64, clipped bool)
	TeacherForced(src, tgt []int) (*DecodeTrace, error)
	FreeRun(src []int, maxLen int) (*DecodeTrace, error)
	Greedy(src []int, maxLen int) ([]int, error)
	Searcher(src []int) (DecoderState, StepFunc[DecoderState], error)
}

// seq2seqKinds builds each model from a config.
var seq2seqKinds = []struct {
	name string
	make func(Seq2SeqConfig) seq2seqModel
}{
	{"Seq2Seq", func(c Seq2SeqConfig) seq2seqModel { return NewSeq2Seq(c) }},
	{"AttentionSeq2Seq", func(c Seq2SeqConfig) seq2seqModel { return NewAttentionSeq2Seq(c) }},
}

// seq2seqTinyConfig is the gradient-check size: vocabularies of 6 and 7, e = 3, h = 4.
var seq2seqTinyConfig = Seq2SeqConfig{SrcVocab: 6, TgtVocab: 7, Embed: 3, Hidden: 4, Attention: 3, Seed: 1}

// seq2seqPaddedBatch has two pairs of different lengths on each side; ids 4…6 are
// words, PadID fills. PadID is used only as padding, so its embedding rows must get
// no gradient.
func seq2seqPaddedBatch(t *testing.T) Batch {
	t.Helper()
	b, err := NewBatch(
		[][]int{{4, 5, 3, 2}, {5, 0}},
		[][]int{{6, EosID}, {4, 5, 6, EosID}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTeacherForcingShift(t *testing.T) {
	// Lecture 4.6: "<bos> ils regardent ." is fed to predict "ils regardent . <eos>".
	v := NewVocab([][]string{{"ils", "regardent", "."}}, 1)
	labels := append(v.IDs([]string{"ils", "regardent", "."}), EosID)
	got := strings.Join(v.Tokens(TeacherForcingInput(labels)), " ")
	if want := "<bos> ils regardent ."; got != want {
		t.Errorf("decoder input: got %q want %q", got, want)
	}

	// The traced teacher-forced run feeds exactly that and predicts the labels.
	cfg := Seq2SeqConfig{SrcVocab: 5, TgtVocab: v.Len(), Embed: 3, Hidden: 4, Seed: 1}
	for _, kind := range seq2seqKinds {
		t.Run(kind.name, func(t *testing.T) {
			tr, err := kind.make(cfg).TeacherForced([]int{4, 4, EosID}, labels)
			if err != nil {
				t.Fatal(err)
			}
			var inputs, targets []string
			for _, s := range tr.Steps {
				inputs = append(inputs, v.Token(s.Input))
				targets = append(targets, v.Token(s.Target))
			}
			if got, want := strings.Join(inputs, " "), "<bos> ils regardent ."; got != want {
				t.Errorf("inputs: got %q want %q", got, want)
			}
			if got, want := strings.Join(targets, " "), "ils regardent . <eos>"; got != want {
				t.Errorf("targets: got %q want %q", got, want)
			}
		})
	}
}

func TestSeq2SeqGradients(t *testing.T) {
	for _, kind := range seq2seqKinds {
		for _, tc := range []struct {
			name     string
			src, tgt [][]int
			rel, abs float64
		}{
			{"B=2 padded", [][]int{{4, 5, 3, 2}, {5, 0}}, [][]int{{6, EosID}, {4, 5, EosID}}, 1e-6, 1e-9},
			{"B=2 long target", [][]int{{2, 3, 4}, {5}}, [][]int{{4, 5, 6, EosID}, {EosID}}, 1e-6, 1e-9},
			{"B=1", [][]int{{4, 0, 5}}, [][]int{{5, 6, EosID}}, 1e-6, 1e-9},
		} {
			t.Run(kind.name+"/"+tc.name, func(t *testing.T) {
				m := kind.make(seq2seqTinyConfig)
				b, err := NewBatch(tc.src, tc.tgt)
				if err != nil {
					t.Fatal(err)
				}
				m.Params().ZeroGrad()
				m.LossAndGrad(b)
				for _, p := range m.Params() {
					numeric := numericGrad(p.Value, func() float64 { return m.Loss(b) }, attentionFDStep)
					if msg := gradMismatch(p.Name, p.Grad, numeric, tc.rel, tc.abs); msg != "" {
						t.Error(msg)
					}
				}
			})
		}
	}
}

func TestSeq2SeqPaddingContributesNothing(t *testing.T) {
	const tol = 1e-12
	for _, kind := range seq2seqKinds {
		t.Run(kind.name, func(t *testing.T) {
			m := kind.make(seq2seqTinyConfig)
			b := seq2seqPaddedBatch(t)
			m.Params().ZeroGrad()
			loss := m.LossAndGrad(b)
			grads := map[string]*mat.Dense{}
			for _, p := range m.Params() {
				grads[p.Name] = mat.DenseCopyOf(p.Grad)
			}

			// The <pad> embedding rows get exactly zero gradient.
			for _, name := range []string{"src_embed.E", "tgt_embed.E"} {
				row := m.Params().ByName(name).Grad.RawRowView(PadID)
				for _, g := range row {
					if g != 0 {
						t.Errorf("%s row <pad>: got gradient %v want exactly 0", name, row)
						break
					}
				}
			}

			// Other ids in the padding change nothing, bit for bit.
			other := Batch{SrcLen: b.SrcLen, TgtLen: b.TgtLen}
			for i, r := range b.Src {
				other.Src = append(other.Src, slices.Clone(r))
				for j := b.SrcLen[i]; j < len(r); j++ {
					other.Src[i][j] = 4
				}
			}
			for i, r := range b.Tgt {
				other.Tgt = append(other.Tgt, slices.Clone(r))
				for j := b.TgtLen[i]; j < len(r); j++ {
					other.Tgt[i][j] = 6
				}
			}
			m.Params().ZeroGrad()
			if got := m.LossAndGrad(other); got != loss {
				t.Errorf("loss with other padding ids: got %.17g want %.17g", got, loss)
			}
			for _, p := range m.Params() {
				if !mat.Equal(p.Grad, grads[p.Name]) {
					t.Errorf("%s: gradient changed with other padding ids", p.Name)
				}
			}

			// The padded batch's loss is the token-weighted mean of the unpadded pairs'.
			var sum float64
			tokens := 0
			for i := range b.Src {
				one := Batch{
					Src: [][]int{b.Src[i][:b.SrcLen[i]]}, SrcLen: []int{b.SrcLen[i]},
					Tgt: [][]int{b.Tgt[i][:b.TgtLen[i]]}, TgtLen: []int{b.TgtLen[i]},
				}
				sum += m.Loss(one) * float64(b.TgtLen[i])
				tokens += b.TgtLen[i]
			}
			if want := sum / float64(tokens); math.Abs(loss-want) > tol {
				t.Errorf("padded batch loss: got %.15g want %.15g (unpadded pairs)", loss, want)
			}
		})
	}
}

func TestAttentionSeq2SeqWeights(t *testing.T) {
	const tol = 1e-12
	m := NewAttentionSeq2Seq(seq2seqTinyConfig)
	b := seq2seqPaddedBatch(t)
	fp := m.forward(b)
	for step, st := range fp.steps {
		for i, n := range b.SrcLen {
			var sum float64
			for j := 0; j < len(b.Src[i]); j++ {
				w := st.attn.Weights.At(i, j)
				if j >= n && w != 0 {
					t.Errorf("step %d example %d source %d (<pad>): got α %v want exactly 0", step+1, i, j+1, w)
				}
				sum += w
			}
			if math.Abs(sum-1) > tol {
				t.Errorf("step %d example %d: got Σ_j α = %.15g want 1", step+1, i, sum)
			}
		}
	}

	tr, err := m.TeacherForced([]int{4, 5, 3}, []int{6, 4, EosID})
	if err != nil {
		t.Fatal(err)
	}
	heat := tr.Alignment()
	if r, c := heat.Dims(); r != 3 || c != 3 {
		t.Fatalf("alignment: got %d×%d want 3×3", r, c)
	}
	for i := 0; i < 3; i++ {
		if got := mat.Sum(heat.RowView(i)); math.Abs(got-1) > tol {
			t.Errorf("alignment row %d: got sum %.15g want 1", i+1, got)
		}
	}
	if NewSeq2Seq(seq2seqTinyConfig).EncoderDecoder.Attention != nil {
		t.Error("Seq2Seq: got an attention layer, want none")
	}
}

func TestSeq2SeqContextIsFinalEncoderState(t *testing.T) {
	// Figure 14: c = h_T initialises the decoder and is part of every decoder input.
	m := NewSeq2Seq(seq2seqTinyConfig)
	tr, err := m.TeacherForced([]int{4, 5, 3}, []int{6, 4, EosID})
	if err != nil {
		t.Fatal(err)
	}
	hT := tr.Encoder[len(tr.Encoder)-1].Next.H
	if !mat.Equal(tr.Steps[0].Decoder.Prev.H, hT) {
		t.Errorf("s_0: got %v want h_T %v", tr.Steps[0].Decoder.Prev.H.RawRowView(0), hT.RawRowView(0))
	}
	e := seq2seqTinyConfig.Embed
	for i, s := range tr.Steps {
		x := s.Decoder.X.RawRowView(0)
		if !slices.Equal(x[e:], hT.RawRowView(0)) || !mat.Equal(s.Context, hT) {
			t.Errorf("step %d: got context %v want h_T %v", i+1, x[e:], hT.RawRowView(0))
		}
		if want := m.TgtEmbed.E.Value.RawRowView(s.Input); !slices.Equal(x[:e], want) {
			t.Errorf("step %d: got embedding %v want %v", i+1, x[:e], want)
		}
		if s.Attention != nil {
			t.Errorf("step %d: got attention weights %v want nil", i+1, s.Attention)
		}
	}
	for _, g := range []string{"R", "Z", "H_tilde"} {
		if tr.Steps[0].Decoder.Gate(g) == nil || tr.Encoder[0].Gate(g) == nil {
			t.Errorf("gate %s missing from the traces", g)
		}
	}
}

func TestDecodeTraceSteps(t *testing.T) {
	const tol = 1e-12
	for _, kind := range seq2seqKinds {
		t.Run(kind.name, func(t *testing.T) {
			m := kind.make(seq2seqTinyConfig)
			src, tgt := []int{4, 5, 3}, []int{6, 4, EosID}
			forced, err := m.TeacherForced(src, tgt)
			if err != nil {
				t.Fatal(err)
			}
			var sum float64
			for i, s := range forced.Steps {
				if got := mat.Sum(mat.NewVecDense(len(s.Probs), s.Probs)); math.Abs(got-1) > tol {
					t.Errorf("step %d: got Σ P = %.15g want 1", i+1, got)
				}
				if want := -math.Log(s.Probs[tgt[i]]); math.Abs(s.Loss-want) > 1e-10 {
					t.Errorf("step %d: got loss %.15g want −log P(target) = %.15g", i+1, s.Loss, want)
				}
				top := s.TopK(3)
				if len(top) != 3 || top[0].ID != s.Output || top[0].Prob < top[1].Prob || top[1].Prob < top[2].Prob {
					t.Errorf("step %d: got top-3 %v want descending from Output %d", i+1, top, s.Output)
				}
				sum += s.Loss
			}
			// Σ per-step losses is the pair's training loss times its length.
			b, err := NewBatch([][]int{src}, [][]int{tgt})
			if err != nil {
				t.Fatal(err)
			}
			if want := m.Loss(b) * float64(len(tgt)); math.Abs(forced.Loss-want) > tol || math.Abs(sum-want) > tol {
				t.Errorf("trace loss: got %.15g (steps %.15g) want %.15g", forced.Loss, sum, want)
			}

			const maxLen = 5
			free, err := m.FreeRun(src, maxLen)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(free.Steps); n == 0 || n > maxLen || n < maxLen && free.Steps[n-1].Output != EosID {
				t.Errorf("free run: got %d steps ending in %d, want ≤ %d ending in <eos> unless capped", n, free.Steps[n-1].Output, maxLen)
			}
			for i, s := range free.Steps {
				if i == 0 && s.Input != BosID || i > 0 && s.Input != free.Steps[i-1].Output {
					t.Errorf("free run step %d: got input %d want the previous output", i+1, s.Input)
				}
				if s.Target != -1 {
					t.Errorf("free run step %d: got target %d want −1", i+1, s.Target)
				}
			}
		})
	}
}

func TestSeq2SeqSearcher(t *testing.T) {
	const tol = 1e-12
	for _, kind := range seq2seqKinds {
		t.Run(kind.name, func(t *testing.T) {
			m := kind.make(seq2seqTinyConfig)
			src, tgt := []int{4, 5, 3}, []int{6, 4, EosID}
			start, step, err := m.Searcher(src)
			if err != nil {
				t.Fatal(err)
			}
			cfg := SearchConfig{BOS: BosID, EOS: EosID, MaxLen: 6, BeamSize: 3}

			// P(y|x) from the searcher is the teacher-forced likelihood.
			forced, err := m.TeacherForced(src, tgt)
			if err != nil {
				t.Fatal(err)
			}
			if got := SequenceLogProb(start, cfg, step, tgt); math.Abs(got+forced.Loss) > tol {
				t.Errorf("log P(y|x): got %.15g want %.15g", got, -forced.Loss)
			}

			// beam.go's Greedy on the searcher is the model's own greedy decoding.
			want, err := m.Greedy(src, cfg.MaxLen)
			if err != nil {
				t.Fatal(err)
			}
			hyp := Greedy(start, cfg, step)
			got := hyp.Tokens
			if hyp.Finished {
				got = got[:len(got)-1]
			}
			if !slices.Equal(got, want) {
				t.Errorf("Greedy over the searcher: got %v want %v", got, want)
			}

			// Beam search never scores below greedy, and searching leaves the state alone.
			before := mat.DenseCopyOf(start.S)
			beam := BeamSearch(start, cfg, step)
			if beam == nil {
				t.Fatal("beam search: got nil result")
			}
			if !mat.Equal(start.S, before) {
				t.Error("searching modified the start state")
			}

			// Exhaustive search over every sequence of ≤ 3 tokens finds the best of all.
			small := SearchConfig{BOS: BosID, EOS: EosID, MaxLen: 3, BeamSize: 2}
			best := Exhaustive(start, small, step)
			for _, h := range []Hypothesis{Greedy(start, small, step), BeamSearch(start, small, step).Best} {
				if h.Score > best.Score+tol {
					t.Errorf("exhaustive: got score %.15g below %v's %.15g", best.Score, h.Tokens, h.Score)
				}
			}
			if got := SequenceLogProb(start, small, step, best.Tokens); math.Abs(got-best.LogProb) > tol {
				t.Errorf("exhaustive best %v: got log P %.15g want %.15g", best.Tokens, best.LogProb, got)
			}

			// The states carry the step's attention weights, as the trace does.
			state, last := start, BosID
			for i, y := range tgt {
				_, next := step(state, last)
				if !slices.Equal(next.Attention, forced.Steps[i].Attention) {
					t.Errorf("step %d: got state attention %v want %v", i+1, next.Attention, forced.Steps[i].Attention)
				}
				if !mat.Equal(next.S, forced.Steps[i].Decoder.Next.H) {
					t.Errorf("step %d: got state %v want s_t' of the trace", i+1, next.S.RawRowView(0))
				}
				state, last = next, y
			}
		})
	}
}

func TestSeq2SeqOverfitsToyPairs(t *testing.T) {
	// Three pairs, learnt by heart: a model that can represent the mapping drives the
	// loss to ≈ 0 and greedy decoding reproduces every target.
	const (
		steps    = 300   // both models pass 0.005 by step 50 and reach ~4e-4 by 300
		lr       = 0.02  // large enough to finish quickly, small enough to be stable
		clip     = 5     // a safety net; the gradients of this toy stay below it
		wantLoss = 0.002 // mean −log P per label: every label at P ≳ 0.998
	)
	src := [][]int{{4, 5, 6}, {6, 5}, {5, 4, 4, 6}}
	tgt := [][]int{{7, 8, EosID}, {8, 8, 7, EosID}, {6, EosID}}
	cfg := Seq2SeqConfig{SrcVocab: 7, TgtVocab: 9, Embed: 8, Hidden: 16, Seed: 1}
	b, err := NewBatch(src, tgt)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range seq2seqKinds {
		t.Run(kind.name, func(t *testing.T) {
			m := kind.make(cfg)
			opt := NewAdam(lr)
			var loss float64
			for range steps {
				loss, _, _ = m.TrainStep(b, opt, clip)
			}
			if loss = m.Loss(b); loss > wantLoss {
				t.Errorf("loss after %d steps: got %.4g want ≤ %g", steps, loss, wantLoss)
			}
			for i := range src {
				got, err := m.Greedy(src[i], 10)
				if err != nil {
					t.Fatal(err)
				}
				if want := tgt[i][:len(tgt[i])-1]; !slices.Equal(got, want) {
					t.Errorf("pair %d: got %v want %v", i, got, want)
				}
			}
		})
	}
}

func TestSeq2SeqTrainStepClips(t *testing.T) {
	const tol = 1e-12
	b, err := NewBatch([][]int{{4, 5}}, [][]int{{6, EosID}})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range seq2seqKinds {
		t.Run(kind.name, func(t *testing.T) {
			m := kind.make(seq2seqTinyConfig)
			m.Params().ZeroGrad()
			m.LossAndGrad(b)
			norm := m.Params().GradNorm()

			m = kind.make(seq2seqTinyConfig)
			_, gotNorm, clipped := m.TrainStep(b, &SGD{LR: 0}, norm/2)
			if math.Abs(gotNorm-norm) > tol*norm || !clipped {
				t.Errorf("got norm %.15g clipped %v want %.15g true", gotNorm, clipped, norm)
			}
			if after := m.Params().GradNorm(); math.Abs(after-norm/2) > tol*norm {
				t.Errorf("norm after clipping: got %.15g want %.15g", after, norm/2)
			}
		})
	}
}

func TestSeq2SeqParams(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model seq2seqModel
		count int
	}{
		// src E 6·3, enc GRU 3·(3·4+4·4+4), tgt E 7·3, dec GRU 3·(7·4+4·4+4), out 4·7+7,
		// attention W_q 4·3, W_k 4·3, v 3.
		{"Seq2Seq", NewSeq2Seq(seq2seqTinyConfig), 18 + 96 + 21 + 144 + 35},
		{"AttentionSeq2Seq", NewAttentionSeq2Seq(seq2seqTinyConfig), 18 + 96 + 21 + 144 + 35 + 27},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := tc.model.Params()
			if got := ps.Count(); got != tc.count {
				t.Errorf("parameter count: got %d want %d", got, tc.count)
			}
			seen := map[string]bool{}
			for _, p := range ps {
				prefix, _, ok := strings.Cut(p.Name, ".")
				if !ok || !slices.Contains([]string{"src_embed", "enc", "tgt_embed", "dec", "attn", "out"}, prefix) {
					t.Errorf("parameter %q: want a src_embed./enc./tgt_embed./dec./attn./out. prefix", p.Name)
				}
				if seen[p.Name] {
					t.Errorf("parameter %q listed twice", p.Name)
				}
				seen[p.Name] = true
			}
			if &ps[0] != &tc.model.Params()[0] {
				t.Error("Params: got a new list on each call, want the same")
			}
		})
	}
	// The same seed gives the same weights.
	a, b := NewAttentionSeq2Seq(seq2seqTinyConfig).Params(), NewAttentionSeq2Seq(seq2seqTinyConfig).Params()
	for i := range a {
		if !mat.Equal(a[i].Value, b[i].Value) {
			t.Errorf("%s: got different weights from the same seed", a[i].Name)
		}
	}
}

func TestSeq2SeqBadInput(t *testing.T) {
	m := NewSeq2Seq(seq2seqTinyConfig)
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"empty source", func() error { _, err := m.FreeRun(nil, 3); return err }},
		{"empty target", func() error { _, err := m.TeacherForced([]int{4}, nil); return err }},
		{"source id out of range", func() error { _, err := m.Greedy([]int{4, 99}, 3); return err }},
		{"target id out of range", func() error { _, err := m.TeacherForced([]int{4}, []int{-1}); return err }},
		{"zero max length", func() error { _, err := m.FreeRun([]int{4}, 0); return err }},
		{"searcher on empty source", func() error { _, _, err := m.Searcher([]int{}); return err }},
		{"empty pair", func() error { _, err := NewBatch([][]int{{4}}, [][]int{{}}); return err }},
		{"unequal counts", func() error { _, err := NewBatch([][]int{{4}}, nil); return err }},
		{"ragged batch", func() error {
			return Batch{Src: [][]int{{4, 5}, {4}}, SrcLen: []int{2, 1}, Tgt: [][]int{{3}, {3}}, TgtLen: []int{1, 1}}.Validate(6, 7)
		}},
		{"length past the row", func() error {
			return Batch{Src: [][]int{{4}}, SrcLen: []int{2}, Tgt: [][]int{{3}}, TgtLen: []int{1}}.Validate(6, 7)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil || !strings.HasPrefix(err.Error(), "models: ") {
				t.Errorf("got error %v want one starting \"models: \"", err)
			}
		})
	}
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "models: ") {
			t.Errorf("Loss of a malformed batch: got panic %v want a models: panic", r)
		}
	}()
	m.Loss(Batch{})
}

func BenchmarkSeq2SeqTrainStep(b *testing.B) {
	// A lesson-sized model: vocabularies of 200, e = 32, h = 64, 16 pairs of ≤ 10 tokens.
	cfg := Seq2SeqConfig{SrcVocab: 200, TgtVocab: 200, Embed: 32, Hidden: 64, Seed: 1}
	var src, tgt [][]int
	for i := range 16 {
		var s, y []int
		for t := range 10 - i%4 {
			s = append(s, 4+(i*7+t*3)%196)
			y = append(y, 4+(i*5+t*11)%196)
		}
		src, tgt = append(src, s), append(tgt, append(y, EosID))
	}
	batch, err := NewBatch(src, tgt)
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range seq2seqKinds {
		b.Run(kind.name, func(b *testing.B) {
			m := kind.make(cfg)
			opt := NewAdam(1e-3)
			for b.Loop() {
				m.TrainStep(batch, opt, 1)
			}
		})
	}
}
