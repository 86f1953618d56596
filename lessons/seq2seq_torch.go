package lessons

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"unroll/models"
	"unroll/torchload"
	"unroll/zoo"
)

// seq2seqScript is the script of the translators' pages (encoder-decoder, seq2seq,
// attention, beam-search): the embeddings, the output layer and the attention's
// projections as torch.nn modules, the lectures' GRU written by hand (nn.GRU is
// reset-after), run over the page's source and the tokens the page feeds its decoder.
const seq2seqScript = "seq2seq.py"

// What seq2seq.py's H is, its metadata "H".
const (
	seq2seqHState = "h"    // the encoder's h_t at t = metadata "t" (the top layer's)
	seq2seqHProbs = "P"    // at decoder step t' = "t", each run's α_t'j (with attention) then P(y_t' | y_<t', x)
	seq2seqHLogP  = "logP" // log P(y | x) = Σ_t' log P(y_t' | y_<t', x) of each sequence fed
)

// seq2seqNet is an encoder-decoder's parts as seq2seq.py names them: encoder.embedding,
// encoder.rnn (layer k: weight_ih_l{k} …), decoder.embedding, decoder.rnn,
// decoder.attention (W_q, W_k, v, without attention none) and decoder.out.
type seq2seqNet struct {
	srcEmbed, tgtEmbed *models.Embedding
	encoder, decoder   []models.Cell // layer 1 first
	attention          *models.AdditiveAttention
	out                *models.Dense
}

// netOf is a one-layer encoder-decoder, with or without attention.
func netOf(m *models.EncoderDecoder) seq2seqNet {
	return seq2seqNet{srcEmbed: m.SrcEmbed, tgtEmbed: m.TgtEmbed, encoder: []models.Cell{m.Encoder},
		decoder: []models.Cell{m.Decoder}, attention: m.Attention, out: m.Out}
}

// stackNetOf is an L-layer encoder-decoder.
func stackNetOf(m *models.StackedSeq2Seq) seq2seqNet {
	return seq2seqNet{srcEmbed: m.SrcEmbed, tgtEmbed: m.TgtEmbed, encoder: m.Encoder, decoder: m.Decoder, out: m.Out}
}

// tensors is the net's state_dict: each embedding's E as nn.Embedding's weight (V × e),
// each GRU layer in nn.GRU's layout with one bias (lectureGRULayer), the attention's W_q and
// W_k as the weights of nn.Linear(h, a, bias=False), v as nn.Linear(a, 1, bias=False)'s
// (1 × a), and the output layer as nn.Linear(h, V).
func (n seq2seqNet) tensors() ([]*torchload.Tensor, error) {
	ts := []*torchload.Tensor{torchload.Matrix("encoder.embedding.weight", n.srcEmbed.E)}
	gru := func(prefix string, cells []models.Cell) error {
		for k, c := range cells {
			g, ok := c.(*models.GRU)
			if !ok {
				return fmt.Errorf("lessons: a %T in the encoder-decoder; seq2seq.py computes the lectures' GRUs", c)
			}
			ts = append(ts, lectureGRULayer(prefix, k, g)...)
		}
		return nil
	}
	if err := gru("encoder.rnn.", n.encoder); err != nil {
		return nil, err
	}
	ts = append(ts, torchload.Matrix("decoder.embedding.weight", n.tgtEmbed.E))
	if err := gru("decoder.rnn.", n.decoder); err != nil {
		return nil, err
	}
	if a := n.attention; a != nil {
		ts = append(ts, torchload.LinearWeight("decoder.attention.W_q.weight", a.Wq.Value),
			torchload.LinearWeight("decoder.attention.W_k.weight", a.Wk.Value),
			torchload.Matrix("decoder.attention.v.weight", a.V))
	}
	return append(ts, torchload.Linear("decoder.out.", n.out)...), nil
}

// seq2seqRead is what seq2seq.py reads besides the weights: the source x_1 … x_T, the
// sequences the page feeds the decoder after <bos> (a run's labels or outputs, or
// beam hypotheses), what H is (seq2seqH…) and t, the encoder's or the decoder's step.
type seq2seqRead struct {
	src   []int
	feeds [][]int
	what  string
	t     int
}

// seq2seqFile is the export of net for seq2seq.py, with tr's vocabularies in the
// metadata (the script prints the words it reads).
func seq2seqFile(net seq2seqNet, tr *zoo.Translator, r seq2seqRead, step int, H []float64) (PyTorchFile, error) {
	ts, err := net.tensors()
	if err != nil {
		return PyTorchFile{}, err
	}
	js := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	meta := map[string]string{
		"layers":       strconv.Itoa(len(net.encoder)),
		"attention":    strconv.FormatBool(net.attention != nil),
		"bos":          strconv.Itoa(models.BosID),
		"x":            js(r.src),
		"y":            js(r.feeds),
		"H":            r.what,
		"t":            strconv.Itoa(r.t),
		"source_vocab": js(tr.Src.List()),
		"target_vocab": js(tr.Tgt.List()),
	}
	return PyTorchFile{Tensors: ts, Meta: meta, Script: seq2seqScript, Step: step, H: H}, nil
}

