package lessons

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
	"unroll/torchload"
)

// transformerScript is the transformer page's script in lessons/pytorch.
const transformerScript = "transformer.py"

// PyTorchFile is the page's Transformer (the masked or the unmasked model, with or
// without 1/√d_k) at decoding step t′ (0 or past the end: the last) for
// lessons/pytorch/transformer.py: its parameters under the names of transformerTensors;
// in the metadata its sizes, the page's two switches, the source's ids and the
// decoder's inputs ⟨bos⟩, ŷ_1, …, ŷ_{t′−1}; and H = P(y_t′ | ŷ_<t′, x), the page's
// softmax at t′.
func (m *transformerModel) PyTorchFile(step int) (PyTorchFile, error) {
	if step == 0 || step > len(m.steps) {
		step = len(m.steps)
	}
	in := []int{models.BosID}
	for _, s := range m.steps[:step-1] {
		in = append(in, s.Output)
	}
	src, _ := json.Marshal(m.src.ids)
	dec, _ := json.Marshal(in)
	c := m.model.Config
	meta := map[string]string{
		"d_model":         strconv.Itoa(c.D),
		"nhead":           strconv.Itoa(c.Heads),
		"dim_feedforward": strconv.Itoa(c.FF),
		"num_layers":      strconv.Itoa(c.Layers),
		"src_vocab":       strconv.Itoa(c.SrcVocab),
		"tgt_vocab":       strconv.Itoa(c.TgtVocab),
		"layer_norm_eps":  strconv.FormatFloat(models.LayerNormEps, 'g', -1, 64),
		"mask":            strconv.FormatBool(!m.model.Unmasked),
		"scale":           strconv.FormatBool(!m.model.Unscaled),
		"source":          string(src),
		"decoder_inputs":  string(dec),
	}
	return PyTorchFile{Tensors: transformerTensors(m.model), Meta: meta, Script: transformerScript, Step: step,
		H: slices.Clone(m.steps[step-1].Probs)}, nil
}

// transformerTensors is t's state_dict as transformer.py's modules name it:
// src_embedding.weight and tgt_embedding.weight (torch.nn.Embedding, V × d); for
// encoder layer l, encoder.{l}.self_attn.{W_Q,W_K,W_V,W_O}.weight, norm1 and norm2
// (nn.LayerNorm's weight γ and bias β) and linear1, linear2 (the FFN's W⁽¹⁾, b⁽¹⁾ and
// W⁽²⁾, b⁽²⁾ as nn.Linear); for decoder layer l the same with cross_attn and norm3;
// and out (nn.Linear, W and b). An attention's W_Q is the nn.Linear without bias that
// computes X [W_1^Q … W_h^Q], so rows i·d_k … (i+1)·d_k − 1 of its weight are
// (W_{i+1}^Q)ᵀ, as in torch.nn.MultiheadAttention; W_O's weight is (W^O)ᵀ.
func transformerTensors(t *models.Transformer) []*torchload.Tensor {
	ts := []*torchload.Tensor{torchload.Matrix("src_embedding.weight", t.SrcEmbed.E), torchload.Matrix("tgt_embedding.weight", t.TgtEmbed.E)}
	attention := func(prefix string, a *models.MultiHeadAttention) {
		for _, w := range []struct {
			name  string
			heads []*models.Param
		}{{"W_Q", a.WQ}, {"W_K", a.WK}, {"W_V", a.WV}, {"W_O", []*models.Param{a.WO}}} {
			blocks := make([]*mat.Dense, len(w.heads))
			for i, p := range w.heads {
				blocks[i] = p.Value
			}
			ts = append(ts, torchload.LinearWeight(prefix+w.name+".weight", blocks...))
		}
	}
	norm := func(prefix string, ln *models.LayerNorm) {
		ts = append(ts, torchload.Vector(prefix+"weight", ln.Gamma), torchload.Vector(prefix+"bias", ln.Beta))
	}
	ffn := func(prefix string, f *models.FeedForward) {
		ts = append(ts, torchload.Linear(prefix+"linear1.", f.First)...)
		ts = append(ts, torchload.Linear(prefix+"linear2.", f.Second)...)
	}
	for l, e := range t.Encoder {
		p := fmt.Sprintf("encoder.%d.", l)
		attention(p+"self_attn.", e.Self)
		norm(p+"norm1.", e.Norm1)
		norm(p+"norm2.", e.Norm2)
		ffn(p, e.FFN)
	}
	for l, d := range t.Decoder {
		p := fmt.Sprintf("decoder.%d.", l)
		attention(p+"self_attn.", d.Self)
		attention(p+"cross_attn.", d.Cross)
		norm(p+"norm1.", d.Norm1)
		norm(p+"norm2.", d.Norm2)
		norm(p+"norm3.", d.Norm3)
		ffn(p, d.FFN)
	}
	return append(ts, torchload.Linear("out.", t.Out)...)
}
