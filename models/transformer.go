package models

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// TransformerConfig sizes a Transformer.
type TransformerConfig struct {
	SrcVocab, TgtVocab int
	D                  int // d, the width of the embeddings and of every sub-layer's output
	Heads              int // h, heads per attention; d_k = d_v = d/h
	FF                 int // d_ff, the feed-forward network's inner width
	Layers             int // N, encoder layers and decoder layers each
	Seed               uint64
}

// Streams of the weights' initialisation drawn from Config.Seed, apart from the
// other models' (0x6a7, 0x1997, …) and from training's minibatch stream.
const transformerInitStream = 0x2017 // Vaswani et al., 2017

// Transformer is the encoder-decoder of lecture 002 (Vaswani et al. 2017), with no
// recurrence. With X = Embed(x) + PE and Y = Embed(<bos>, y_1, …, y_{T'−1}) + PE,
// each encoder layer computes
//
//	Z = LN(X + MultiHead(X, X, X)),  X ← LN(Z + FFN(Z))       (encoder self-attention)
//
// and each decoder layer, with the encoder's output H,
//
//	Z₁ = LN(Y + MultiHead(Y, Y, Y; M))                         (masked decoder self-attention)
//	Z₂ = LN(Z₁ + MultiHead(Z₁, H, H))                          (encoder-decoder attention)
//	Y ← LN(Z₂ + FFN(Z₂))
//
// and P(y_t' | y_<t', x) = softmax(Y_t' W + b). M is the causal mask, −∞ on the keys
// after each query's position, so position t' sees the outputs up to and including
// its own input. Unmasked and Unscaled switch off the mask and the 1/√d_k (for the
// page that shows what they are for); the zero value is the lecture's model.
type Transformer struct {
	Config             TransformerConfig
	SrcEmbed, TgtEmbed *Embedding
	Encoder            []*EncoderLayer
	Decoder            []*DecoderLayer
	Out                *Dense // W (d×V'), b

	Unmasked bool // decoder self-attention without the causal mask: position t' sees every position
	Unscaled bool // scores Q Kᵀ without the 1/√d_k
}

// EncoderLayer is self-attention then the feed-forward network, each with a residual
// connection and layer normalisation.
type EncoderLayer struct {
	Self         *MultiHeadAttention
	Norm1, Norm2 *LayerNorm
	FFN          *FeedForward
}

// DecoderLayer is masked self-attention, encoder-decoder attention and the
// feed-forward network, each with a residual connection and layer normalisation.
type DecoderLayer struct {
	Self, Cross         *MultiHeadAttention
	Norm1, Norm2, Norm3 *LayerNorm
	FFN                 *FeedForward
}

// Params lists the layer's parameters in a fixed order.
func (l *EncoderLayer) Params() Params {
	var ps Params
	ps = append(ps, l.Self.Params().WithPrefix("self.")...)
	ps = append(ps, l.Norm1.Params().WithPrefix("norm1.")...)
	ps = append(ps, l.FFN.Params().WithPrefix("ffn.")...)
	return append(ps, l.Norm2.Params().WithPrefix("norm2.")...)
}

// Params lists the layer's parameters in a fixed order.
func (l *DecoderLayer) Params() Params {
	var ps Params
	ps = append(ps, l.Self.Params().WithPrefix("self.")...)
	ps = append(ps, l.Norm1.Params().WithPrefix("norm1.")...)
	ps = append(ps, l.Cross.Params().WithPrefix("cross.")...)
	ps = append(ps, l.Norm2.Params().WithPrefix("norm2.")...)
	ps = append(ps, l.FFN.Params().WithPrefix("ffn.")...)
	return append(ps, l.Norm3.Params().WithPrefix("norm3.")...)
}

// NewTransformer returns a Transformer with weights drawn from cfg.Seed: N(0, 1)
// embeddings, Xavier-uniform projections, γ = 1 and β = 0. Sizes must be positive
// and d a multiple of h.
func NewTransformer(cfg TransformerConfig) *Transformer {
	if cfg.SrcVocab <= 0 || cfg.TgtVocab <= 0 || cfg.D <= 0 || cfg.Heads <= 0 || cfg.FF <= 0 || cfg.Layers <= 0 {
		panic(fmt.Sprintf("models: transformer sizes must be positive, got %+v", cfg))
	}
	if cfg.D%cfg.Heads != 0 {
		panic(fmt.Sprintf("models: transformer width d = %d is not a multiple of h = %d heads", cfg.D, cfg.Heads))
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, transformerInitStream))
	m := &Transformer{Config: cfg}
	m.SrcEmbed = NewEmbedding("E_x", cfg.SrcVocab, cfg.D, rng)
	m.TgtEmbed = NewEmbedding("E_y", cfg.TgtVocab, cfg.D, rng)
	for range cfg.Layers {
		m.Encoder = append(m.Encoder, &EncoderLayer{
			Self:  NewMultiHeadAttention(cfg.D, cfg.Heads, rng),
			Norm1: NewLayerNorm("", cfg.D), FFN: NewFeedForward(cfg.D, cfg.FF, rng), Norm2: NewLayerNorm("", cfg.D),
		})
	}
	for range cfg.Layers {
		m.Decoder = append(m.Decoder, &DecoderLayer{
			Self: NewMultiHeadAttention(cfg.D, cfg.Heads, rng), Norm1: NewLayerNorm("", cfg.D),
			Cross: NewMultiHeadAttention(cfg.D, cfg.Heads, rng), Norm2: NewLayerNorm("", cfg.D),
			FFN: NewFeedForward(cfg.D, cfg.FF, rng), Norm3: NewLayerNorm("", cfg.D),
		})
	}
	m.Out = &Dense{W: NewParam("W", cfg.D, cfg.TgtVocab), B: NewBias("b", cfg.TgtVocab)}
	Xavier(m.Out.W, rng)
	return m
}

