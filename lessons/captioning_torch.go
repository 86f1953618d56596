package lessons

import (
	"encoding/json"
	"slices"
	"strconv"

	"unroll/data"
	"unroll/torchload"
)

// captioningScript computes the captioning page's numbers from its model.safetensors.
const captioningScript = "captioning.py"

// PyTorchFile is the captioner of the approach the page shows: the encoder's W_v, b_v
// and the output layer's V, c as torch.nn.Linear (encoder.*, out.*), E as
// torch.nn.Embedding (embedding.weight), and the decoder, the lectures' GRU, which no
// nn.GRU computes, as its gate blocks r, z, h̃ (decoder.*, lectureGRUTensors; its
// input is e(y⁽ᵗ⁻¹⁾), or [e(y⁽ᵗ⁻¹⁾); x] when x is fed at every step). The metadata
// holds the approach, the image v and the vocabulary. H is the page's x, h⁽ᵗ⁾ and
// ŷ⁽ᵗ⁾ at its step t of the greedy caption (its last step, once the caption has ended).
func (m *captionModel) PyTorchFile(step int) (PyTorchFile, error) {
	c, run := m.ms[m.focus].Model, m.runs[m.focus]
	step = exportStep(step, len(run.Steps))
	ts := torchload.Linear("encoder.", c.Encoder)
	ts = append(ts, torchload.Matrix("embedding.weight", c.Embed.E))
	ts = append(ts, lectureGRUTensors("decoder.", c.Decoder)...)
	ts = append(ts, torchload.Linear("out.", c.Out)...)
	image, _ := json.Marshal(m.scene.Render())
	vocab, _ := json.Marshal(data.CaptionVocab.List())
	st := run.Steps[step-1]
	H := slices.Concat(run.X, st.Decoder.Next.H.RawRowView(0), st.Probs)
	meta := map[string]string{"approach": strconv.Itoa(int(c.Config.Approach)), "image": string(image), "vocab": string(vocab)}
	return PyTorchFile{Tensors: ts, Meta: meta, Script: captioningScript, Step: step, H: H}, nil
}
