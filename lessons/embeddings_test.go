package lessons

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

func embedValues(changes map[string]string) sim.Values {
	return lessonValues(embeddingsLesson, changes)
}

func buildEmbed(t *testing.T, changes map[string]string) *embedModel {
	t.Helper()
	return buildLesson[*embedModel](t, embeddingsLesson, changes)
}

// TestEmbeddingsDefaultAnalogy: the page opens on the corpus analogy the trained
// vectors answer right (boy → boys as girl → girls), with the lecture's king example
// on the feature table above it, and its prose says why king is done there.
func TestEmbeddingsDefaultAnalogy(t *testing.T) {
	an := buildEmbed(t, nil).static.Meta["analogy"].(table)
	if got := an.Rows[0].Cells[0].Text; got != "queen" || !strings.Contains(an.Rows[0].Label, "features") {
		t.Errorf("row 1 %q: got %q, want the lecture's man → woman as king → queen on the features", an.Rows[0].Label, got)
	}
	if row := an.Rows[2]; row.Label != "trained" || row.Cells[0].Text != "girls" {
		t.Errorf("trained row %q: got %q, want girls", row.Label, row.Cells[0].Text)
	}
	prose := strings.Join(embeddingsLesson.Prose, " ")
	for _, want := range []string{"no <i>king</i> or <i>queen</i>", "feature table", "answer <i>girls</i>"} {
		if !strings.Contains(prose, want) {
			t.Errorf("prose does not say %q", want)
		}
	}
}

// TestEmbeddingsSpaceMarksTheWord: the map export labels the page's word and its
// nearest neighbours in a series of their own, so two words export two figures.
func TestEmbeddingsSpaceMarksTheWord(t *testing.T) {
	for _, word := range []string{"girl", "paris"} {
		e := buildEmbed(t, map[string]string{"word": word})
		series := spaceSeries(e)
		near := series[len(series)-1]
		want := []string{word}
		for _, n := range e.neighbours(e.query, embedNeighbours) {
			want = append(want, e.corpus.Words[n.Word])
		}
		if !slices.Equal(near.Labels, want) || !strings.Contains(near.Label, `"`+word+`"`) || len(near.X) != len(want) {
			t.Errorf("%s: last series %q labels %q, want %q", word, near.Label, near.Labels, want)
		}
		for _, s := range series[:len(series)-1] {
			for _, l := range s.Labels {
				if l != "" && slices.Contains(want, l) {
					t.Errorf("%s: %q labelled twice", word, l)
				}
			}
		}
	}
}

// TestEmbeddingsTables: the lecture's worked example on the featurised table, the
// one-hot cosines, and messages for words one space does not have.
func TestEmbeddingsTables(t *testing.T) {
	e := buildEmbed(t, map[string]string{"a": "man", "b": "woman", "c": "king"})
	an := e.static.Meta["analogy"].(table)
	if got := an.Rows[0].Cells[0].Text; got != "queen" {
		t.Errorf("lecture row: got %q want queen", got)
	}
	if got := an.Rows[1].Cells[0].Text; got != "queen" {
		t.Errorf("features row for man → woman as king: got %q want queen", got)
	}
	if got := an.Rows[2].Cells[0].Text; !strings.Contains(got, `"king"`) || len(an.Rows[2].Cells) != 1 {
		t.Errorf("trained row for king: got %q want a message naming king", got)
	}
	e = buildEmbed(t, map[string]string{"a": "he", "b": "she", "c": "boy"})
	an = e.static.Meta["analogy"].(table)
	if got := an.Rows[1].Cells[0].Text; !strings.Contains(got, `"he"`) {
		t.Errorf("features row for he: got %q want a message naming he", got)
	}
	if n := len(an.Rows[2].Cells); n != embedAnswers {
		t.Errorf("trained row: got %d answers want %d", n, embedAnswers)
	}
	sim := e.static.Meta["similarity"].(table)
	for i, c := range sim.Rows[0].Cells {
		if c.Text != "0" {
			t.Errorf("one-hot cosine of %s: got %s want 0", sim.Head[i], c.Text)
		}
	}
	if got := sim.Rows[1].Cells[0].Text; got != "-1.00" {
		t.Errorf("feature cosine of man·woman: got %s want -1.00", got)
	}
}