// Params lists every parameter: the embeddings, encoder layers 1…N, decoder layers
// 1…N and the output layer, names prefixed by where they sit ("encoder1.self.W_1^Q").
func (m *Transformer) Params() Params {
	ps := Params{m.SrcEmbed.E, m.TgtEmbed.E}
	for i, l := range m.Encoder {
		ps = append(ps, l.Params().WithPrefix(fmt.Sprintf("encoder%d.", i+1))...)
	}
	for i, l := range m.Decoder {
		ps = append(ps, l.Params().WithPrefix(fmt.Sprintf("decoder%d.", i+1))...)
	}
	return append(ps, m.Out.W, m.Out.B)
}

// EncoderLayerTrace is one encoder layer's forward pass.
type EncoderLayerTrace struct {
	In    *mat.Dense // X, the layer's input
	Self  *MultiHeadTrace
	Norm1 *LayerNormTrace // Z = LN(X + MultiHead(X, X, X))
	FFN   *FeedForwardTrace
	Norm2 *LayerNormTrace // the output LN(Z + FFN(Z))
}

// DecoderLayerTrace is one decoder layer's forward pass.
type DecoderLayerTrace struct {
	In           *mat.Dense // Y, the layer's input
	Self, Cross  *MultiHeadTrace
	Norm1, Norm2 *LayerNormTrace // Z₁ and Z₂
	FFN          *FeedForwardTrace
	Norm3        *LayerNormTrace // the output
}

// EncoderTrace is the encoder's forward pass over one source sentence.
type EncoderTrace struct {
	Src    []int
	Layers []*EncoderLayerTrace
	Out    *mat.Dense // H, the last layer's output (n×d): the decoder's keys and values
}

// DecoderTrace is the decoder's forward pass over one input sequence.
type DecoderTrace struct {
	In     []int // <bos>, y_1, …: the decoder's inputs
	Layers []*DecoderLayerTrace
	Logits *mat.Dense // o_t' = Y_t' W + b, one row per input position (T'×V')
}

// Encode runs the encoder over src (ids in [0, V)). It returns an error for an empty
// source and panics on an id outside the vocabulary.
func (m *Transformer) Encode(src []int) (*EncoderTrace, error) {
	if len(src) == 0 {
		return nil, errors.New("models: transformer: empty source sentence")
	}
	tr, x := &EncoderTrace{Src: src}, m.positioned(m.SrcEmbed, src)
	for _, l := range m.Encoder {
		lt := &EncoderLayerTrace{In: x}
		lt.Self, lt.Norm1 = m.attention(l.Self, l.Norm1, x, x, nil)
		lt.FFN, lt.Norm2 = feedForward(l.FFN, l.Norm2, lt.Norm1.Out)
		tr.Layers = append(tr.Layers, lt)
		x = lt.Norm2.Out
	}
	tr.Out = x
	return tr, nil
}

// Decode runs the decoder over its inputs in (<bos> first) against the encoder's
// output enc, every position at once: with the causal mask, row t' of the logits
// depends only on in[0…t'].
func (m *Transformer) Decode(enc *EncoderTrace, in []int) (*DecoderTrace, error) {
	if len(in) == 0 {
		return nil, errors.New("models: transformer: empty decoder input")
	}
	var mask KeyMask
	if !m.Unmasked {
		mask = CausalMask
	}
	tr, y := &DecoderTrace{In: in}, m.positioned(m.TgtEmbed, in)
	for _, l := range m.Decoder {
		lt := &DecoderLayerTrace{In: y}
		lt.Self, lt.Norm1 = m.attention(l.Self, l.Norm1, y, y, mask)
		lt.Cross, lt.Norm2 = m.attention(l.Cross, l.Norm2, lt.Norm1.Out, enc.Out, nil)
		lt.FFN, lt.Norm3 = feedForward(l.FFN, l.Norm3, lt.Norm2.Out)
		tr.Layers = append(tr.Layers, lt)
		y = lt.Norm3.Out
	}
	tr.Logits = m.Out.Forward(y)
	return tr, nil
}