// encDecPhase is what H is at step of a page whose steps are the encoder's t = 1 … T,
// the context c = h_T, then the decoder's t': h_t (h_T at the context), or the decoder's
// output at t'.
func encDecPhase(step, T int) (what string, t int) {
	if step <= T+1 {
		return seq2seqHState, min(step, T)
	}
	return seq2seqHProbs, step - T - 1
}

// outputsOf is each decoder step's output token.
func outputsOf(tr *models.DecodeTrace) []int {
	out := make([]int, len(tr.Steps))
	for i, s := range tr.Steps {
		out[i] = s.Output
	}
	return out
}

// PyTorchFile is the page's encoder-decoder (L layers, bundled or the seed's untrained
// weights drawn again) reading the page's source, its decoder fed its own greedy
// outputs; H is h_t on the encoder's steps (h_T at the context's) and
// P(y_t' | ŷ_<t', c) on the decoder's.
func (m *encDecModel) PyTorchFile(step int) (PyTorchFile, error) {
	tr := m.tr
	if m.weights == weightsUntrained { // the page kept none: the same seed draws the same weights
		tr = untrainedSeq2Seq(m.seed)
	}
	var net seq2seqNet
	if m.layers > 1 {
		net = stackNetOf(stackOf(tr, m.layers))
	} else {
		net = netOf(tr.Model)
	}
	step = exportStep(step, m.Steps())
	r := seq2seqRead{src: m.src, feeds: [][]int{outputsOf(m.run)}}
	r.what, r.t = encDecPhase(step, m.encSteps())
	if r.what == seq2seqHState {
		return seq2seqFile(net, tr, r, step, rowOf(m.run.Encoder[r.t-1]))
	}
	return seq2seqFile(net, tr, r, step, slices.Clone(m.run.Steps[r.t-1].Probs))
}

// PyTorchFile is the page's seq2seq model now (the checkpoint, the seed's untrained
// weights, or either trained on the page) reading the page's source; H is h_t on the
// encoder's steps (h_T at the context's), and on the decoder's P(y_t' | y_<t', c)
// under teacher forcing (fed the padded labels), then under free running (fed its own
// outputs) while it runs.
func (m *seq2seqModel) PyTorchFile(step int) (PyTorchFile, error) {
	tr := m.tr
	if tr.Model == nil { // untrained and not trained yet: the page kept no weights
		tr = untrainedSeq2Seq(m.seed)
	}
	tf, fr := m.traces()
	step = exportStep(step, m.Steps())
	r := seq2seqRead{src: m.src, feeds: [][]int{m.padded}}
	r.what, r.t = encDecPhase(step, m.encSteps())
	if r.what == seq2seqHState {
		return seq2seqFile(netOf(tr.Model), tr, r, step, rowOf(tf.Encoder[r.t-1]))
	}
	H := slices.Clone(tf.Steps[r.t-1].Probs)
	if r.t <= len(fr.Steps) {
		r.feeds = append(r.feeds, outputsOf(fr))
		H = append(H, fr.Steps[r.t-1].Probs...)
	}
	return seq2seqFile(netOf(tr.Model), tr, r, step, H)
}

// PyTorchFile is the attention model of the page's task (not the model without
// attention beside it) reading the page's source, its decoder fed its own greedy
// outputs; H at decoder step t' is α_t'j for j = 1 … T, then P(y_t' | ŷ_<t', x).
func (m *attentionModel) PyTorchFile(step int) (PyTorchFile, error) {
	return greedyFile(m.att, m.src.ids, step)
}

// PyTorchFile is the translator the trained mode searches (the toy's tables are no
// network: refused) reading the page's source; H is log P(y | x) of each hypothesis the
// page lists at its step: the kept and finished prefixes of beam step t in rank order,
// and at the last step the candidates ranked by score.
func (m *beamModel) PyTorchFile(step int) (PyTorchFile, error) {
	if m.tr == nil {
		return PyTorchFile{}, fmt.Errorf("the toy distribution is the tables typed on this page, not a network: choose the trained distribution to download the translator it searches")
	}
	step = exportStep(step, m.Steps())
	r := seq2seqRead{src: m.src, what: seq2seqHLogP, t: step}
	var H []float64
	if step <= len(m.res.Steps) {
		for _, n := range m.res.Steps[step-1].Expansions { // kept and finished only (compact)
			r.feeds, H = append(r.feeds, m.pathIDs(n.ID)), append(H, n.Cum)
		}
	} else {
		hyps, _ := m.ranked()
		for _, h := range hyps {
			r.feeds, H = append(r.feeds, h.Tokens), append(H, h.LogProb)
		}
	}
	return seq2seqFile(netOf(m.tr.Model), m.tr, r, step, H)
}
