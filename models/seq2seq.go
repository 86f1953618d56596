package models

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Seq2SeqConfig sizes an encoder-decoder (lecture 4.6). Token ids follow vocab.go:
// <pad> = PadID, <bos> = BosID and <eos> = EosID in both vocabularies.
type Seq2SeqConfig struct {
	SrcVocab int // size of the source vocabulary
	TgtVocab int // size of the target vocabulary; must hold <bos> and <eos>
	Embed    int // e, the size of both embeddings
	Hidden   int // h, the hidden size of the encoder and decoder GRUs
	// Attention is a, the hidden units of the alignment network f_θ
	// (AttentionSeq2Seq only); 0 means Hidden.
	Attention int
	// Seed seeds the initial weights, drawn from rand.New(rand.NewPCG(Seed, Seed)):
	// the same Seed gives the same model.
	Seed uint64
}

// check panics unless every size is usable.
func (c Seq2SeqConfig) check() {
	if c.SrcVocab <= 0 || c.TgtVocab <= max(BosID, EosID, PadID) || c.Embed <= 0 || c.Hidden <= 0 || c.Attention < 0 {
		panic(fmt.Sprintf("models: seq2seq config %+v: want SrcVocab, Embed, Hidden > 0, TgtVocab > %d, Attention ≥ 0",
			c, max(BosID, EosID, PadID)))
	}
}

// Batch is B sentence pairs padded to rectangles, the layout Vocab.BuildArray makes:
// row b of Src is x_1 … x_T, of which the first SrcLen[b] are real and the rest
// <pad>; row b of Tgt is the labels y_1 … y_T', of which the first TgtLen[b] are real
// and end with <eos>. Padding takes no part in the loss or the gradients.
type Batch struct {
	Src    [][]int // B×T source ids
	SrcLen []int   // valid source lengths, 1 ≤ SrcLen[b] ≤ T
	Tgt    [][]int // B×T' label ids, <eos> at TgtLen[b]−1
	TgtLen []int   // valid label lengths, <eos> included, 1 ≤ TgtLen[b] ≤ T'
}

// NewBatch pads unpadded pairs (src[b], tgt[b]) with <pad> into a Batch. Each tgt[b]
// is the label sequence y_1 … y_T' and should end with <eos> so the model learns to
// stop. It returns an error for no pairs, unequal counts or an empty sequence.
func NewBatch(src, tgt [][]int) (Batch, error) {
	var b Batch
	if err := b.Fill(src, tgt); err != nil {
		return Batch{}, err
	}
	return b, nil
}

// Fill is NewBatch into b, reusing b's rows where they are large enough: a
// training loop that fills one Batch allocates nothing once its rows have grown.
// On an error b is left unusable.
func (b *Batch) Fill(src, tgt [][]int) error {
	if len(src) == 0 || len(src) != len(tgt) {
		return fmt.Errorf("models: batch of %d sources and %d targets, want the same number > 0", len(src), len(tgt))
	}
	var err error
	if b.Src, b.SrcLen, err = padRows("source", b.Src, b.SrcLen, src); err != nil {
		return err
	}
	b.Tgt, b.TgtLen, err = padRows("target", b.Tgt, b.TgtLen, tgt)
	return err
}

// padRows pads every row to the longest with PadID, into out and lens where they
// are large enough.
func padRows(what string, out [][]int, lens []int, rows [][]int) ([][]int, []int, error) {
	steps := 0
	for i, r := range rows {
		if len(r) == 0 {
			return nil, nil, fmt.Errorf("models: %s sequence %d is empty", what, i)
		}
		steps = max(steps, len(r))
	}
	out, lens = grow(out, len(rows)), grow(lens, len(rows))
	for i, r := range rows {
		out[i] = grow(out[i], steps)
		for t := copy(out[i], r); t < steps; t++ {
			out[i][t] = PadID
		}
		lens[i] = len(r) // a real PadID inside r still counts
	}
	return out, lens, nil
}

// Size is B, the number of pairs.
func (b Batch) Size() int { return len(b.Src) }