func TestEmbeddingsBadInput(t *testing.T) {
	cases := []struct {
		changes map[string]string
		naming  string // the error must quote this
	}{
		{map[string]string{"sentence": "the girl drinks qwerty"}, `"qwerty"`},
		{map[string]string{"sentence": "girl ."}, "two words"},
		{map[string]string{"word": "zebra"}, `"zebra"`},
		{map[string]string{"word": "the girl"}, `"the girl"`},
		{map[string]string{"word": ""}, "one word"},
		{map[string]string{"a": "kign"}, `"kign"`},
		{map[string]string{"c": "king queen"}, `"king queen"`},
	}
	for _, tc := range cases {
		_, err := embeddingsLesson.Build(embedValues(tc.changes))
		if err == nil {
			t.Errorf("%v: got no error", tc.changes)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.naming) || strings.Contains(msg, "lessons:") {
			t.Errorf("%v: got %q, want a sentence containing %s", tc.changes, msg, tc.naming)
		}
	}
	// upper case and punctuation are fine
	buildEmbed(t, map[string]string{"sentence": "The Girl drinks milk.", "word": " Girl "})
}

// TestEmbeddingsTrainDeterministic: the same seed gives the same training frames and
// the same map; the static frame Build returned shows the trained weights.
func TestEmbeddingsTrainDeterministic(t *testing.T) {
	a, b := buildEmbed(t, nil), buildEmbed(t, nil)
	static := a.Static()
	before := append([]float64(nil), static.Arrays[0].Data...)
	for step := range 20 {
		fa, err := a.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		fb, _ := b.TrainStep()
		if !reflect.DeepEqual(fa, fb) {
			t.Fatalf("training step %d: two runs from the same seed differ", step+1)
		}
	}
	if !reflect.DeepEqual(a.At(3), b.At(3)) || !reflect.DeepEqual(a.Static(), b.Static()) {
		t.Errorf("after training: two runs from the same seed differ")
	}
	if reflect.DeepEqual(before, static.Arrays[0].Data) {
		t.Errorf("the static points did not change with training")
	}
	if w := static.Meta["weights"].(string); !strings.Contains(w, "20 steps") {
		t.Errorf("static weights after training: got %q want it to say 20 steps", w)
	}
	c := buildEmbed(t, map[string]string{"seed": "2"})
	fc, _ := c.TrainStep()
	fa := buildEmbed(t, nil)
	f1, _ := fa.TrainStep()
	if reflect.DeepEqual(fc.Meta["points"], f1.Meta["points"]) {
		t.Errorf("seeds 1 and 2 gave the same map after one step")
	}
}

// TestEmbeddingsTrainingLearns: training from scratch lowers the loss and groups words
// by class well above chance within a few hundred steps (what the page promises).
func TestEmbeddingsTrainingLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 400 steps")
	}
	e := buildEmbed(t, nil)
	var first, last float64
	for step := range 400 {
		f, err := e.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		if step == 0 {
			first = f.Meta["loss"].(float64)
		}
		last = f.Meta["loss"].(float64)
	}
	if last > 0.7*first {
		t.Errorf("loss after 400 steps: got %.3f want below 70%% of the first %.3f", last, first)
	}
	q := e.m.Quality()
	if q.SameClass < q.Chance+0.25 {
		t.Errorf("same-class nearest neighbours after 400 steps: got %.2f want ≥ chance %.2f + 0.25", q.SameClass, q.Chance)
	}
}

