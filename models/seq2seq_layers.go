package models

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// MaxSeq2SeqLayers bounds L of a StackedSeq2Seq: each layer is another GRU on each
// side and another block of rows in the pages' heatmaps; three show the idea.
const MaxSeq2SeqLayers = 3

// StackedSeq2Seq is the encoder-decoder of lecture 4.6 with multilayer GRUs on both
// sides (seed 004: the encoder and the decoder may be multilayer RNNs). With
// h_t^{(0)} = embedding(x_t),
//
//	encoder  h_t^{(l)}   = GRU_l(h_t^{(l−1)}, h_{t−1}^{(l)}),  h_0^{(l)} = 0,  l = 1…L
//	context  c           = h_T^{(L)}, the top layer's final state
//	decoder  s_t'^{(1)}  = GRU'_1([embedding(y_{t'−1}); c], s_{t'−1}^{(1)})
//	         s_t'^{(l)}  = GRU'_l(s_t'^{(l−1)}, s_{t'−1}^{(l)}),  l = 2…L
//	         s_0^{(l)}   = h_T^{(l)}: each decoder layer starts from the final state
//	                       of the encoder layer at its height
//	output   P(y_t' | y_<t', c) = softmax(s_t'^{(L)} W + b)
//
// With L = 1 it is Seq2Seq exactly. It trains by teacher forcing as Seq2Seq does
// (LossAndGrad, TrainStep: the mean −log P(y_t') over the valid labels, step by step
// through every layer) and decodes greedily (FreeRun).
type StackedSeq2Seq struct {
	Config   Seq2SeqConfig
	SrcEmbed *Embedding
	Encoder  []Cell // Encoder[l-1] is layer l; layer 1 reads e, the others h
	TgtEmbed *Embedding
	Decoder  []Cell // Decoder[l-1] is layer l; layer 1 reads e + h ([embedding; c]), the others h
	Out      *Dense
}

// NewStackedSeq2Seq returns an L-layer encoder-decoder with weights drawn from
// cfg.Seed. A non-positive size or L outside [1, MaxSeq2SeqLayers] panics.
func NewStackedSeq2Seq(cfg Seq2SeqConfig, L int) *StackedSeq2Seq {
	cfg.check()
	if L < 1 || L > MaxSeq2SeqLayers {
		panic(fmt.Sprintf("models: stacked seq2seq with L = %d layers, want 1 … %d", L, MaxSeq2SeqLayers))
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed))
	m := &StackedSeq2Seq{Config: cfg, SrcEmbed: NewEmbedding("E", cfg.SrcVocab, cfg.Embed, rng)}
	for l := range L {
		in := cfg.Hidden
		if l == 0 {
			in = cfg.Embed
		}
		m.Encoder = append(m.Encoder, NewGRU(in, cfg.Hidden, rng))
	}
	m.TgtEmbed = NewEmbedding("E", cfg.TgtVocab, cfg.Embed, rng)
	for l := range L {
		in := cfg.Hidden
		if l == 0 {
			in = cfg.Embed + cfg.Hidden
		}
		m.Decoder = append(m.Decoder, NewGRU(in, cfg.Hidden, rng))
	}
	m.Out = NewDense("", cfg.Hidden, cfg.TgtVocab, rng)
	return m
}

// Layers is L.
func (m *StackedSeq2Seq) Layers() int { return len(m.Encoder) }

// StackedTrace is one sentence through a StackedSeq2Seq. Its DecodeTrace holds the
// top layer (Encoder[t-1].Next.H = h_t^{(L)}, Steps[i].Decoder.Next.H = s_t'^{(L)},
// Steps[i].Context = c); EncoderLayers[l-1][t-1] and DecoderLayers[l-1][t'-1] are
// every layer's steps.
type StackedTrace struct {
	*DecodeTrace
	EncoderLayers [][]*StepTrace
	DecoderLayers [][]*StepTrace
}

