package lessons

import (
	"encoding/json"
	"fmt"
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
	return m.approachFile(m.focus, step), nil
}

// PyTorchCompanion is the captioner of approach k, "approach-k" (the three the page
// writes captions with side by side), as PyTorchFile has the one it shows, at the
// page's step (a caption that has ended stays at its last step, as on the page).
func (m *captionModel) PyTorchCompanion(name string, step int) (PyTorchFile, error) {
	for i := range m.ms {
		if name == "approach-"+strconv.Itoa(i+1) {
			return m.approachFile(i, step), nil
		}
	}
	return PyTorchFile{}, fmt.Errorf("the captioning page has no model %q beside its own", name)
}

// approachFile is PyTorchFile's export of approach i's captioner (0-based).
func (m *captionModel) approachFile(i, step int) PyTorchFile {
	c, run := m.ms[i].Model, m.runs[i]
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
	return PyTorchFile{Tensors: ts, Meta: meta, Script: captioningScript, Step: step, H: H}
}
