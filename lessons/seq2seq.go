package lessons

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// Live training on the seq2seq page.
const (
	seq2seqEvalPairs  = 100  // held-out pairs scored while training: ~0.1 s, where the whole test split takes ~0.4 s
	seq2seqEvalEvery  = 25   // training steps between two held-out scores: about a second of training
	seq2seqSamples    = 3    // held-out sentences translated as samples, besides the page's own
	seq2seqTrainSeed  = 46   // the default seed: the bundled checkpoint's (TranslatorSpecs)
	seq2seqTrainShift = 0x5e // separates the minibatch stream from the initial weights of the same seed
	// seq2seqScratchLR is Adam's rate when the page trains from scratch: twice
	// TranslatorLR, so held-out BLEU passes 0.3 after ~250 minibatches instead of
	// ~375 (measured on seeds 1, 7, 46, 1000).
	seq2seqScratchLR = 0.01
	// seq2seqContinueLR is Adam's rate when the page continues the checkpoint: a
	// fresh Adam's first steps are about as large as the rate, and TranslatorLR
	// would undo the checkpoint (measured over 100 steps: loss 0.003 → 0.027, BLEU
	// 0.85 → 0.75); at a tenth of it the loss stays at 0.003.
	seq2seqContinueLR = zoo.TranslatorLR / 10
)

// Where the seq2seq page's training starts (its "start" parameter).
const (
	startCheckpoint = "checkpoint" // the bundled checkpoint: Train continues training it
	startScratch    = "scratch"    // untrained weights from the seed: Train trains from scratch
)

// The per-step loss arrays, named as the loss plot's legend shows them (not "loss",
// which the page's training curve reads).
const (
	stepLossArray   = "ℓ_t'"
	maskedLossArray = "m_t' ℓ_t'"
)

// seq2seqModel is the seq2seq page's sim.Model: one source sentence and its reference,
// the encoder's steps 1…T, the context (step T+1), then the decoder's steps t' = 1…L
// over the reference padded to L, each decoded twice: teacher-forced and free-running.
type seq2seqModel struct {
	// tr is the translator whose weights the page shows. Until the first TrainStep it
	// is the shared bundled checkpoint (read-only), or, untrained, the seed's
	// vocabularies only (WithoutWeights): everything the page shows of those weights
	// is computed at build. The first TrainStep gives it weights of its own to train
	// (copy-on-write, ownWeights).
	tr      *zoo.Translator
	weights string
	seed    uint64
	ckMeta  zoo.Meta // the checkpoint's metadata, nil when untrained

	srcTokens []string
	src       []int
	refText   string
	labels    []int     // y_1 … y_n, the last <eos>
	padded    []int     // labels padded with <pad> to L
	mask      []float64 // m_t' = 1 for t' ≤ n, 0 on padding

	tf, fr *models.DecodeTrace // nil after training: recomputed from the new weights

	// static is the page's static meta. Training updates its live entries (held-out
	// BLEU, samples, the translation; refreshLive), which the snapshot that follows
	// training shows.
	static map[string]any

	opt       *models.Adam
	rngSrc    *rand.PCG // rng's source, kept so that a fork continues the stream (fork.go)
	rng       *rand.Rand
	trained   int
	lossCurve lossCurve
	bleuCurve [][2]float64 // (training step, held-out BLEU), the first at step 0
}

func buildSeq2Seq(v sim.Values) (sim.Model, error) {
	m := &seq2seqModel{weights: weightsTrained, seed: uint64(v.Int("seed"))}
	if v.String("start") == startScratch {
		m.weights = weightsUntrained
	}
	var err error
	if m.tr, m.ckMeta, err = seq2seqWeights(m.weights, m.seed); err != nil { // the bundled one is shared and read-only: TrainStep trains a copy
		return nil, err
	}
	if m.src, m.srcTokens, err = m.tr.Source(v.String("source")); err != nil {
		return nil, err
	}
	m.refText = v.String("reference")
	if m.labels, err = m.tr.Target(m.refText); err != nil {
		return nil, err
	}
	L := v.Int("pad_to")
	if len(m.labels) > L {
		return nil, fmt.Errorf("the reference needs %d steps with <eos>; set \"pad to\" to at least %d or shorten it", len(m.labels), len(m.labels))
	}
	m.padded, _ = models.TruncatePad(m.labels, L, models.PadID)
	for _, b := range Mask(len(m.labels), L) {
		m.mask = append(m.mask, float64(b))
	}
	m.static = m.staticMeta()
	m.bleuCurve = [][2]float64{{0, m.startBLEU()}}
	m.refreshLive()
	if m.weights == weightsUntrained {
		m.tr = m.tr.WithoutWeights() // an idle page needs none of its 1.7 MB; TrainStep draws them again
	}
	return m, nil
}