// Validate reports whether b is a well-formed batch for vocabularies of the given
// sizes: equal counts, rectangular rows, lengths within the rows, every id (padding
// included) inside its vocabulary.
func (b Batch) Validate(srcVocab, tgtVocab int) error {
	n := len(b.Src)
	if n == 0 || len(b.SrcLen) != n || len(b.Tgt) != n || len(b.TgtLen) != n {
		return fmt.Errorf("models: batch has %d sources, %d source lengths, %d targets, %d target lengths; want the same number > 0",
			len(b.Src), len(b.SrcLen), len(b.Tgt), len(b.TgtLen))
	}
	if err := checkRows("source", b.Src, b.SrcLen, srcVocab); err != nil {
		return err
	}
	return checkRows("target", b.Tgt, b.TgtLen, tgtVocab)
}

// checkRows checks one side of a batch.
func checkRows(what string, rows [][]int, lens []int, vocab int) error {
	steps := len(rows[0])
	for i, r := range rows {
		if len(r) != steps || steps == 0 {
			return fmt.Errorf("models: %s row %d has %d ids, want %d > 0 like row 0", what, i, len(r), steps)
		}
		if lens[i] < 1 || lens[i] > steps {
			return fmt.Errorf("models: %s length %d of row %d outside [1, %d]", what, lens[i], i, steps)
		}
		for t, id := range r {
			if id < 0 || id >= vocab {
				return fmt.Errorf("models: %s id %d at row %d step %d outside vocabulary [0, %d)", what, id, i, t+1, vocab)
			}
		}
	}
	return nil
}

// TeacherForcingInput is the decoder input under teacher forcing (lecture 4.6): <bos>
// followed by the labels shifted right by one, (y_1, …, y_T') → (<bos>, y_1, …, y_{T'−1}),
// so "ils regardent . <eos>" is fed as "<bos> ils regardent .".
func TeacherForcingInput(labels []int) []int {
	if len(labels) == 0 {
		return nil
	}
	return append([]int{BosID}, labels[:len(labels)-1]...)
}

// EncoderDecoder is the encoder-decoder architecture of lecture 4.6, the part Seq2Seq
// and AttentionSeq2Seq share: a GRU encoder h_t = f(x_t, h_{t−1}) over source
// embeddings, a GRU decoder s_t' = g([embedding(y_{t'−1}); c_t'], s_{t'−1}) with s_0
// the encoder's final state, and the output layer o_t' = s_t' W + b,
// P(y_t' | y_<t', x) = softmax(o_t'). The context c_t' is h_T at every step when
// Attention is nil, else Bahdanau attention over h_1 … h_T. Code that drives either
// model (training, traces, search) can take a *EncoderDecoder: &m.EncoderDecoder.
type EncoderDecoder struct {
	Config    Seq2SeqConfig      // the sizes it was built with; read-only
	SrcEmbed  *Embedding         // source embedding, SrcVocab×e
	Encoder   Cell               // GRU, input e, hidden h
	TgtEmbed  *Embedding         // target embedding, TgtVocab×e
	Decoder   Cell               // GRU, input e + h ([embedding; context]), hidden h
	Attention *AdditiveAttention // nil for Seq2Seq
	Out       *Dense             // h → TgtVocab logits

	params Params // built once so optimisers see the same list every step
}

// newEncoderDecoder draws every parameter from cfg.Seed.
func newEncoderDecoder(cfg Seq2SeqConfig, attention bool) EncoderDecoder {
	cfg.check()
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed))
	m := EncoderDecoder{
		Config:   cfg,
		SrcEmbed: NewEmbedding("E", cfg.SrcVocab, cfg.Embed, rng),
		Encoder:  NewGRU(cfg.Embed, cfg.Hidden, rng),
		TgtEmbed: NewEmbedding("E", cfg.TgtVocab, cfg.Embed, rng),
		Decoder:  NewGRU(cfg.Embed+cfg.Hidden, cfg.Hidden, rng),
	}
	var attn Params
	if attention {
		a := cfg.Attention
		if a == 0 {
			a = cfg.Hidden
		}
		m.Attention = NewAdditiveAttention(cfg.Hidden, cfg.Hidden, a, rng)
		attn = m.Attention.Params().WithPrefix("attn.")
	}
	m.Out = NewDense("", cfg.Hidden, cfg.TgtVocab, rng)
	m.params = append(m.params, m.SrcEmbed.Params().WithPrefix("src_embed.")...)
	m.params = append(m.params, m.Encoder.Params().WithPrefix("enc.")...)
	m.params = append(m.params, m.TgtEmbed.Params().WithPrefix("tgt_embed.")...)
	m.params = append(m.params, m.Decoder.Params().WithPrefix("dec.")...)
	m.params = append(m.params, attn...)
	m.params = append(m.params, m.Out.Params().WithPrefix("out.")...)
	return m
}