// TestEmbeddingsCheckpoint: the bundled model has the quality its metadata records and
// the page's prose states.
func TestEmbeddingsCheckpoint(t *testing.T) {
	m, meta, err := zoo.LoadEmbedModel()
	if err != nil {
		t.Fatal(err)
	}
	q := m.Quality()
	// 1e-5: the checkpoint records 6 significant digits (EmbedCheckpointMeta).
	if rec := meta.Float("same_class_nn"); math.Abs(q.SameClass-rec) > 1e-5 {
		t.Errorf("same-class nearest neighbours: got %.6f, the checkpoint records %.6f", q.SameClass, rec)
	}
	if q.SameClass < 0.8 || q.Chance > 0.35 {
		t.Errorf("same-class nearest neighbours: got %.2f (chance %.2f) want ≥ 0.80 (chance ≤ 0.35) as the page says", q.SameClass, q.Chance)
	}
	c := data.Words()
	for w, want := range map[string]string{"he": "she", "apple": "orange", "cat": "dog"} {
		got := (&embedModel{m: m, corpus: c}).neighbours(c.Index[w], 1)[0]
		if c.Words[got.Word] != want {
			t.Errorf("nearest neighbour of %s: got %s want %s (the page's prose says so)", w, c.Words[got.Word], want)
		}
	}
}

func TestProject2D(t *testing.T) {
	// Four words on a plane: the map must keep their layout up to rotation and sign.
	E := mat.NewDense(4, 3, []float64{
		1, 0, 0,
		0, 1, 0,
		-1, 0, 0,
		0, -1, 0,
	})
	out := make([]float64, 8)
	v := project2D(E, out, false)
	if math.Abs(v[0]+v[1]-1) > 1e-9 {
		t.Errorf("variance shares of a planar set: got %v want summing to 1", v)
	}
	d := func(i, j int) float64 { return math.Hypot(out[2*i]-out[2*j], out[2*i+1]-out[2*j+1]) }
	if math.Abs(d(0, 2)-2) > 1e-9 || math.Abs(d(0, 1)-math.Sqrt2) > 1e-9 {
		t.Errorf("distances on the map: got %.6f and %.6f want 2 and √2", d(0, 2), d(0, 1))
	}
	prev := append([]float64(nil), out...)
	for i := range prev {
		out[i] = -prev[i] // pretend the last frame had both axes the other way round
	}
	project2D(E, out, true)
	for i := range out {
		if math.Abs(out[i]+prev[i]) > 1e-9 {
			t.Fatalf("aligned projection: got %v want %v", out, prev)
		}
	}
}

// BenchmarkEmbeddingsTrainStep is one live training step with its progress frame:
// a minibatch of Adam, the PCA map and the tables rebuilt.
func BenchmarkEmbeddingsTrainStep(b *testing.B) {
	benchEmbedTrain(b, nil)
}

// BenchmarkEmbeddingsTrainGloVe is one full-batch GloVe step with its progress frame.
func BenchmarkEmbeddingsTrainGloVe(b *testing.B) {
	benchEmbedTrain(b, map[string]string{"method": "GloVe"})
}