// ownWeights is a translator whose weights are the page's own, to train: a copy of
// the bundled checkpoint, or the seed's untrained weights drawn again (the same
// weights the page was built with).
func (m *seq2seqModel) ownWeights() (*zoo.Translator, error) {
	if m.weights == weightsUntrained {
		return untrainedSeq2Seq(m.seed), nil
	}
	tr, _, err := zoo.LoadTranslator(seq2seqName)
	return tr, err
}

// traces runs the pair through the current weights: teacher-forced over the padded
// labels (so the loss at padding is visible before the mask zeros it) and free-running
// for at most L steps.
func (m *seq2seqModel) traces() (tf, fr *models.DecodeTrace) {
	if m.tf == nil {
		var err error
		if m.tf, err = m.tr.Model.TeacherForced(m.src, m.padded); err != nil {
			panic(err) // ids came from the vocabularies
		}
		if m.fr, err = m.tr.Model.FreeRun(m.src, len(m.padded)); err != nil {
			panic(err)
		}
	}
	return m.tf, m.fr
}

// Divergence is the first decoder step t' (1-based) at which free-running output
// differs from the reference labels (<eos> included), or 0 when it reproduces them.
func Divergence(fr *models.DecodeTrace, labels []int) int {
	for i, y := range labels {
		if i >= len(fr.Steps) || fr.Steps[i].Output != y {
			return i + 1
		}
	}
	return 0
}

func (m *seq2seqModel) encSteps() int { return len(m.srcTokens) }

// Passes: the encoder reads x_1..x_T, one step hands over the context c, then the
// decoder runs over the padded target, t′ = 1..num_steps.
func (m *seq2seqModel) Passes() []sim.Pass {
	return []sim.Pass{
		{Name: "encoder", Steps: m.encSteps(), Index: "t"},
		{Steps: 1, Stages: []string{"context c"}},
		{Name: "decoder", Steps: len(m.padded), Index: "t′"},
	}
}

func (m *seq2seqModel) Steps() int { return m.encSteps() + 1 + len(m.padded) }

// staticMeta is what stays fixed while the model trains, and the live entries'
// first values.
func (m *seq2seqModel) staticMeta() map[string]any {
	labels := m.tr.Tgt.Tokens(m.padded)
	columns := append(append(append([]string(nil), m.srcTokens...), "c"), labels...)
	n := len(m.labels)
	meta := map[string]any{
		"source":       m.srcTokens,
		"source_unk":   unknownFlags(m.src),
		"tokens":       columns, // one label per step: x_t, c, then the padded labels y_t'
		"enc_steps":    m.encSteps(),
		"labels":       labels,
		"mask":         m.mask,
		"reference":    m.tr.Words(m.labels),
		"pad_to":       len(m.padded),
		"valid_length": n,
		"hidden":       m.tr.Config.Hidden,
		"embed":        m.tr.Config.Embed,
		"dec_rows": []map[string]string{
			{"label": "teacher forcing", "input": "teacher_input", "output": "teacher_output", "correct": "teacher_correct", "state": "s", "topk": "topk"},
			{"label": "free running", "input": "free_input", "output": "free_output", "correct": "free_correct", "state": "s_free", "topk": "free_topk", "feedback": "true"},
		},
		"padding":   m.paddingTable(),
		"scored_on": fmt.Sprintf("held-out BLEU: greedy, on %d test pairs spread over the test split", seq2seqEvalPairs),
	}
	if u := unknownWords(m.srcTokens, m.src); u != "" {
		meta["unknown_words"] = u + " (read as <unk>)"
	}
	if m.weights == weightsTrained {
		meta["checkpoint_bleu"] = m.ckMeta.Float("test_bleu_greedy")
	}
	return meta
}