// Params lists every parameter under a unique checkpoint name, in this order:
// src_embed.E, enc.(GRU names), tgt_embed.E, dec.(GRU names), attn.W_q attn.W_k
// attn.v (attention only), out.W, out.b. The list is the same slice on every call and
// shares Value and Grad with the layers.
func (m *EncoderDecoder) Params() Params { return m.params }

// sourceEncoding is the encoder's pass over a batch.
type sourceEncoding struct {
	src    [][]int
	lens   []int
	steps  []*StepTrace // t = 1…T
	states []*mat.Dense // h_t = steps[t].Next.H, B×h
	final  *mat.Dense   // row b is h at step lens[b], the context c of Figure 14
}

// encode runs the encoder over every source step. Each example's context is its
// state at its own valid length, h_{SrcLen[b]}: the GRU also runs over the padding
// (rows are independent), but those later states are never used, so <pad> cannot
// change the context and receives no gradient.
func (m *EncoderDecoder) encode(src [][]int, lens []int) *sourceEncoding {
	batch, steps := len(src), len(src[0])
	enc := &sourceEncoding{src: src, lens: lens, steps: make([]*StepTrace, steps), states: make([]*mat.Dense, steps)}
	h := mat.NewDense(batch, m.Config.Hidden, nil)
	for t := 0; t < steps; t++ {
		tr := m.Encoder.Step(m.SrcEmbed.Forward(batchColumn(src, t)), State{H: h})
		enc.steps[t], enc.states[t] = tr, tr.Next.H
		h = tr.Next.H
	}
	enc.final = mat.NewDense(batch, m.Config.Hidden, nil)
	for b, n := range lens {
		enc.final.SetRow(b, enc.states[n-1].RawRowView(b))
	}
	return enc
}

// encodeBackward back-propagates ∂L/∂c (dFinal, row b for h_{lens[b]}) and ∂L/∂h_t
// from attention (dStates, may be nil) through the encoder and the source embedding.
func (m *EncoderDecoder) encodeBackward(enc *sourceEncoding, dFinal *mat.Dense, dStates []*mat.Dense) {
	batch := len(enc.src)
	dH := mat.NewDense(batch, m.Config.Hidden, nil)
	for t := len(enc.steps) - 1; t >= 0; t-- {
		if dStates != nil {
			dH.Add(dH, dStates[t])
		}
		for b, n := range enc.lens {
			if n-1 == t {
				row := dH.RawRowView(b)
				for i, g := range dFinal.RawRowView(b) {
					row[i] += g
				}
			}
		}
		dX, dPrev := m.Encoder.StepBack(enc.steps[t], dH, nil)
		m.SrcEmbed.Backward(batchColumn(enc.src, t), dX)
		dH = mat.DenseCopyOf(dPrev.H)
	}
}

// decoderStep is one decoder step for a batch.
type decoderStep struct {
	input   []int           // y_{t'−1} per example
	attn    *AttentionTrace // nil without attention
	context *mat.Dense      // c or c_t', B×h
	cell    *StepTrace      // X = [embedding; context], Next.H = s_t'
	logits  *mat.Dense      // o_t', B×TgtVocab
}

// decodeStep computes s_t' = g([embedding(y_{t'−1}); c_t'], s_{t'−1}) and o_t'.
func (m *EncoderDecoder) decodeStep(enc *sourceEncoding, prev *mat.Dense, input []int) *decoderStep {
	st := &decoderStep{input: input, context: enc.final}
	if m.Attention != nil {
		st.attn = m.Attention.Forward(prev, enc.states, enc.lens)
		st.context = st.attn.Context
	}
	x := joinDecoderInput(m.TgtEmbed.Forward(input), st.context)
	st.cell = m.Decoder.Step(x, State{H: prev})
	st.logits = m.Out.Forward(st.cell.Next.H)
	return st
}

