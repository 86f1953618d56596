package lessons

import (
	"encoding/json"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
	"unroll/torchload"
	"unroll/zoo"
)

// embeddingsScript computes the embeddings page's numbers from its model.safetensors.
const embeddingsScript = "embeddings.py"

// PyTorchFile is the page's two embeddings as torch.nn.Embedding weights (a row per
// word, as E is): skip-gram's E and Θ (embedding.weight, context.weight), and GloVe's
// θ_i, e_j, b_i and b′_j, named by their symbols (glove.theta.weight, glove.e.weight,
// glove.b, glove.b_prime: the shared model, or the page's own once it trains GloVe). The
// metadata holds the words, the step's pair (c, t) and negatives n_i, and the typed
// word. H is what the page shows: the step's scores σ(θ_tᵀe_c), σ(θ_{n_i}ᵀe_c) and its
// loss L, then the cosines of the typed word's embedNeighbours nearest neighbours in
// skip-gram's e_w and in GloVe's (e_w + θ_w)/2.
func (e *embedModel) PyTorchFile(step int) (PyTorchFile, error) {
	step = exportStep(step, len(e.pairs))
	g, _ := zoo.SharedGloVe()
	glove := g.GloVe
	if e.gl != nil {
		glove = e.gl.GloVe
	}
	ts := []*torchload.Tensor{
		torchload.Matrix("embedding.weight", e.m.E),
		torchload.Matrix("context.weight", e.m.Theta),
		torchload.Matrix("glove.theta.weight", glove.Theta),
		torchload.Matrix("glove.e.weight", glove.E),
		torchload.Concat("glove.b", glove.B.Value.RawMatrix().Data),
		torchload.Concat("glove.b_prime", glove.BC.Value.RawMatrix().Data),
	}
	p, negs := e.pairs[step-1], e.negatives[step-1]
	var H []float64
	for _, w := range append([]int{p[1]}, negs...) {
		H = append(H, e.m.Score(p[0], w))
	}
	L, err := e.m.Loss([]models.SkipGramExample{{Centre: p[0], Context: p[1], Negatives: negs}})
	if err != nil {
		return PyTorchFile{}, err
	}
	H = append(H, L)
	for _, E := range []*mat.Dense{e.m.E.Value, glove.Final()} {
		for _, n := range models.Nearest(E, E.RawRowView(e.query), embedNeighbours, e.query) {
			H = append(H, n.Cosine)
		}
	}
	words, _ := json.Marshal(e.corpus.Words)
	n, _ := json.Marshal(negs)
	meta := map[string]string{"words": string(words), "c": strconv.Itoa(p[0]), "t": strconv.Itoa(p[1]), "negatives": string(n),
		"word": strconv.Itoa(e.query), "neighbours": strconv.Itoa(embedNeighbours)}
	return PyTorchFile{Tensors: ts, Meta: meta, Script: embeddingsScript, Step: step, H: H}, nil
}