// sum is a + b in a new matrix (a residual connection).
func sum(a, b *mat.Dense) *mat.Dense {
	var s mat.Dense
	s.Add(a, b)
	return &s
}

// TeacherInput is the decoder's input under teacher forcing for labels y_1 … y_T':
// <bos>, y_1, …, y_{T'−1}.
func TeacherInput(labels []int) []int {
	if len(labels) == 0 {
		panic("models: teacher forcing of no labels")
	}
	return append([]int{BosID}, labels[:len(labels)-1]...)
}

// Forward runs the encoder over src and the decoder over TeacherInput(labels), and
// returns the summed cross-entropy Σ_t' −log P(y_t' | y_<t', x), both traces and
// ∂loss/∂o_t' (T'×V').
func (m *Transformer) Forward(src, labels []int) (loss float64, enc *EncoderTrace, dec *DecoderTrace, dLogits *mat.Dense, err error) {
	if len(labels) == 0 {
		return 0, nil, nil, nil, errors.New("models: transformer: empty target sentence")
	}
	if enc, err = m.Encode(src); err != nil {
		return 0, nil, nil, nil, err
	}
	if dec, err = m.Decode(enc, TeacherInput(labels)); err != nil {
		return 0, nil, nil, nil, err
	}
	loss, _, dLogits = SoftmaxCrossEntropy(dec.Logits, labels, nil)
	return loss, enc, dec, dLogits, nil
}

// Backward takes ∂L/∂o (the logits' gradient) for the traces of one Forward and adds
// the exact gradient of every parameter to its Grad.
func (m *Transformer) Backward(enc *EncoderTrace, dec *DecoderTrace, dLogits *mat.Dense) {
	dY := m.Out.Backward(dec.Layers[len(dec.Layers)-1].Norm3.Out, dLogits)
	n, d := enc.Out.Dims()
	dH := mat.NewDense(n, d, nil) // ∂L/∂H, from every decoder layer's keys and values
	for i := len(m.Decoder) - 1; i >= 0; i-- {
		l, lt := m.Decoder[i], dec.Layers[i]
		dZ2 := ffnBackward(l.Norm3, l.FFN, lt.Norm3, lt.FFN, dY)
		dZ1 := l.Norm2.Backward(lt.Norm2, dZ2)
		dq, dkv := l.Cross.Backward(lt.Cross, dZ1)
		dZ1.Add(dZ1, dq)
		dH.Add(dH, dkv)
		dY = selfAttentionBackward(l.Norm1, l.Self, lt.Norm1, lt.Self, dZ1)
	}
	m.TgtEmbed.Backward(dec.In, dY)
	dX := dH
	for i := len(m.Encoder) - 1; i >= 0; i-- {
		l, lt := m.Encoder[i], enc.Layers[i]
		dZ := ffnBackward(l.Norm2, l.FFN, lt.Norm2, lt.FFN, dX)
		dX = selfAttentionBackward(l.Norm1, l.Self, lt.Norm1, lt.Self, dZ)
	}
	m.SrcEmbed.Backward(enc.Src, dX)
}

// positioned is a layer stack's input: the embeddings of ids plus the positional
// encoding, X = E[ids] + PE.
func (m *Transformer) positioned(e *Embedding, ids []int) *mat.Dense {
	x := e.Forward(ids)
	x.Add(x, PositionalEncoding(len(ids), m.Config.D))
	return x
}

// attention is one attention sublayer with its residual connection and layer norm,
// Z = LN(Q + MultiHead(Q, KV, KV)), scaled by 1/√d_k unless the model is Unscaled.
func (m *Transformer) attention(att *MultiHeadAttention, norm *LayerNorm, q, kv *mat.Dense, mask KeyMask) (*MultiHeadTrace, *LayerNormTrace) {
	at := att.Forward(q, kv, mask, !m.Unscaled)
	return at, norm.Forward(sum(q, at.Out))
}

// feedForward is the feed-forward sublayer with its residual connection and layer
// norm, LN(Z + FFN(Z)).
func feedForward(ffn *FeedForward, norm *LayerNorm, z *mat.Dense) (*FeedForwardTrace, *LayerNormTrace) {
	ft := ffn.Forward(z)
	return ft, norm.Forward(sum(z, ft.Out))
}

// ffnBackward is ∂L/∂Z for out = LN(Z + FFN(Z)), given dOut = ∂L/∂out.
func ffnBackward(norm *LayerNorm, ffn *FeedForward, nt *LayerNormTrace, ft *FeedForwardTrace, dOut *mat.Dense) *mat.Dense {
	dZ := norm.Backward(nt, dOut)
	dZ.Add(dZ, ffn.Backward(ft, dZ))
	return dZ
}