// teacherForcing is a forward pass over a batch with the labels as decoder inputs.
type teacherForcing struct {
	enc      *sourceEncoding
	steps    []*decoderStep
	probs    []*mat.Dense // softmax(o_t'), B×TgtVocab
	dLogits  []*mat.Dense // ∂(Σ loss)/∂o_t', zero rows on padding
	stepLoss [][]float64  // [t'][b] −log P(y_t'), 0 on padding
	labelLoss
}

// labelLoss is a teacher-forced pass's loss: Σ over the valid labels of −log P(y_t')
// and the number of valid labels, Σ_b TgtLen[b].
type labelLoss struct {
	loss   float64
	tokens int
}

// mean is the training loss, the mean of −log P(y_t') over the valid labels.
func (l labelLoss) mean() float64 { return l.loss / float64(l.tokens) }

// backwardMean runs backward with scale = 1/tokens, the mean's share of each label's
// gradient, and returns the mean loss.
func (l labelLoss) backwardMean(backward func(scale float64)) float64 {
	scale := 1 / float64(l.tokens)
	backward(scale)
	return l.loss * scale
}

// forward runs the encoder and the teacher-forced decoder over b.
func (m *EncoderDecoder) forward(b Batch) *teacherForcing {
	if err := b.Validate(m.Config.SrcVocab, m.Config.TgtVocab); err != nil {
		panic(err.Error())
	}
	fp := &teacherForcing{enc: m.encode(b.Src, b.SrcLen)}
	batch, steps := b.Size(), len(b.Tgt[0])
	s := fp.enc.final // s_0 = h_T
	input := make([]int, batch)
	for i := range input {
		input[i] = BosID
	}
	mask := make([]float64, batch)
	for t := 0; t < steps; t++ {
		st := m.decodeStep(fp.enc, s, input)
		labels := batchColumn(b.Tgt, t)
		for i, n := range b.TgtLen {
			mask[i] = 0
			if t < n {
				mask[i] = 1
			}
		}
		loss, probs, dLogits := SoftmaxCrossEntropy(st.logits, labels, mask)
		perExample := make([]float64, batch)
		logProbs := make([]float64, m.Config.TgtVocab)
		for i, y := range labels {
			if mask[i] != 0 {
				LogSoftmax(logProbs, st.logits.RawRowView(i))
				perExample[i] = -logProbs[y]
			}
		}
		fp.steps = append(fp.steps, st)
		fp.probs = append(fp.probs, probs)
		fp.dLogits = append(fp.dLogits, dLogits)
		fp.stepLoss = append(fp.stepLoss, perExample)
		fp.loss += loss
		s, input = st.cell.Next.H, labels
	}
	for _, n := range b.TgtLen {
		fp.tokens += n
	}
	return fp
}

// backward accumulates ∂(scale·Σ loss)/∂θ into every parameter's Grad: through the
// output layer, the decoder (s_t' and the context of every step), the attention, the
// encoder and both embeddings.
func (m *EncoderDecoder) backward(fp *teacherForcing, scale float64) {
	batch, hidden := len(fp.enc.src), m.Config.Hidden
	dS := mat.NewDense(batch, hidden, nil)     // ∂L/∂s_t' from later steps
	dFinal := mat.NewDense(batch, hidden, nil) // ∂L/∂c: s_0 and the fixed context
	var dStates []*mat.Dense                   // ∂L/∂h_j through attention
	if m.Attention != nil {
		dStates = make([]*mat.Dense, len(fp.enc.states))
		for j := range dStates {
			dStates[j] = mat.NewDense(batch, hidden, nil)
		}
	}
	for t := len(fp.steps) - 1; t >= 0; t-- {
		st := fp.steps[t]
		var dLogits mat.Dense
		dLogits.Scale(scale, fp.dLogits[t])
		dH := m.Out.Backward(st.cell.Next.H, &dLogits)
		dH.Add(dH, dS)
		dX, dPrev := m.Decoder.StepBack(st.cell, dH, nil)
		dEmbed, dContext := splitDecoderInput(dX, m.Config.Embed)
		m.TgtEmbed.Backward(st.input, dEmbed)
		dS = mat.DenseCopyOf(dPrev.H)
		if st.attn == nil {
			dFinal.Add(dFinal, dContext)
			continue
		}
		dQuery, dKeys := m.Attention.Backward(st.attn, dContext)
		dS.Add(dS, dQuery)
		for j, dk := range dKeys {
			dStates[j].Add(dStates[j], dk)
		}
	}
	dFinal.Add(dFinal, dS) // s_0 = h_T
	m.encodeBackward(fp.enc, dFinal, dStates)
}

