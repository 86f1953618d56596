package models

import (
	"fmt"
	"math/rand/v2"

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
// With L = 1 it is Seq2Seq exactly. It runs forward only (FreeRun): the pages show
// it with untrained weights.
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