// selfAttentionBackward is ∂L/∂X for Z = LN(X + MultiHead(X, X, X)), given dZ: the
// residual's share, the queries' and the keys' and values'.
func selfAttentionBackward(norm *LayerNorm, att *MultiHeadAttention, nt *LayerNormTrace, at *MultiHeadTrace, dZ *mat.Dense) *mat.Dense {
	dX := norm.Backward(nt, dZ)
	dq, dkv := att.Backward(at, dX)
	dX.Add(dX, dq)
	dX.Add(dX, dkv)
	return dX
}

// TrainStep takes one optimiser step on pairs (source ids, labels ending in <eos>):
// the gradient of the mean per-token cross-entropy over the minibatch, clipped to
// global norm clip (ClipGradNorm; 0 for none), then opt.Step and ZeroGrad. It returns
// the mean per-token loss. An empty pair returns an error before any update.
func (m *Transformer) TrainStep(src, labels [][]int, opt Optimizer, clip float64) (float64, error) {
	if len(src) == 0 || len(src) != len(labels) {
		return 0, fmt.Errorf("models: transformer: batch of %d sources and %d targets, want the same number > 0", len(src), len(labels))
	}
	tokens := 0
	for b := range src {
		if len(src[b]) == 0 || len(labels[b]) == 0 {
			return 0, fmt.Errorf("models: transformer: pair %d has an empty sentence", b)
		}
		tokens += len(labels[b])
	}
	ps := m.Params()
	var total float64
	for b := range src {
		loss, enc, dec, dLogits, err := m.Forward(src[b], labels[b])
		if err != nil {
			return 0, err
		}
		total += loss
		dLogits.Scale(1/float64(tokens), dLogits)
		m.Backward(enc, dec, dLogits)
	}
	if clip > 0 {
		if norm, _ := ClipGradNorm(ps, clip); math.IsNaN(norm) || math.IsInf(norm, 0) {
			ps.ZeroGrad()
			return math.NaN(), nil
		}
	}
	opt.Step(ps)
	ps.ZeroGrad()
	return total / float64(tokens), nil
}

// TransformerStep is one step of free (greedy) decoding: the decoder run over the
// inputs so far, <bos>, ŷ_1, …, ŷ_{t'−1}, and what its last position gives.
type TransformerStep struct {
	Probs  []float64 // P(y_t' | ŷ_<t', x), over the target vocabulary
	Output int       // ŷ_t' = argmax
	// Self[l][i] and Cross[l][i] are the last position's weights in decoder layer l,
	// head i: over the inputs <bos>, ŷ_1, …, ŷ_{t'−1} (length t') and over the source.
	Self, Cross [][][]float64
}

// FreeRun decodes src greedily, one output at a time, re-running the decoder over
// its own outputs so far, until <eos> or maxLen outputs. It returns the encoder's
// trace and every step. With the causal mask, the decoder's rows for earlier
// positions are the same at every step, so only the last one is new.
func (m *Transformer) FreeRun(src []int, maxLen int) (*EncoderTrace, []TransformerStep, error) {
	if maxLen <= 0 {
		return nil, nil, fmt.Errorf("models: transformer: decoding length %d, want > 0", maxLen)
	}
	enc, err := m.Encode(src)
	if err != nil {
		return nil, nil, err
	}
	in := []int{BosID}
	var steps []TransformerStep
	for len(steps) < maxLen {
		dec, err := m.Decode(enc, in)
		if err != nil {
			return nil, nil, err
		}
		last := len(in) - 1
		st := TransformerStep{Probs: make([]float64, m.Config.TgtVocab)}
		Softmax(st.Probs, dec.Logits.RawRowView(last))
		st.Output = Argmax(st.Probs)
		for _, lt := range dec.Layers {
			var self, cross [][]float64
			for i := range lt.Self.Weights {
				self = append(self, append([]float64(nil), lt.Self.Weights[i].RawRowView(last)...))
				cross = append(cross, append([]float64(nil), lt.Cross.Weights[i].RawRowView(last)...))
			}
			st.Self, st.Cross = append(st.Self, self), append(st.Cross, cross)
		}
		steps = append(steps, st)
		if st.Output == EosID {
			break
		}
		in = append(in, st.Output)
	}
	return enc, steps, nil
}

// Greedy decodes src greedily (FreeRun) and returns the outputs, <eos> included when
// it came within maxLen.
func (m *Transformer) Greedy(src []int, maxLen int) ([]int, error) {
	_, steps, err := m.FreeRun(src, maxLen)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(steps))
	for i, s := range steps {
		out[i] = s.Output
	}
	return out, nil
}