// Loss is the training loss on b: the mean over every valid label of
// −log P(y_t' | y_<t', x), teacher-forced, so <pad> positions contribute nothing.
// A malformed batch (see Batch.Validate) panics.
func (m *EncoderDecoder) Loss(b Batch) float64 {
	return m.forward(b).mean()
}

// LossAndGrad returns Loss(b) and adds its gradient with respect to every parameter
// to Params()[i].Grad (call Params().ZeroGrad first to start afresh). A Seq2Seq of
// lecture-form GRUs runs the fused pass of seq2seq_train.go, which computes the
// numbers of LossAndGradSteps up to the order of floating-point sums; any other
// model runs LossAndGradSteps.
func (m *EncoderDecoder) LossAndGrad(b Batch) float64 {
	if !m.fusedTraining() {
		return m.LossAndGradSteps(b)
	}
	p := seq2seqPasses.Get().(*seq2seqPass)
	loss := p.lossAndGrad(m, b)
	p.enc.release()
	p.dec.release()
	seq2seqPasses.Put(p)
	return loss
}

// LossAndGradSteps is LossAndGrad by the step-by-step forward and backward passes
// (decodeStep, Cell.Step and StepBack at every step, padding included) for every
// model.
func (m *EncoderDecoder) LossAndGradSteps(b Batch) float64 {
	fp := m.forward(b)
	return fp.backwardMean(func(scale float64) { m.backward(fp, scale) })
}

// TrainStep is one update: zero the gradients, LossAndGrad(b), clip the global
// gradient norm to clip (no clipping when clip ≤ 0), opt.Step. It returns the loss,
// the gradient norm before clipping and whether it clipped. A NaN or infinite
// gradient norm skips the update.
func (m *EncoderDecoder) TrainStep(b Batch, opt Optimizer, clip float64) (loss, gradNorm float64, clipped bool) {
	return m.trainStep(b, opt, clip, false)
}

// trainStep is TrainStep with LossAndGradSteps when steps is set, else LossAndGrad.
func (m *EncoderDecoder) trainStep(b Batch, opt Optimizer, clip float64, steps bool) (loss, gradNorm float64, clipped bool) {
	lossAndGrad := m.LossAndGrad
	if steps {
		lossAndGrad = m.LossAndGradSteps
	}
	return Update(m.params, opt, clip, func() float64 { return lossAndGrad(b) })
}

// DecodeTrace is one sentence through the model, every step kept for the pages.
type DecodeTrace struct {
	Source        []int
	TeacherForced bool         // labels fed as inputs (true) or the model's own outputs
	Encoder       []*StepTrace // t = 1…T: X = embedding(x_t), gates R Z H_tilde, Next.H = h_t
	Steps         []DecodeStep // t' = 1, 2, …
	Loss          float64      // Σ_t' Steps[t'].Loss
}

// DecodeStep is one decoder step t' of a DecodeTrace.
type DecodeStep struct {
	Input     int        // y_{t'−1}: <bos> first, then the label or the previous Output
	Decoder   *StepTrace // X = [embedding(y_{t'−1}); c_t'], gates R Z H_tilde, Next.H = s_t'
	Context   *mat.Dense // c_t', 1×h: h_T every step (Seq2Seq) or Σ_j α_t'j h_j (attention)
	Attention []float64  // α_t'j for j = 1…T; nil without attention
	Probs     []float64  // P(y_t' = v | y_<t', x) for every target id v
	Output    int        // argmax_v Probs, the greedy choice
	Target    int        // the label y_t' when teacher-forced, −1 when free-running
	Loss      float64    // −log P(Target) when teacher-forced, −log P(Output) when free-running
}

// TokenProb is a token id and its probability.
type TokenProb struct {
	ID   int
	Prob float64
}

// TopK returns the k most probable tokens of the step, most probable first (ties by
// smaller id).
func (s DecodeStep) TopK(k int) []TokenProb {
	all := make([]TokenProb, len(s.Probs))
	for id, p := range s.Probs {
		all[id] = TokenProb{ID: id, Prob: p}
	}
	slices.SortStableFunc(all, func(a, b TokenProb) int { return cmp.Compare(b.Prob, a.Prob) })
	return all[:min(max(k, 0), len(all))]
}