// paddingTable is the padding panel's table: the labels padded to L, the mask, and
// the teacher-forcing decoder input (<bos>, then the labels shifted right).
func (m *seq2seqModel) paddingTable() table {
	L := len(m.padded)
	head := make([]string, L)
	var ys, ms, ins []tableCell
	input := models.TeacherForcingInput(m.padded)
	for i := range L {
		head[i] = "t'=" + strconv.Itoa(i+1)
		ys = append(ys, m.tokenCell(m.padded[i]))
		mark := "on"
		if m.mask[i] == 0 {
			mark = "off"
		}
		ms = append(ms, tableCell{Text: strconv.Itoa(int(m.mask[i])), Mark: mark})
		ins = append(ins, m.tokenCell(input[i]))
	}
	return table{
		Title: fmt.Sprintf("the reference as labels, padded to T′ = %d (valid length L = %d)", L, len(m.labels)),
		Head:  head,
		Rows: []tableRow{
			{Label: "labels yₜ′", Cells: ys},
			{Label: "mask mₜ′", Cells: ms},
			{Label: "decoder input", Cells: ins},
		},
	}
}

// tokenCell is a target token as a table cell, specials and padding marked.
func (m *seq2seqModel) tokenCell(id int) tableCell {
	c := tableCell{Text: m.tr.Tgt.Token(id)}
	switch id {
	case models.PadID:
		c.Mark = "pad"
	case models.BosID, models.EosID:
		c.Mark = "special"
	case models.UnkID:
		c.Mark = "unk"
	}
	return c
}

// heldOutBLEU is greedy corpus BLEU on the scored test pairs (ScoredPairs).
func (m *seq2seqModel) heldOutBLEU() float64 {
	return m.tr.Evaluate(ScoredPairs(m.tr.Task), 1).BLEU
}

// ScoredPairs are the held-out pairs the seq2seq page scores while training:
// seq2seqEvalPairs test pairs spread evenly over the test split (every k-th), so
// short and long sentences, all kinds of grammar, are represented.
func ScoredPairs(task *zoo.TranslationTask) []data.Pair {
	n := min(seq2seqEvalPairs, len(task.Test))
	out := make([]data.Pair, n)
	for i := range out {
		out[i] = task.Test[i*len(task.Test)/n]
	}
	return out
}

// startScores caches the held-out BLEU of the weights a page starts from (the
// checkpoint, or a seed's untrained weights): 0.1–0.3 s to compute and the same for
// every build from those weights, so typing a sentence does not pay it again.
var startScores struct {
	sync.Mutex
	bleu map[string]float64
}

// startScoresLimit bounds the cache: a classroom uses a few seeds, not thousands.
const startScoresLimit = 64

// startBLEU is heldOutBLEU of the starting weights, from the cache when it can be.
func (m *seq2seqModel) startBLEU() float64 {
	key := weightsTrained
	if m.weights == weightsUntrained {
		key = fmt.Sprintf("%s/%d", weightsUntrained, m.seed)
	}
	startScores.Lock()
	b, ok := startScores.bleu[key]
	startScores.Unlock()
	if ok {
		return b
	}
	b = round4(m.heldOutBLEU())
	startScores.Lock()
	if startScores.bleu == nil || len(startScores.bleu) >= startScoresLimit {
		startScores.bleu = map[string]float64{}
	}
	startScores.bleu[key] = b
	startScores.Unlock()
	return b
}

// translationSample is one translation the page shows while training.
type translationSample struct {
	Source    string `json:"source"`
	Output    string `json:"output"`
	Reference string `json:"reference"`
}

// samples translates the page's sentence and seq2seqSamples held-out sentences spread
// over the test split.
func (m *seq2seqModel) samples() []translationSample {
	out := []translationSample{{Source: m.tr.Task.Join(m.srcTokens), Output: m.tr.Greedy(m.src), Reference: m.tr.Words(m.labels)}}
	test := m.tr.Task.Test
	for i := range seq2seqSamples {
		p := test[i*len(test)/seq2seqSamples]
		src, toks, err := m.tr.Source(p.En)
		if err != nil {
			panic(err)
		}
		out = append(out, translationSample{Source: m.tr.Task.Join(toks), Output: m.tr.Greedy(src), Reference: m.tr.Task.Join(m.tr.Task.Tokenize(p.Fr))})
	}
	return out
}

