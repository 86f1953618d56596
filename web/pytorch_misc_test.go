package web

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
	"unroll/torchload"
	"unroll/zoo"
)

// named is a file's tensors by name.
func named(ts []*torchload.Tensor) map[string]*torchload.Tensor {
	m := map[string]*torchload.Tensor{}
	for _, x := range ts {
		m[x.Name] = x
	}
	return m
}

// setBlock sets p (in×h) from block k of K of a PyTorch-layout tensor (K·h rows of
// in columns, row k·h+j being column j of the block), or, 1-D, from part k of K.
func setBlock(t *testing.T, p *models.Param, x *torchload.Tensor, k, K int) {
	t.Helper()
	if x == nil {
		t.Fatalf("%s: no such tensor in the file", p.Name)
	}
	in, h := p.Value.Dims()
	if len(x.Shape) == 1 {
		if x.Shape[0] != K*h || in != 1 {
			t.Fatalf("%s: %v for %d parts of %d", x.Name, x.Shape, K, h)
		}
		p.Value.SetRow(0, x.Data[k*h:(k+1)*h])
		return
	}
	if !slices.Equal(x.Shape, []int{K * h, in}) {
		t.Fatalf("%s: %v for %d blocks of %d×%d", x.Name, x.Shape, K, in, h)
	}
	p.Value.Copy(mat.NewDense(h, in, x.Data[k*h*in:(k+1)*h*in]).T())
}

// setLinear sets d from torch.nn.Linear's prefix+"weight" and prefix+"bias".
func setLinear(t *testing.T, d *models.Dense, ts map[string]*torchload.Tensor, prefix string) {
	setBlock(t, d.W, ts[prefix+"weight"], 0, 1)
	setBlock(t, d.B, ts[prefix+"bias"], 0, 1)
}

// setLectureGRU sets the lectures' GRU from its blocks r, z, h̃ under prefix.
func setLectureGRU(t *testing.T, g *models.GRU, ts map[string]*torchload.Tensor, prefix string) {
	setLectureCell(t, g, ts, prefix, "_l0")
}

// setLectureCell sets a cell a script writes by hand (torchload.LectureCell: the
// lectures' GRU, blocks r, z, h̃, or an RNN's one block) from prefix's weight_ih<sfx>,
// weight_hh<sfx> and bias<sfx>.
func setLectureCell(t *testing.T, c models.Cell, ts map[string]*torchload.Tensor, prefix, sfx string) {
	t.Helper()
	var blocks [][3]*models.Param
	switch c := c.(type) {
	case *models.GRU:
		blocks = [][3]*models.Param{{c.Wxr, c.Whr, c.Br}, {c.Wxz, c.Whz, c.Bz}, {c.Wxh, c.Whh, c.Bh}}
	case *models.RNN:
		blocks = [][3]*models.Param{{c.Wxh, c.Whh, c.Bh}}
	default:
		t.Fatalf("a %T is no lecture cell", c)
	}
	for k, ps := range blocks {
		setBlock(t, ps[0], ts[prefix+"weight_ih"+sfx], k, len(blocks))
		setBlock(t, ps[1], ts[prefix+"weight_hh"+sfx], k, len(blocks))
		setBlock(t, ps[2], ts[prefix+"bias"+sfx], k, len(blocks))
	}
}

// setEmbedding sets E from torch.nn.Embedding's weight (the same layout).
func setEmbedding(t *testing.T, e *models.Embedding, x *torchload.Tensor) {
	t.Helper()
	V, d := e.E.Value.Dims()
	if x == nil || !slices.Equal(x.Shape, []int{V, d}) {
		t.Fatalf("embedding %v, want [%d %d]", x, V, d)
	}
	e.E.Value.Copy(mat.NewDense(V, d, x.Data))
}

// closeTo fails unless got and want agree to 1e-12.
func closeTo(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d numbers, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("%s[%d] = %v from the file, %v on the page", what, i, got[i], want[i])
		}
	}
}

// TestModelSafetensorsSentiment: the sentiment page's file, its tensors put back into
// zoo.Sentiment by their PyTorch names and layouts, reads the review to the page's own
// a⟨t⟩, P(positive) of both models and v⟨t⟩ at its step.
func TestModelSafetensorsSentiment(t *testing.T) {
	_, ts := newCatalogServer(t)
	for _, c := range []struct{ query, bench string }{
		{"review=good+%2C+not+bad&step=4", "sentiment"},
		{"", "sentiment-default"},                 // the default review, at its last word
		{"trained=3&step=2", "sentiment-trained"}, // trained on the page from the seed (its first phase)
	} {
		tensors, meta := checkPyTorchProgram(t, ts, "sentiment", c.query, c.bench)
		f := named(tensors)
		m := zoo.NewSentiment(99)
		setEmbedding(t, m.E, f["embedding.weight"])
		setLinear(t, m.Avg, f, "avg.")
		setLectureGRU(t, m.RNN, f, "gru.")
		setLinear(t, m.Out, f, "out.")
		if len(f) != 8 {
			t.Errorf("%d tensors, want 8", len(f))
		}
		var ids []int
		if err := json.Unmarshal([]byte(meta["inputs"]), &ids); err != nil {
			t.Fatal(err)
		}
		page := pageProgram(t, "sentiment", c.query, stepOfQuery(c.query))
		if c.query == "" && page.Step != len(ids) {
			t.Errorf("step %d at the default, want the last, %d", page.Step, len(ids))
		}
		r := m.Read(ids)
		got := append(slices.Clone(r.A[page.Step-1]), r.PRNN[page.Step-1], r.PAvg[page.Step-1], r.Vote[page.Step-1])
		closeTo(t, "sentiment H", got, page.H)
	}
}