// Outputs is the greedy output sequence: each step's Output, stopping before <eos>.
func (tr *DecodeTrace) Outputs() []int {
	return beforeEos(tr.Steps, func(s DecodeStep) int { return s.Output })
}

// beforeEos is the ids that steps wrote (output of each), up to and without <eos>.
func beforeEos[S any](steps []S, output func(S) int) []int {
	var out []int
	for _, s := range steps {
		if output(s) == EosID {
			break
		}
		out = append(out, output(s))
	}
	return out
}

// Alignment is the attention heatmap, T'×T with row t' holding α_t'j; nil without
// attention.
func (tr *DecodeTrace) Alignment() *mat.Dense {
	if len(tr.Steps) == 0 || tr.Steps[0].Attention == nil {
		return nil
	}
	a := mat.NewDense(len(tr.Steps), len(tr.Steps[0].Attention), nil)
	for i, s := range tr.Steps {
		a.SetRow(i, s.Attention)
	}
	return a
}

// TeacherForced runs one pair through the model the way training does: the decoder
// reads <bos> then the labels tgt (which should end with <eos>), and each step
// records its loss −log P(y_t'). It returns an error for an empty sequence or an id
// outside its vocabulary.
func (m *EncoderDecoder) TeacherForced(src, tgt []int) (*DecodeTrace, error) {
	if err := checkSentence("source", src, m.Config.SrcVocab); err != nil {
		return nil, err
	}
	if err := checkSentence("target", tgt, m.Config.TgtVocab); err != nil {
		return nil, err
	}
	fp := m.forward(Batch{Src: [][]int{src}, SrcLen: []int{len(src)}, Tgt: [][]int{tgt}, TgtLen: []int{len(tgt)}})
	tr := &DecodeTrace{Source: src, TeacherForced: true, Encoder: fp.enc.steps}
	for t, st := range fp.steps {
		step := m.traceStep(st)
		step.Target = tgt[t]
		step.Loss = fp.stepLoss[t][0]
		tr.Steps = append(tr.Steps, step)
		tr.Loss += step.Loss
	}
	return tr, nil
}

// FreeRun decodes src greedily, as at prediction time (lecture 4.6, Figure 15): the
// decoder reads <bos>, then each step's most probable token, stopping after <eos> or
// maxLen steps. It returns an error for an empty source, an id outside the vocabulary
// or maxLen < 1.
func (m *EncoderDecoder) FreeRun(src []int, maxLen int) (*DecodeTrace, error) {
	if err := checkSentence("source", src, m.Config.SrcVocab); err != nil {
		return nil, err
	}
	if maxLen < 1 {
		return nil, fmt.Errorf("models: maximum output length %d, want ≥ 1", maxLen)
	}
	enc := m.encode([][]int{src}, []int{len(src)})
	tr := &DecodeTrace{Source: src, Encoder: enc.steps}
	s, last := enc.final, BosID
	for len(tr.Steps) < maxLen {
		st := m.decodeStep(enc, s, []int{last})
		step := m.traceStep(st)
		step.Target = -1
		step.Loss = -logProbOf(st.logits.RawRowView(0), step.Output)
		tr.Steps = append(tr.Steps, step)
		tr.Loss += step.Loss
		if step.Output == EosID {
			break
		}
		s, last = st.cell.Next.H, step.Output
	}
	return tr, nil
}

// Greedy is greedy decoding: FreeRun(src, maxLen).Outputs(), the output without <eos>.
func (m *EncoderDecoder) Greedy(src []int, maxLen int) ([]int, error) {
	tr, err := m.FreeRun(src, maxLen)
	if err != nil {
		return nil, err
	}
	return tr.Outputs(), nil
}

// traceStep turns row 0 of a decoder step into a DecodeStep (Target and Loss unset).
func (m *EncoderDecoder) traceStep(st *decoderStep) DecodeStep {
	step := DecodeStep{
		Input:   st.input[0],
		Decoder: st.cell,
		Context: st.context,
		Probs:   make([]float64, m.Config.TgtVocab),
	}
	Softmax(step.Probs, st.logits.RawRowView(0))
	for id, p := range step.Probs {
		if p > step.Probs[step.Output] {
			step.Output = id
		}
	}
	if st.attn != nil {
		step.Attention = append([]float64(nil), st.attn.Weights.RawRowView(0)...)
	}
	return step
}

