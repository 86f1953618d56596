package models

// AttentionSeq2Seq is the GRU encoder-decoder with Bahdanau attention (lecture 002,
// "jointly learning to align and translate"): the encoder is Seq2Seq's, and at every
// decoder step t' the context is recomputed from all encoder states,
//
//	e_t'j = tanh(s_{t'−1} W_q + h_j W_k) vᵀ,  α_t'j = softmax_j(e_t'j),  c_t' = Σ_j α_t'j h_j
//	s_t'  = GRU([embedding(y_{t'−1}); c_t'], s_{t'−1}),  s_0 = h_T,  y_0 = <bos>
//	P(y_t' | y_<t', x) = softmax(s_t' W + b)
//
// The query is the previous decoder state s_{t'−1}; keys and values are h_1 … h_T,
// masked at each example's source length so <pad> gets weight exactly 0. DecodeTrace
// and DecoderState carry α_t'j for every step.
type AttentionSeq2Seq struct {
	EncoderDecoder
}

// NewAttentionSeq2Seq returns an AttentionSeq2Seq with weights drawn from cfg.Seed and
// cfg.Attention hidden units in the alignment network (0 means cfg.Hidden). A
// non-positive size panics.
func NewAttentionSeq2Seq(cfg Seq2SeqConfig) *AttentionSeq2Seq {
	return &AttentionSeq2Seq{newEncoderDecoder(cfg, true)}
}
