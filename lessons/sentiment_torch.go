package lessons

import (
	"encoding/json"
	"slices"

	"unroll/data"
	"unroll/torchload"
)

// sentimentScript computes the sentiment page's numbers from its model.safetensors.
const sentimentScript = "sentiment.py"

// PyTorchFile is the page's two classifiers, as sentiment.py loads them: E as
// torch.nn.Embedding (embedding.weight), the average model's W, b and the GRU's
// W_ya, b_y as torch.nn.Linear (avg.*, out.*), and the lectures' GRU, which no
// nn.GRU computes, as its gate blocks r, z, h̃ (gru.*, lectureGRUTensors). The
// metadata holds the review's word ids; H is the page's a⟨t⟩, then P(positive) of
// the GRU from a⟨t⟩ and of the average of the first t words, and the vote v⟨t⟩.
func (m *sentimentModel) PyTorchFile(step int) (PyTorchFile, error) {
	step = exportStep(step, len(m.ids))
	ts := []*torchload.Tensor{torchload.Matrix("embedding.weight", m.m.E.E)}
	ts = append(ts, torchload.Linear("avg.", m.m.Avg)...)
	ts = append(ts, lectureGRUTensors("gru.", m.m.RNN)...)
	ts = append(ts, torchload.Linear("out.", m.m.Out)...)
	inputs, _ := json.Marshal(m.ids)
	r := m.run
	H := append(slices.Clone(r.A[step-1]), r.PRNN[step-1], r.PAvg[step-1], r.Vote[step-1])
	return PyTorchFile{Tensors: ts, Meta: map[string]string{"inputs": string(inputs), "review": data.ReviewText(m.ids)},
		Script: sentimentScript, Step: step, H: H}, nil
}