// logProbOf is log softmax(o)[id].
func logProbOf(logits []float64, id int) float64 {
	lp := make([]float64, len(logits))
	LogSoftmax(lp, logits)
	return lp[id]
}

// DecoderState is the decoder between search steps: s_t' and, with attention, the
// weights α_t'j of the step that produced it (nil for the start state and without
// attention). Search steps never modify a DecoderState, so hypotheses may share one.
type DecoderState struct {
	S         *mat.Dense // s_t', 1×h
	Attention []float64
}

// Searcher encodes src once and returns the decoder's start state s_0 = h_T and a
// StepFunc that, given a state and the last token y_{t'−1}, returns
// log P(y_t' = v | y_<t', x) for every target id v and the next state — what
// Greedy, BeamSearch and Exhaustive in beam.go search over. It returns an error for
// an empty source or an id outside the vocabulary.
func (m *EncoderDecoder) Searcher(src []int) (DecoderState, StepFunc[DecoderState], error) {
	if err := checkSentence("source", src, m.Config.SrcVocab); err != nil {
		return DecoderState{}, nil, err
	}
	enc := m.encode([][]int{src}, []int{len(src)})
	step := func(state DecoderState, last int) ([]float64, DecoderState) {
		st := m.decodeStep(enc, state.S, []int{last})
		logProbs := make([]float64, m.Config.TgtVocab)
		LogSoftmax(logProbs, st.logits.RawRowView(0))
		next := DecoderState{S: st.cell.Next.H}
		if st.attn != nil {
			next.Attention = append([]float64(nil), st.attn.Weights.RawRowView(0)...)
		}
		return logProbs, next
	}
	return DecoderState{S: enc.final}, step, nil
}

// checkSentence reports an empty sentence or an id outside [0, vocab).
func checkSentence(what string, ids []int, vocab int) error {
	if len(ids) == 0 {
		return fmt.Errorf("models: empty %s sentence", what)
	}
	for t, id := range ids {
		if id < 0 || id >= vocab {
			return fmt.Errorf("models: %s id %d at position %d outside vocabulary [0, %d)", what, id, t+1, vocab)
		}
	}
	return nil
}

// batchColumn is the ids at step t of every row.
func batchColumn(rows [][]int, t int) []int {
	col := make([]int, len(rows))
	for b, r := range rows {
		col[b] = r[t]
	}
	return col
}

// joinDecoderInput is [embedding ; context], B×(e+h).
func joinDecoderInput(embed, context *mat.Dense) *mat.Dense {
	batch, e := embed.Dims()
	_, h := context.Dims()
	x := mat.NewDense(batch, e+h, nil)
	x.Slice(0, batch, 0, e).(*mat.Dense).Copy(embed)
	x.Slice(0, batch, e, e+h).(*mat.Dense).Copy(context)
	return x
}

// splitDecoderInput splits ∂L/∂[embedding ; context] after column e.
func splitDecoderInput(dX *mat.Dense, e int) (dEmbed, dContext *mat.Dense) {
	batch, width := dX.Dims()
	return mat.DenseCopyOf(dX.Slice(0, batch, 0, e)), mat.DenseCopyOf(dX.Slice(0, batch, e, width))
}

// Seq2Seq is the GRU encoder-decoder of lecture 4.6, Figure 14:
//
//	encoder  h_t  = GRU(embedding(x_t), h_{t−1}),  h_0 = 0,  c = h_T
//	decoder  s_t' = GRU([embedding(y_{t'−1}); c], s_{t'−1}),  s_0 = c,  y_0 = <bos>
//	output   P(y_t' | y_<t', c) = softmax(s_t' W + b)
//
// The context c is the encoder's final hidden state, used both to initialise the
// decoder and as part of its input at every step. With padded sources, h_T is taken
// at each example's own valid length.
type Seq2Seq struct {
	EncoderDecoder
}

// NewSeq2Seq returns a Seq2Seq with weights drawn from cfg.Seed. A non-positive size
// panics.
func NewSeq2Seq(cfg Seq2SeqConfig) *Seq2Seq {
	return &Seq2Seq{newEncoderDecoder(cfg, false)}
}