// refreshLive recomputes the static entries that training changes.
func (m *seq2seqModel) refreshLive() {
	tf, fr := m.traces()
	m.static["translation"] = m.tr.Words(fr.Outputs())
	m.static["held_out_bleu"] = round4(m.bleuCurve[len(m.bleuCurve)-1][1])
	m.static["bleu_curve"] = m.bleuCurve
	m.static["samples"] = m.samples()
	m.static["trained_steps"] = m.trained
	m.static["mean_loss"] = round4(maskedMean(tf, m.mask))
	if d := Divergence(fr, m.labels); d == 0 {
		m.static["first_divergence"] = "none: free running reproduces the reference"
	} else {
		m.static["first_divergence"] = fmt.Sprintf("t' = %d", d)
	}
	switch {
	case m.trained > 0 && m.weights == weightsTrained:
		m.static["weights"] = fmt.Sprintf("bundled checkpoint, then %d more training steps here", m.trained)
	case m.trained > 0:
		m.static["weights"] = fmt.Sprintf("trained from scratch here for %d steps (seed %d)", m.trained, m.seed)
	case m.weights == weightsTrained:
		m.static["weights"] = fmt.Sprintf("bundled checkpoint, %s training steps", m.ckMeta["steps"])
	default:
		m.static["weights"] = fmt.Sprintf("untrained: random initial weights (seed %d)", m.seed)
	}
}

// maskedMean is the training loss of the pair, Σ m_t' ℓ_t' / Σ m_t'.
func maskedMean(tf *models.DecodeTrace, mask []float64) float64 {
	sum, n := 0.0, 0.0
	for i, st := range tf.Steps {
		sum += mask[i] * st.Loss
		n += mask[i]
	}
	return sum / n
}

// Static is the page's static meta for the current weights: after training that
// stopped between two scorings, it scores the final weights first, so the BLEU,
// the samples and the translation all describe the same model.
func (m *seq2seqModel) Static() sim.Frame {
	if last := m.bleuCurve[len(m.bleuCurve)-1]; int(last[0]) != m.trained {
		m.bleuCurve = append(m.bleuCurve, [2]float64{float64(m.trained), round4(m.heldOutBLEU())})
		m.refreshLive()
	}
	return sim.Frame{Meta: m.static}
}

// At is step t's frame: the encoder's h_t (t ≤ T), the context c = h_T (t = T+1),
// then decoder step t' = t − T − 1 under teacher forcing and free running. The
// encoder's state stays h_T once it has read x_T, and c is an input of every decoder
// step, so both are in the context's and every decoder step's frame too.
func (m *seq2seqModel) At(t int) sim.Frame {
	tf, fr := m.traces()
	T := m.encSteps()
	if t <= T {
		h := rowOf(tf.Encoder[t-1])
		return sim.Frame{
			Arrays: []sim.Array{sim.Vector("h", h), sim.Vector("state", heatUnits(h))},
			Meta:   map[string]any{"phase": "encoder", "t": t, "reading": m.srcTokens[t-1]},
		}
	}
	hT := rowOf(tf.Encoder[T-1])
	c := append([]float64(nil), tf.Steps[0].Context.RawRowView(0)...)
	if t == T+1 {
		return sim.Frame{
			Arrays: []sim.Array{sim.Vector("h", hT), sim.Vector("c", c), sim.Vector("state", heatUnits(c))},
			Meta: map[string]any{"phase": "context",
				"context": fmt.Sprintf("c = h%s; both decoder runs start from s₀ = c", subscript(T))},
		}
	}
	tp := t - T - 1
	st := tf.Steps[tp-1]
	s := rowOf(st.Decoder)
	mask := m.mask[tp-1]
	meta := map[string]any{
		"phase": "decoder", "t'": tp,
		"label":          m.tr.Tgt.Token(m.padded[tp-1]),
		"mask":           mask,
		"teacher_input":  m.tr.Tgt.Token(st.Input),
		"teacher_output": m.tr.Tgt.Token(st.Output),
		"loss":           sig4(st.Loss),
		"loss_x_mask":    sig4(st.Loss * mask),
		"topk":           topKMeta(m.tr, st),
	}
	if mask == 1 {
		meta["teacher_correct"] = st.Output == m.padded[tp-1]
	}
	arrays := []sim.Array{sim.Vector("s", s), sim.Vector("state", heatUnits(s)), sim.Vector("h", hT), sim.Vector("c", c),
		sim.Vector(stepLossArray, []float64{st.Loss}), sim.Vector(maskedLossArray, []float64{st.Loss * mask})}
	if tp <= len(fr.Steps) {
		fs := fr.Steps[tp-1]
		meta["free_input"] = m.tr.Tgt.Token(fs.Input)
		meta["free_output"] = m.tr.Tgt.Token(fs.Output)
		meta["free_topk"] = topKMeta(m.tr, fs)
		if mask == 1 {
			meta["free_correct"] = fs.Output == m.padded[tp-1]
		}
		arrays = append(arrays, sim.Vector("s_free", rowOf(fs.Decoder)))
	} else {
		meta["free_output"] = "(stopped: it wrote <eos>)"
	}
	if d := Divergence(fr, m.labels); d == tp {
		meta["diverges_here"] = true
	}
	return sim.Frame{Arrays: arrays, Meta: meta}
}