// FreeRun decodes src greedily, as Seq2Seq's FreeRun does: <bos>, then each step's
// most probable token, until <eos> or maxLen steps. It returns an error for an empty
// source, an id outside the vocabulary or maxLen < 1.
func (m *StackedSeq2Seq) FreeRun(src []int, maxLen int) (*StackedTrace, error) {
	if err := checkSentence("source", src, m.Config.SrcVocab); err != nil {
		return nil, err
	}
	if maxLen < 1 {
		return nil, fmt.Errorf("models: maximum output length %d, want ≥ 1", maxLen)
	}
	L, h := m.Layers(), m.Config.Hidden
	tr := &StackedTrace{DecodeTrace: &DecodeTrace{Source: src},
		EncoderLayers: make([][]*StepTrace, L), DecoderLayers: make([][]*StepTrace, L)}
	state := make([]*mat.Dense, L)
	for l := range state {
		state[l] = mat.NewDense(1, h, nil)
	}
	for _, x := range src {
		in := m.SrcEmbed.Forward([]int{x})
		for l, cell := range m.Encoder {
			st := cell.Step(in, State{H: state[l]})
			tr.EncoderLayers[l] = append(tr.EncoderLayers[l], st)
			state[l], in = st.Next.H, st.Next.H
		}
	}
	tr.Encoder = tr.EncoderLayers[L-1]
	c := state[L-1] // h_T^{(L)}; state[l] = h_T^{(l)} starts decoder layer l
	last := BosID
	for len(tr.Steps) < maxLen {
		in := joinDecoderInput(m.TgtEmbed.Forward([]int{last}), c)
		for l, cell := range m.Decoder {
			st := cell.Step(in, State{H: state[l]})
			tr.DecoderLayers[l] = append(tr.DecoderLayers[l], st)
			state[l], in = st.Next.H, st.Next.H
		}
		logits := m.Out.Forward(in).RawRowView(0)
		step := DecodeStep{Input: last, Decoder: tr.DecoderLayers[L-1][len(tr.Steps)], Context: c,
			Probs: make([]float64, m.Config.TgtVocab), Target: -1}
		Softmax(step.Probs, logits)
		step.Output = Argmax(step.Probs)
		step.Loss = -logProbOf(logits, step.Output)
		tr.Steps = append(tr.Steps, step)
		tr.Loss += step.Loss
		if step.Output == EosID {
			break
		}
		last = step.Output
	}
	return tr, nil
}

// Params lists every parameter under a unique checkpoint name, in this order:
// src_embed.E, enc1.(GRU names) … encL., tgt_embed.E, dec1. … decL., out.W, out.b.
// The entries share Value and Grad with the layers.
func (m *StackedSeq2Seq) Params() Params {
	var ps Params
	ps = append(ps, m.SrcEmbed.Params().WithPrefix("src_embed.")...)
	for l, c := range m.Encoder {
		ps = append(ps, c.Params().WithPrefix("enc"+strconv.Itoa(l+1)+".")...)
	}
	ps = append(ps, m.TgtEmbed.Params().WithPrefix("tgt_embed.")...)
	for l, c := range m.Decoder {
		ps = append(ps, c.Params().WithPrefix("dec"+strconv.Itoa(l+1)+".")...)
	}
	return append(ps, m.Out.Params().WithPrefix("out.")...)
}

// stackedPass is a teacher-forced forward pass of a StackedSeq2Seq over a batch.
type stackedPass struct {
	src     [][]int
	lens    []int
	enc     [][]*StepTrace // enc[l-1][t-1]: encoder layer l at step t
	finals  []*mat.Dense   // finals[l-1]: row b is h^{(l)} at step lens[b], = s_0^{(l)}
	inputs  [][]int        // inputs[t'-1]: y_{t'−1} per example
	dec     [][]*StepTrace // dec[l-1][t'-1]: decoder layer l at step t'
	dLogits []*mat.Dense   // ∂(Σ loss)/∂o_t', zero rows on padding
	labelLoss
}

// forward runs the stacked encoder and the teacher-forced stacked decoder over b.
// Each example's final states are taken at its own valid source length, so the
// encoder's steps over <pad> change nothing and receive no gradient.
func (m *StackedSeq2Seq) forward(b Batch) *stackedPass {
	if err := b.Validate(m.Config.SrcVocab, m.Config.TgtVocab); err != nil {
		panic(err.Error())
	}
	L, h, batch := m.Layers(), m.Config.Hidden, b.Size()
	fp := &stackedPass{src: b.Src, lens: b.SrcLen, enc: make([][]*StepTrace, L), dec: make([][]*StepTrace, L)}
	state := make([]*mat.Dense, L)
	for l := range state {
		state[l] = mat.NewDense(batch, h, nil)
	}
	for t := range b.Src[0] {
		in := m.SrcEmbed.Forward(batchColumn(b.Src, t))
		for l, cell := range m.Encoder {
			st := cell.Step(in, State{H: state[l]})
			fp.enc[l] = append(fp.enc[l], st)
			state[l], in = st.Next.H, st.Next.H
		}
	}
	for l := range L {
		final := mat.NewDense(batch, h, nil)
		for i, n := range b.SrcLen {
			final.SetRow(i, fp.enc[l][n-1].Next.H.RawRowView(i))
		}
		fp.finals = append(fp.finals, final)
		state[l] = final // s_0^{(l)} = h_T^{(l)}
	}
	c := fp.finals[L-1]
	input := make([]int, batch)
	for i := range input {
		input[i] = BosID
	}
	mask := make([]float64, batch)
	for t := range b.Tgt[0] {
		in := joinDecoderInput(m.TgtEmbed.Forward(input), c)
		for l, cell := range m.Decoder {
			st := cell.Step(in, State{H: state[l]})
			fp.dec[l] = append(fp.dec[l], st)
			state[l], in = st.Next.H, st.Next.H
		}
		labels := batchColumn(b.Tgt, t)
		for i, n := range b.TgtLen {
			mask[i] = Indicator(t < n)
		}
		loss, _, dLogits := SoftmaxCrossEntropy(m.Out.Forward(in), labels, mask)
		fp.inputs = append(fp.inputs, input)
		fp.dLogits = append(fp.dLogits, dLogits)
		fp.loss += loss
		input = labels
	}
	for _, n := range b.TgtLen {
		fp.tokens += n
	}
	return fp
}