// stepOfQuery is a page query's step (0 without one).
func stepOfQuery(query string) int {
	q, _ := url.ParseQuery(query)
	step, _ := strconv.Atoi(q.Get("step"))
	return step
}

// TestModelSafetensorsEmbeddings: the embeddings page's file, its tables put back into
// a models.SkipGram and a models.GloVe by their names, gives the page's scores and loss
// of the step's pair and the cosines of the typed word's neighbours in both spaces.
func TestModelSafetensorsEmbeddings(t *testing.T) {
	_, ts := newCatalogServer(t)
	for _, c := range []struct{ query, bench string }{
		{"sentence=the+boy+eats+the+apple&word=apple&negatives=3&step=6", "embeddings"},
		{"method=GloVe&trained=3&word=he", "embeddings-glove"}, // the page's own GloVe, at the last pair
	} {
		tensors, meta := checkPyTorchProgram(t, ts, "embeddings", c.query, c.bench)
		f := named(tensors)
		if len(f) != 6 {
			t.Errorf("%d tensors, want 6", len(f))
		}
		V, d := f["embedding.weight"].Shape[0], f["embedding.weight"].Shape[1]
		sg := models.NewSkipGram(V, d, rand.New(rand.NewPCG(9, 9)))
		gl := models.NewGloVe(V, d, rand.New(rand.NewPCG(9, 9)))
		setEmbedding(t, &models.Embedding{E: sg.E}, f["embedding.weight"])
		setEmbedding(t, &models.Embedding{E: sg.Theta}, f["context.weight"])
		setEmbedding(t, &models.Embedding{E: gl.E}, f["glove.e.weight"])
		setEmbedding(t, &models.Embedding{E: gl.Theta}, f["glove.theta.weight"])
		var negs []int
		if err := json.Unmarshal([]byte(meta["negatives"]), &negs); err != nil {
			t.Fatal(err)
		}
		centre, _ := strconv.Atoi(meta["c"])
		context, _ := strconv.Atoi(meta["t"])
		word, _ := strconv.Atoi(meta["word"])
		var got []float64
		for _, w := range append([]int{context}, negs...) {
			got = append(got, sg.Score(centre, w))
		}
		L, err := sg.Loss([]models.SkipGramExample{{Centre: centre, Context: context, Negatives: negs}})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, L)
		for _, E := range []*mat.Dense{sg.E.Value, gl.Final()} {
			for _, n := range models.Nearest(E, E.RawRowView(word), 8, word) {
				got = append(got, n.Cosine)
			}
		}
		closeTo(t, "embeddings H", got, pageProgram(t, "embeddings", c.query, stepOfQuery(c.query)).H)
		if strings.Contains(c.query, "GloVe") {
			continue
		}
		// the shared GloVe's biases too, b_i of word i and b′_j of word j: its J on X
		for _, b := range []struct {
			p    *models.Param
			name string
		}{{gl.B, "glove.b"}, {gl.BC, "glove.b_prime"}} {
			if x := f[b.name]; x == nil || !slices.Equal(x.Shape, []int{V}) {
				t.Fatalf("%s: %v, want [%d]", b.name, x, V)
			}
			b.p.Value.Copy(mat.NewDense(V, 1, f[b.name].Data))
		}
		shared, _ := zoo.SharedGloVe()
		J, _ := gl.Loss(shared.Entries)
		want, _ := shared.Loss(shared.Entries)
		closeTo(t, "GloVe's J", []float64{J}, []float64{want})
	}
}

// TestModelSafetensorsCaptioning: the captioning page's file, its tensors put back into
// a models.Captioner of the metadata's approach by their names, writes the caption
// greedily to the page's own x, h⁽ᵗ⁾ and ŷ⁽ᵗ⁾ at its step, for each approach.
func TestModelSafetensorsCaptioning(t *testing.T) {
	_, ts := newCatalogServer(t)
	for _, c := range []struct{ query, bench string }{
		{"approach=1&step=3", "captioning-1"},
		{"approach=2&image=green+square+2+2&step=2", "captioning-2"},
		{"approach=3", "captioning-3"}, // the last step: ŷ puts <eos> first
	} {
		tensors, meta := checkPyTorchProgram(t, ts, "captioning", c.query, c.bench)
		tr := captionFromFile(t, tensors, meta)
		page := pageProgram(t, "captioning", c.query, stepOfQuery(c.query))
		st := tr.Steps[page.Step-1]
		closeTo(t, "captioning H", slices.Concat(tr.X, st.Decoder.Next.H.RawRowView(0), st.Probs), page.H)
	}
}

// captionFromFile is the greedy caption of the metadata's image by the file's
// captioner: its tensors put back into a models.Captioner of the metadata's approach
// by their names.
func captionFromFile(t *testing.T, tensors []*torchload.Tensor, meta map[string]string) *models.CaptionTrace {
	t.Helper()
	f := named(tensors)
	if len(f) != 8 {
		t.Errorf("%d tensors, want 8", len(f))
	}
	a, _ := strconv.Atoi(meta["approach"])
	m := zoo.NewCaptionModel(models.CaptionApproach(a), 99)
	setLinear(t, m.Encoder, f, "encoder.")
	setEmbedding(t, m.Embed, f["embedding.weight"])
	setLectureGRU(t, m.Decoder, f, "decoder.")
	setLinear(t, m.Out, f, "out.")
	var v []float64
	if err := json.Unmarshal([]byte(meta["image"]), &v); err != nil {
		t.Fatal(err)
	}
	tr, err := m.Greedy(v, zoo.CaptionMaxSteps)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