// TrainStep is one Adam minibatch (Translator.TrainStep) on the current weights: from
// scratch when the page started untrained, continuing the checkpoint otherwise. The
// first call gives the page weights of its own (ownWeights): the shared checkpoint is
// never written. Every seq2seqEvalEvery steps it rescores held-out BLEU and the
// sample translations.
func (m *seq2seqModel) TrainStep() (sim.Frame, error) {
	if m.opt == nil {
		tr, err := m.ownWeights()
		if err != nil {
			return sim.Frame{}, err
		}
		m.tr = tr
		lr := seq2seqContinueLR
		if m.weights == weightsUntrained {
			lr = seq2seqScratchLR
		}
		m.opt = models.NewAdam(lr)
		m.rngSrc = rand.NewPCG(m.seed, seq2seqTrainShift)
		m.rng = rand.New(m.rngSrc)
	}
	loss := m.tr.TrainStep(m.opt, m.rng)
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return sim.Frame{}, fmt.Errorf("lessons: training diverged at step %d", m.trained+1)
	}
	m.trained++
	m.tf, m.fr = nil, nil
	if m.trained%seq2seqEvalEvery == 0 {
		m.bleuCurve = append(m.bleuCurve, [2]float64{float64(m.trained), round4(m.heldOutBLEU())})
		m.refreshLive()
	} else {
		m.static["trained_steps"] = m.trained
	}
	return sim.Frame{
		Arrays: []sim.Array{m.lossCurve.add(loss)},
		Meta: map[string]any{
			"loss": round4(loss), "trained_steps": m.trained,
			"held_out_bleu": m.static["held_out_bleu"], "bleu_curve": m.bleuCurve, "samples": m.static["samples"],
		},
	}, nil
}

// seq2seqStepLoss is the teacher-forced per-step loss against t', before and after the mask.
func seq2seqStepLoss(sm sim.Model) []Series {
	m := sm.(*seq2seqModel)
	tf, _ := m.traces()
	raw := Series{Label: `\(\ell_{t'} = -\log P(y_{t'})\)`}
	masked := Series{Label: `\(m_{t'}\,\ell_{t'}\)` + " (padding zeroed)"}
	for i, st := range tf.Steps {
		x := float64(i + 1)
		raw.X, raw.Y = append(raw.X, x), append(raw.Y, st.Loss)
		masked.X, masked.Y = append(masked.X, x), append(masked.Y, st.Loss*m.mask[i])
	}
	return []Series{raw, masked}
}

// seq2seqLabelProb is P(y_t') of the reference label under teacher forcing and the
// probability of its own choice under free running.
func seq2seqLabelProb(sm sim.Model) []Series {
	m := sm.(*seq2seqModel)
	tf, fr := m.traces()
	a := Series{Label: "teacher forcing: P(label)"}
	b := Series{Label: "free running: P(own choice)"}
	for i := range m.labels {
		a.X, a.Y = append(a.X, float64(i+1)), append(a.Y, tf.Steps[i].Probs[m.labels[i]])
	}
	for i, st := range fr.Steps {
		b.X, b.Y = append(b.X, float64(i+1)), append(b.Y, st.Probs[st.Output])
	}
	return []Series{a, b}
}

// encoderUnits is the first few units of the encoder's states h_t against t, the
// heatmap's encoder columns as curves.
func encoderUnits(trace func(sim.Model) *models.DecodeTrace) func(sim.Model) []Series {
	const units = 6 // enough curves to see them differ, few enough to tell apart
	return func(sm sim.Model) []Series {
		enc := trace(sm).Encoder
		out := make([]Series, units)
		for j := range out {
			out[j].Label = fmt.Sprintf("unit %d", j+1)
			for t, st := range enc {
				out[j].X = append(out[j].X, float64(t+1))
				out[j].Y = append(out[j].Y, st.Next.H.At(0, j))
			}
		}
		return out
	}
}