// backward accumulates ∂(scale·Σ loss)/∂θ into every parameter's Grad. Backwards in
// t', from the top layer down: the decoder's top layer takes ∂L/∂o_t' through the
// output layer, each layer passes ∂L/∂(its input) to the layer below at the same
// step and ∂L/∂s_{t'−1}^{(l)} to itself one step earlier; layer 1 splits its input's
// gradient into the embedding's and c's. Then ∂L/∂s_0^{(l)} reaches h_T^{(l)}, and
// ∂L/∂c the top one, and the encoder runs back the same way.
func (m *StackedSeq2Seq) backward(fp *stackedPass, scale float64) {
	L, h, batch := m.Layers(), m.Config.Hidden, len(fp.src)
	dS := make([]*mat.Dense, L) // ∂L/∂s_{t'}^{(l)} from step t'+1
	for l := range dS {
		dS[l] = mat.NewDense(batch, h, nil)
	}
	dC := mat.NewDense(batch, h, nil)
	for t := len(fp.inputs) - 1; t >= 0; t-- {
		var dLogits mat.Dense
		dLogits.Scale(scale, fp.dLogits[t])
		dIn := m.Out.Backward(fp.dec[L-1][t].Next.H, &dLogits)
		for l := L - 1; l >= 0; l-- {
			dIn.Add(dIn, dS[l])
			dX, dPrev := m.Decoder[l].StepBack(fp.dec[l][t], dIn, nil)
			dS[l] = mat.DenseCopyOf(dPrev.H)
			dIn = dX
		}
		dEmbed, dContext := splitDecoderInput(dIn, m.Config.Embed)
		m.TgtEmbed.Backward(fp.inputs[t], dEmbed)
		dC.Add(dC, dContext)
	}
	dFinal := dS // ∂L/∂s_0^{(l)} = ∂L/∂h_T^{(l)}
	dFinal[L-1].Add(dFinal[L-1], dC)
	dH := make([]*mat.Dense, L) // ∂L/∂h_t^{(l)} from step t+1
	for l := range dH {
		dH[l] = mat.NewDense(batch, h, nil)
	}
	for t := len(fp.src[0]) - 1; t >= 0; t-- {
		var dIn *mat.Dense // ∂L/∂h_t^{(l)} from layer l+1 at step t
		for l := L - 1; l >= 0; l-- {
			d := dH[l]
			if dIn != nil {
				d.Add(d, dIn)
			}
			for i, n := range fp.lens {
				if n-1 == t {
					row := d.RawRowView(i)
					for j, g := range dFinal[l].RawRowView(i) {
						row[j] += g
					}
				}
			}
			dX, dPrev := m.Encoder[l].StepBack(fp.enc[l][t], d, nil)
			dH[l] = mat.DenseCopyOf(dPrev.H)
			dIn = dX
		}
		m.SrcEmbed.Backward(batchColumn(fp.src, t), dIn)
	}
}

// Loss is the training loss on b: the mean over every valid label of
// −log P(y_t' | y_<t', x), teacher-forced, as Seq2Seq's Loss. A malformed batch
// (see Batch.Validate) panics.
func (m *StackedSeq2Seq) Loss(b Batch) float64 {
	return m.forward(b).mean()
}

// LossAndGrad returns Loss(b) and adds its gradient with respect to every parameter
// to Params()[i].Grad (call Params().ZeroGrad first to start afresh).
func (m *StackedSeq2Seq) LossAndGrad(b Batch) float64 {
	fp := m.forward(b)
	return fp.backwardMean(func(scale float64) { m.backward(fp, scale) })
}

// TrainStep is one update, as Seq2Seq's: zero the gradients, LossAndGrad(b), clip
// the global gradient norm to clip (none when clip ≤ 0), opt.Step. It returns the
// loss, the gradient norm before clipping and whether it clipped; a NaN or infinite
// gradient norm skips the update.
func (m *StackedSeq2Seq) TrainStep(b Batch, opt Optimizer, clip float64) (loss, gradNorm float64, clipped bool) {
	return Update(m.Params(), opt, clip, func() float64 { return m.LossAndGrad(b) })
}