func benchEmbedTrain(b *testing.B, changes map[string]string) {
	m, err := embeddingsLesson.Build(embedValues(changes))
	if err != nil {
		b.Fatal(err)
	}
	e := m.(*embedModel)
	for b.Loop() {
		if _, err := e.TrainStep(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmbeddingsRefresh is the PCA map and tables alone.
func BenchmarkEmbeddingsRefresh(b *testing.B) {
	m, _ := embeddingsLesson.Build(embeddingsLesson.Params.Defaults())
	e := m.(*embedModel)
	for b.Loop() {
		e.refresh(true)
	}
}

// TestEmbeddingsSoftmaxCost (seed 003: the softmax over the vocabulary is slow,
// hierarchical softmax and negative sampling are the remedies): the facts carry the
// model's own V, k + 1 for the chosen k and their ratio; the corpus's Huffman tree
// needs fewer decisions on average than a balanced one, far fewer than V; the step's
// softmax denominator is the sum over all V words.
func TestEmbeddingsSoftmaxCost(t *testing.T) {
	for _, k := range []string{"2", "7"} {
		v := embeddingsLesson.Params.Defaults()
		v["negatives"] = k
		sm, err := embeddingsLesson.Build(v)
		if err != nil {
			t.Fatal(err)
		}
		e := sm.(*embedModel)
		meta := e.Static().Meta
		V := len(data.Words().Words)
		if meta["V"] != V || meta["softmax_cost"] != V || e.m.Vocab() != V {
			t.Errorf("V: facts %v, %v, model %d, corpus %d", meta["V"], meta["softmax_cost"], e.m.Vocab(), V)
		}
		if meta["negative_sampling_cost"] != e.k+1 || meta["cost_ratio"] != float64(V)/float64(e.k+1) {
			t.Errorf("k = %s: negative sampling %v, ratio %v", k, meta["negative_sampling_cost"], meta["cost_ratio"])
		}
		hs := huffmanDepths()
		if b := ceilLog2(V); !(1<<(b-1) < V && V <= 1<<b) || !(hs.mean < float64(b)) || hs.max < b {
			t.Errorf("V = %d: ⌈log₂ V⌉ = %d, Huffman mean %v, deepest %d", V, b, hs.mean, hs.max)
		}
		p := e.pairs[0]
		z := 0.0
		for w := range V {
			z += math.Exp(floats.Dot(e.m.Theta.Value.RawRowView(w), e.m.E.Value.RawRowView(p[0])))
		}
		if want := fmt.Sprintf("%.4g, a sum of V = %d terms for this one prediction", z, V); e.At(1).Meta["softmax_normaliser"] != want {
			t.Errorf("step 1: got %v want %v", e.At(1).Meta["softmax_normaliser"], want)
		}
	}
}

// TestEmbeddingsGloVeRows (seed 003, Learning 3): the GloVe rows of the tables are
// computed from (e_w + θ_w)/2 of the shared GloVe model, and the prose's figures are
// its measured quality.
func TestEmbeddingsGloVeRows(t *testing.T) {
	e := buildEmbed(t, map[string]string{"word": "apple"})
	gm, curve := zoo.SharedGloVe()
	var final mat.Dense
	final.Add(gm.E.Value, gm.Theta.Value)
	final.Scale(0.5, &final)
	if !mat.Equal(&final, e.glove) {
		t.Fatal("the page's GloVe vectors are not (e + θ)/2 of the shared model")
	}
	c := e.corpus
	nb := e.static.Meta["neighbours"].(table)
	want := models.Nearest(&final, final.RawRowView(c.Index["apple"]), embedNeighbours, c.Index["apple"])
	if row := nb.Rows[1]; row.Label != "GloVe" || len(row.Cells) != len(want) {
		t.Fatalf("neighbours row 2: %+v", row)
	}
	for i, n := range want {
		if got := nb.Rows[1].Cells[i].Text; got != c.Words[n.Word] {
			t.Errorf("GloVe neighbour %d of apple: got %s want %s", i+1, got, c.Words[n.Word])
		}
	}
	an := e.static.Meta["analogy"].(table)
	ix := c.Index
	if got, want := an.Rows[3].Cells[0].Text, c.Words[models.Analogy(&final, ix["boy"], ix["boys"], ix["girl"], 1)[0].Word]; an.Rows[3].Label != "GloVe" || got != want {
		t.Errorf("GloVe analogy row %q: got %s want %s", an.Rows[3].Label, got, want)
	}
	capped := 0
	for _, x := range gm.Entries {
		if x.Weight == 1 {
			capped++
		}
	}
	q := zoo.EmbeddingQuality(&final)
	prose := strings.Join(embeddingsLesson.Prose, " ")
	for _, s := range []string{fmt.Sprintf("%.0f%% same-class neighbours", 100*q.SameClass), fmt.Sprintf("to %.2g", curve[len(curve)-1]),
		fmt.Sprintf("%d full-batch steps", zoo.GloVeSteps), fmt.Sprintf("x_{\\max} = %d", models.GloVeXMax),
		fmt.Sprintf("%d entries of this corpus reach %d", capped, models.GloVeXMax)} {
		if !strings.Contains(prose, s) {
			t.Errorf("prose does not say %q", s)
		}
	}
}

// TestEmbeddingsCooccurrencePanel (seed 003: X_ij counts i in the context of j): the
// panel's grid is log X of the most frequent words, symmetric, marked unseen exactly
// where X = 0 (f = 0), and under the panel's colour scale.
func TestEmbeddingsCooccurrencePanel(t *testing.T) {
	logX, seen, words := cooccurrenceGrid()
	X := zoo.GloVeCooccurrence(zoo.EmbedWindow)
	c := data.Words()
	n := len(words)
	if n != embedCoocWords {
		t.Fatalf("%d words want %d", n, embedCoocWords)
	}
	for a := range n {
		for b := range n {
			x := X.At(c.Index[words[a]], c.Index[words[b]])
			want, wantSeen := 0.0, 0.0
			if x > 0 {
				want, wantSeen = math.Log(x), 1
			}
			if logX[a*n+b] != want || seen[a*n+b] != wantSeen || logX[a*n+b] != logX[b*n+a] {
				t.Errorf("%s, %s: got log X %v seen %v want %v %v (and symmetric)", words[a], words[b], logX[a*n+b], seen[a*n+b], want, wantSeen)
			}
		}
	}
	if top := math.Log(mat.Max(X)); top > embedCoocScale {
		t.Errorf("largest log X %.3f above the colour scale %v", top, embedCoocScale)
	}
}

// TestEmbeddingsTrainGloVe (seed 003, Learning 3): with the method GloVe, Train fits
// a fresh GloVe model on the page: J falls, the map and the GloVe rows follow its
// (e + θ)/2, skip-gram's rows stay the bundled ones, and a fork trains on exactly
// like the original.
func TestEmbeddingsTrainGloVe(t *testing.T) {
	e := buildEmbed(t, map[string]string{"method": "GloVe"})
	skip := e.static.Meta["neighbours"].(table).Rows[0]
	if w, want := e.static.Meta["weights"].(string), fmt.Sprintf("GloVe: %d full-batch steps", zoo.GloVeSteps); !strings.Contains(w, want) {
		t.Errorf("weights before training: got %q want it to say %q", w, want)
	}
	var first, last float64
	for step := range 100 {
		f, err := e.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		if step == 0 {
			first = f.Meta["loss"].(float64)
		}
		last = f.Meta["loss"].(float64)
	}
	if !(last < 0.1*first) {
		t.Errorf("J after 100 steps: got %v want below 10%% of %v", last, first)
	}
	static := e.Static()
	if w := static.Meta["weights"].(string); !strings.Contains(w, "GloVe trained from scratch for 100 full-batch steps") {
		t.Errorf("weights after training: got %q", w)
	}
	var final mat.Dense
	final.Add(e.gl.E.Value, e.gl.Theta.Value)
	final.Scale(0.5, &final)
	if !mat.Equal(&final, e.glove) || !mat.Equal(&final, e.space()) {
		t.Fatal("the page's GloVe vectors are not (e + θ)/2 of its own model")
	}
	q := zoo.EmbeddingQuality(&final)
	if want := fmt.Sprintf("%.0f%%", 100*q.SameClass); !strings.Contains(static.Meta["glove_same_class"].(string), want) {
		t.Errorf("GloVe quality fact %q does not say %s", static.Meta["glove_same_class"], want)
	}
	nb := static.Meta["neighbours"].(table)
	w := e.query
	for i, n := range models.Nearest(&final, final.RawRowView(w), embedNeighbours, w) {
		if got := nb.Rows[1].Cells[i].Text; got != e.corpus.Words[n.Word] {
			t.Errorf("GloVe neighbour %d: got %s want %s", i+1, got, e.corpus.Words[n.Word])
		}
	}
	if !reflect.DeepEqual(nb.Rows[0], skip) {
		t.Errorf("skip-gram's neighbours changed while GloVe trained")
	}
	fk, err := e.Fork()
	if err != nil {
		t.Fatal(err)
	}
	f := fk.(*embedModel)
	for range 3 {
		a, _ := e.TrainStep()
		b, _ := f.TrainStep()
		if !reflect.DeepEqual(a, b) {
			t.Fatal("the fork trains differently from the original")
		}
	}
	if e.gl.E.Value == f.gl.E.Value {
		t.Error("the fork shares GloVe's weights")
	}
}