var seq2seqLesson = &Lesson{
	Slug:    "seq2seq",
	Short:   "Seq2seq",
	Section: "4.6",
	Title:   "Training a sequence-to-sequence model",
	Summary: "Teacher forcing against free-running prediction on one sentence, the per-step loss and the mask that zeros padding, and a GRU seq2seq trained live with held-out BLEU.",
	Prose: []string{
		`<b>Sequence to sequence learning</b> (Sutskever et al. 2014; Cho et al. 2014) builds the encoder-decoder from two RNNs, here GRUs. A seq2seq model is trained like a language model whose every prediction is also conditioned on the source: at decoder step \(t'\) the loss is \(\ell_{t'} = -\log P(y_{t'} \mid y_1, \dots, y_{t'-1}, \mathbf{c})\), the surprise at the reference token. Type a source sentence and its reference translation; the page runs the encoder over the source (steps \(t = 1 \dots T\)), forms the context \(\mathbf{c} = \mathbf{h}_T\), then decodes the same sentence in two ways, side by side. How \(\mathbf{c}\) reaches the decoder is a design choice: in some models it only sets the decoder's initial state \(\mathbf{s}_0\); in this one, as in the lecture's figure, it also enters the decoder's input at every step, next to the embedding of \(y_{t'-1}\).`,
		`<b>Teacher forcing</b> is how the model is trained: the decoder's input is the reference itself, shifted right by one with <code>&lt;bos&gt;</code> in front, so "ils regardent . &lt;eos&gt;" is read as "&lt;bos&gt; ils regardent .". Every step sees the correct history, whatever the model predicted before. <b>Free running</b> is how the model is used: the decoder reads <code>&lt;bos&gt;</code>, then its own previous output, and stops at <code>&lt;eos&gt;</code>. While free running agrees with the reference the two runs are identical; at the first step where it writes something else (marked in the diagram) its history is no longer the reference's, and every later step conditions on its own mistake. Training never shows the model such a history: this mismatch is called exposure bias. The default pair uses the other correct translation of "they": "elles regardent .". The trained model writes "ils" at \(t' = 1\), so free running diverges at once, while teacher forcing goes on feeding "elles"; compare the two top-5 lists at the later steps.`,
		`<b>Padding and the mask.</b> Sentences in a minibatch have different lengths, so the labels are padded with <code>&lt;pad&gt;</code> to a fixed length \(T'\). The model still computes a prediction at the padded steps (with the bundled weights the loss there is larger than at any valid step, since the model never learned to write <code>&lt;pad&gt;</code>), but the mask \(m_{t'}\), 1 on the valid length \(L\) and 0 on padding, multiplies those losses by zero, so padding adds nothing to the loss or the gradients. The loss plot shows both curves. The loss \(\mathcal{L}\) here is that of this one pair; for a minibatch both sums also run over its pairs (the data page shows that form), which is how every model on these pages trains.`,
		`<b>Training live.</b> Press <b>Train</b> to run Adam minibatches of 32 pairs (gradient norm clipped at 1; learning rate 0.01 from scratch; 0.0005 when continuing the checkpoint, because a fresh optimiser's first steps are as large as its rate and 0.005 would undo the trained weights). Start from <b>scratch</b> to train from random weights drawn from the seed; start from the <b>checkpoint</b> to continue training the bundled model. Pressing Train again always continues from the current weights. Every 25 steps the page translates 100 held-out test pairs (spread over the test split) greedily and reports their corpus BLEU (which counts the \(n\)-grams of each output that also occur in its reference, and penalises outputs shorter than the reference; the BLEU page works it out), with a few sample translations; the diagram, the losses and the top-5 lists follow the new weights when training stops. From scratch, BLEU on these pairs passes 0.3 after about 250 steps, well under a minute on one core.`,
	},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-h}{\mathbf{h}_t} = f(\mathbf{x}_t, \mathbf{h}_{t-1}), \quad \htmlClass{sym-c}{\mathbf{c}} = \mathbf{h}_T`, Symbols: []Symbol{{ID: "h", Array: "h"}, {ID: "c", Array: "c"}}},
		{TeX: `\text{teacher forcing: } \htmlClass{sym-s}{\mathbf{s}_{t'}} = g(y_{t'-1}, \mathbf{c}, \mathbf{s}_{t'-1}), \quad y_0 = \langle\mathrm{bos}\rangle`, Symbols: []Symbol{{ID: "s", Array: "s"}}},
		{TeX: `\text{free running: } \hat y_{t'} = \arg\max_v P(v \mid \hat y_1, \dots, \hat y_{t'-1}, \mathbf{c})`},
		{TeX: `\htmlClass{sym-loss}{\ell_{t'}} = -\log P(y_{t'} \mid y_1, \dots, y_{t'-1}, \mathbf{c})`, Symbols: []Symbol{{ID: "loss", Array: stepLossArray}}},
		{TeX: `\mathcal{L} = \frac{\sum_{t'=1}^{T'} m_{t'}\, \ell_{t'}}{\sum_{t'=1}^{T'} m_{t'}}, \quad m_{t'} = \begin{cases} 1 & t' \le L \\ 0 & t' > L \end{cases}`},
	},
	Arrays: []Array{
		{Name: "h", Label: `\(h_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "c", Label: `\(\mathbf{c}\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "s", Label: `\(s_{t'}\) (teacher forcing)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "s_free", Label: `\(s_{t'}\) (free running)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "state", Label: `\(h_t\), then \(s_{t'}\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "ℓ_t'", Label: `\(\ell_{t'}\)`, Axes: []Axis{Scalar}, PerStep: true},
		{Name: "m_t' ℓ_t'", Label: `\(m_{t'}\ell_{t'}\)`, Axes: []Axis{Scalar}, PerStep: true},
	},
	Loss:  "loss_curve",
	Stage: []string{"diagram", "step-loss"}, // the encoder has no loss: the diagram shows it reading, then the decoder writing
	Panels: []Panel{
		{ID: "diagram", Static: []string{"enc_steps", "dec_rows", "source", "tokens", "translation", "source_unk"}, Meta: []string{"teacher_input", "teacher_output", "teacher_correct", "free_input", "free_output", "free_correct", "mask", "label", "diverges_here"}, Kind: EncDec, Title: `encoder \(\to\) \(\mathbf{c}\) \(\to\) decoder, teacher-forced and free-running`, Arrays: []string{"h", "c", "s", "s_free"}, Scale: []float64{-1, 1}, Symbol: "c",
			Note: "Green: the label; orange: not the label; circled red: where free running first leaves the reference; red tokens: <unk>."},
		{ID: "padding", Static: []string{"padding"}, Kind: Table, Title: `labels padded to \(T'\), the mask \(m_{t'}\), the shifted decoder input`,
			Note: "Grey cells are padding: the mask is 0 there."},
		{ID: "step-loss", Kind: Line, Title: `per-step loss \(\ell_{t'}\) and \(m_{t'}\ell_{t'}\) (teacher forcing)`, Arrays: []string{stepLossArray, maskedLossArray}, Symbol: "loss",
			Note: "The decoder's steps follow the encoder's on the step axis. Where m = 1 the two curves coincide (orange over blue); at padded steps ℓ is large and m ℓ is 0."},
		{ID: "topks", Static: []string{"dec_rows"}, Meta: []string{"topk", "free_topk", "teacher_input", "free_input", "teacher_output", "free_output", "label", "phase"}, Kind: TopKs, Title: `\(P(y_{t'} \mid \dots)\): top 5 under each run`,
			Note: "Identical until the runs diverge; after that free running conditions on its own outputs."},
		{ID: "states", Static: []string{"tokens"}, Kind: Heatmap, Title: `hidden state at each step: \(\mathbf{h}_t\), \(\mathbf{c}\), then teacher-forced \(\mathbf{s}_{t'}\), units 1–32 of 64`, Arrays: []string{"state"}, Scale: []float64{-1, 1}, Symbol: "h"},
		{ID: "s", Kind: Bars, Title: `decoder state \(\mathbf{s}_{t'}\) at this step, both runs, all 64 units`, Arrays: []string{"s", "s_free"}, Legend: []string{"teacher forcing", "free running"}, Scale: []float64{-1, 1}, Symbol: "s",
			Note: "The two runs' states agree while both have read the same inputs; from the step after free running first writes something else, its history and its state differ."},
		{ID: "samples", Static: []string{"samples", "bleu_curve"}, Train: []string{"samples", "bleu_curve"}, Kind: Samples, Title: "held-out BLEU and sample translations (updated while training)",
			Note: "Corpus BLEU of greedy translations of 100 held-out test pairs, rescored every 25 training steps."},
	},
	Params: sim.Specs{
		{Name: "source", Label: "English source", Kind: sim.Text, Default: "They are watching .", MaxLen: 120, MaxLenWhy: translationWhy,
			Help: "The sentence the encoder reads."},
		{Name: "reference", Label: "French reference", Kind: sim.Text, Default: "Elles regardent .", MaxLen: 120, MaxLenWhy: translationWhy,
			Help: `The labels \(y_{t'}\) teacher forcing feeds in; <eos> is added.`},
		{Name: "pad_to", Label: "pad to length", Kind: sim.Int, Default: "8", Min: 4, Max: 2 * data.MaxSentenceTokens, Step: 1, Symbol: "T'",
			Help: "The fixed length the labels are padded to."},
		{Name: "start", Label: "start from", Kind: sim.Choice, Default: startCheckpoint, Choices: []string{startCheckpoint, startScratch},
			Help: "checkpoint: Train continues training the bundled model; scratch: random weights (from the seed), so Train trains from scratch. Train again to continue."},
		seedSpec(seq2seqTrainSeed, "The untrained weights and the minibatches training draws."),
	},
	Plots: []Plot{
		{Name: "step-loss", Title: "teacher-forced loss per decoder step, before and after the mask", XLabel: `decoder step \(t'\)`, YLabel: "loss (nats)", Series: seq2seqStepLoss},
		{Name: "label-probability", Title: "probability of the label (teacher forcing) and of the own choice (free running)", XLabel: `decoder step \(t'\)`, YLabel: "probability", Series: seq2seqLabelProb},
		{Name: "encoder-states", Title: `encoder hidden state \(h_t\), first units`, XLabel: `encoder step \(t\)`, YLabel: `\(h_{t,j}\)`,
			Series: encoderUnits(func(sm sim.Model) *models.DecodeTrace { tf, _ := sm.(*seq2seqModel).traces(); return tf })},
	},
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/seq2seq.html"), Scripts: []string{seq2seqScript}},
	Build:   buildSeq2Seq,
	Facts:   seq2seqFacts,
	Trains:  true,
	// 1000: about 4 ms a training step on one core since the fused pass (docs/measurements.md; 17 ms before), plus held-out BLEU every 25 steps; from scratch BLEU passes 0.3 after about 250.
	MaxTrained: 1000,
	Largest:    sim.Values{"source": longSentence, "reference": longReference, "pad_to": "20", "start": startScratch, "seed": "7"},
	// 630 KB measured on a 20-token pair padded to 20, from scratch, 188 KB at the defaults: the two traces, never the weights.
	SessionBytes: 960 << 10,
	// 3.4 MB measured: its own copy of the 108,000 weights, their gradients and Adam's two moments, and a loss curve of 1000 steps.
	TrainedBytes: 5376 << 10,
}

// seq2seqFacts labels the page's facts in the lecture's words.
var seq2seqFacts = factTable{
	static: []fact{
		{key: "translation", label: "translation (greedy)", keep: true},
		{key: "reference", label: "reference"},
		{key: "first_divergence", label: "free running leaves the reference at"},
		{key: "held_out_bleu", label: "held-out BLEU", measured: true},
		{key: "checkpoint_bleu", label: "held-out BLEU of the bundled weights, on the whole test split", measured: true},
		{key: "scored_on", label: "scored on"},
		{key: "mean_loss", label: `loss \(\mathcal{L}\) of this pair`, measured: true},
		{key: "valid_length", label: `valid length \(L\)`},
		{key: "pad_to", label: `padded to length \(T'\)`},
		{key: "embed", label: "embedding size"},
		{key: "hidden", label: "hidden units h"},
		{key: "enc_steps", label: "encoder steps", keep: true},
		{key: "trained_steps", label: "trained steps"},
		{key: "weights", label: "weights"},
	},
	step: []fact{
		{key: "phase", label: "phase", keep: true},
		{key: "t", label: "t"},
		{key: "reading", label: `reading \(x_t\)`},
		{key: "context", label: "context"},
		{key: "t'", label: "t′"},
		{key: "label", label: `label \(y_{t'}\)`, keep: true},
		{key: "teacher_input", label: "teacher forcing: input", keep: true},
		{key: "teacher_output", label: "teacher forcing: output", keep: true},
		{key: "teacher_correct", label: "teacher forcing: right", keep: true},
		{key: "free_input", label: "free running: input", keep: true},
		{key: "free_output", label: "free running: output", keep: true},
		{key: "free_correct", label: "free running: right", keep: true},
		{key: "diverges_here", label: "free running leaves the reference here", keep: true},
		{key: "loss", label: `\(\ell_{t'}\)`, measured: true},
		{key: "mask", label: `mask \(m_{t'}\)`, keep: true},
		{key: "loss_x_mask", label: `\(m_{t'} \ell_{t'}\)`, measured: true},
	},
}
