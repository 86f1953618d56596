package lessons

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// Display settings of the embeddings page.
const (
	embedNeighbours   = 8      // nearest neighbours listed for the typed word
	embedAnswers      = 5      // analogy answers listed, best first
	embedPlotLabels   = 45     // the exported map labels this many of the most frequent content words
	embedNegStream    = 0x6e67 // separates the walkthrough's negatives from training's stream
	embedMaxSentence  = 80     // characters of the walkthrough sentence: ~16 words, ≤ 8 pairs each, far below sim.MaxSteps
	embedDefaultWords = "the girl drinks milk"
	embedSkipGram     = "skip-gram"
	embedGloVe        = "GloVe"
	// embedCoocWords: the co-occurrence panel shows X for the 16 most frequent words,
	// a grid that still prints its labels at 360 px.
	embedCoocWords = 16
	// embedCoocScale is the colour scale's top, log X: above log 467 ≈ 6.15, the
	// largest count of the corpus (TestEmbeddingsCooccurrencePanel holds it).
	embedCoocScale = 6.5
	// embedRefreshEvery: training redraws the map and tables every 5th step (and the
	// first): the PCA costs several training steps, and 5 steps move the map little.
	embedRefreshEvery = 5
)

// embedModel is the embeddings lesson's sim.Model. Its steps walk through the
// skip-gram examples of one sentence; its static frame holds the map of the
// embedding space and the similarity, analogy and neighbour tables. Training
// changes the weights, so the static frame is recomputed on the first training step
// and every embedRefreshEvery-th (its points go out with the progress messages), and
// in Static after any training (the Run reads it again for the snapshot that follows
// training).
type embedModel struct {
	m            *zoo.EmbedModel // the shared bundled one (read-only) until TrainStep starts one of its own
	glove        *mat.Dense      // GloVe's final embeddings (e_w + θ_w)/2, same corpus and window, shown beside skip-gram's
	gloveJ       []float64       // GloVe's J before each of its training steps
	method       string          // what Train trains and the map shows: embedSkipGram or embedGloVe
	gl           *zoo.GloVeModel // the page's own GloVe model, once Train trains GloVe
	glJ          [2]float64      // its J before the first and before the latest step
	training     bool            // refresh called by TrainStep: the map only needs to be right
	gloveEntries int             // non-zero entries of X
	ck           zoo.Meta        // metadata of the checkpoint the page started from
	corpus       *data.WordCorpus

	sentence  []int
	pairs     [][2]int
	negatives [][]int // per step
	window, k int
	query     int // the word whose neighbours are listed
	analogy   [3]string
	seed      uint64

	static sim.Frame
	points []float64 // V×2, the static "points" array's data

	stale bool // trained since the last refresh

	scratch // training from scratch: the first TrainStep starts a fresh model from seed
}

// lookupWord finds a typed word in the corpus vocabulary, or says why not.
func lookupWord(c *data.WordCorpus, w string) (int, error) {
	if id, ok := c.Index[w]; ok {
		return id, nil
	}
	return 0, fmt.Errorf("the word %q is not in the vocabulary (the %d English words the corpus uses at least %d times, such as %s)",
		clipWord(w), len(c.Words), data.WordMinCount, strings.Join(c.Words[20:26], ", "))
}

func clipWord(s string) string {
	if r := []rune(s); len(r) > 30 {
		return string(r[:30]) + "…"
	}
	return s
}

// oneWord reads a parameter that must be exactly one word.
func oneWord(v sim.Values, name, label string) (string, error) {
	f := strings.Fields(strings.ToLower(v.String(name)))
	if len(f) != 1 {
		return "", fmt.Errorf("%s must be one word, got %q", label, clipWord(v.String(name)))
	}
	return f[0], nil
}

func buildEmbeddings(v sim.Values) (sim.Model, error) {
	c := data.Words()
	m, meta, err := zoo.SharedEmbedModel() // read-only: TrainStep replaces it by fresh weights
	if err != nil {
		return nil, err
	}
	e := &embedModel{m: m, ck: meta, corpus: c, window: v.Int("window"), k: v.Int("negatives"), seed: uint64(v.Int("seed"))}
	e.method = v.String("method")
	gm, gJ := zoo.SharedGloVe()
	e.glove, e.gloveJ, e.gloveEntries = sharedGloVeFinal(), gJ, len(gm.Entries)
	text := v.String("sentence")
	if strings.TrimSpace(text) == "" {
		text = embedDefaultWords
	}
	for _, w := range models.Tokenize(models.NormalizeMT(text)) {
		if data.IsPunct(w) {
			continue
		}
		id, err := lookupWord(c, w)
		if err != nil {
			return nil, err
		}
		e.sentence = append(e.sentence, id)
	}
	if len(e.sentence) < 2 {
		return nil, fmt.Errorf("the sentence needs at least two words, got %q", clipWord(text))
	}
	word, err := oneWord(v, "word", "the neighbours' word")
	if err != nil {
		return nil, err
	}
	if e.query, err = lookupWord(c, word); err != nil {
		return nil, err
	}
	for i, name := range []string{"a", "b", "c"} {
		w, err := oneWord(v, name, "each analogy word")
		if err != nil {
			return nil, err
		}
		if _, ok := c.Index[w]; !ok && featureIndex(w) < 0 {
			return nil, fmt.Errorf("the analogy word %q is neither in the feature table (%s) nor in the corpus vocabulary", clipWord(w), strings.Join(featureWords, ", "))
		}
		e.analogy[i] = w
	}
	e.pairs = data.SkipGramPairs(e.sentence, e.window)
	rng := rand.New(rand.NewPCG(e.seed, embedNegStream))
	for _, p := range e.pairs {
		e.negatives = append(e.negatives, c.Negatives(rng, e.k, p[1]))
	}
	e.points = make([]float64, 2*len(c.Words))
	logX, seen, top := cooccurrenceGrid()
	e.static = sim.Frame{Arrays: []sim.Array{sim.Matrix("points", len(c.Words), 2, e.points),
		sim.Matrix("logX", len(top), len(top), logX), sim.Matrix("X_seen", len(top), len(top), seen)}, Meta: map[string]any{}}
	e.static.Meta["axes"] = map[string]any{"logX": map[string]any{"rows": top, "cols": top, "row_title": "word i", "col_title": "word j", "value": "log Xᵢⱼ", "mask": "X_seen"}}
	e.refresh(false)
	return e, nil
}

func (e *embedModel) Steps() int { return len(e.pairs) }

// Static is the map and the tables of the current weights.
func (e *embedModel) Static() sim.Frame {
	if e.stale {
		e.refresh(true)
	}
	return e.static
}

// refresh recomputes the map and the tables from the current weights into the
// static frame. aligned keeps each axis pointing the way it did before (training),
// so the map does not flip between two frames.
func (e *embedModel) refresh(aligned bool) {
	e.stale = false
	c := e.corpus
	if e.gl != nil {
		e.glove = e.gl.Final()
	}
	variance := project2D(e.space(), e.points, aligned)
	meta := e.static.Meta
	meta["words"] = c.Words
	meta["word_class"] = c.Class
	meta["class_names"] = data.WordClasses
	meta["vocabulary"] = fmt.Sprintf("%d English words, used ≥ %d times in %d sentences", len(c.Words), data.WordMinCount, len(c.Sentences))
	meta["d"] = zoo.EmbedDim
	V := e.m.Vocab()
	meta["V"] = V
	meta["softmax_cost"] = V
	hs := huffmanDepths()
	meta["hierarchical_cost"] = fmt.Sprintf("⌈log₂ V⌉ = %d in a balanced tree; in the corpus's Huffman tree %.2f on average over the words' occurrences, %d for the rarest",
		ceilLog2(V), hs.mean, hs.max)
	meta["negative_sampling_cost"] = e.k + 1
	meta["cost_ratio"] = float64(V) / float64(e.k+1)
	meta["map"] = fmt.Sprintf("PCA of the unit-length "+e.spaceName()+": PC1 %.0f%%, PC2 %.0f%% of the variance", 100*variance[0], 100*variance[1])
	meta["weights"] = e.weightsFact()
	if e.trained == 0 && e.method != embedGloVe {
		meta["same_class_neighbours"] = fmt.Sprintf("%.0f%% of content words have a nearest neighbour of their own class (%.0f%% by chance)",
			100*e.ck.Float("same_class_nn"), 100*e.ck.Float("same_class_chance"))
	} else {
		delete(meta, "same_class_neighbours")
	}
	entries, window := e.gloveEntries, zoo.EmbedWindow
	if e.gl != nil {
		entries, window = len(e.gl.Entries), e.window
	}
	meta["glove_X"] = fmt.Sprintf("%d of the %d×%d entries non-zero: ±%d words, every neighbour counted once (no 1/distance weighting), no subsampling", entries, V, V, window)
	meta["glove_f"] = fmt.Sprintf("α = %g, xₘₐₓ = %d (the paper's values)", models.GloVeAlpha, models.GloVeXMax)
	meta["glove_J"] = fmt.Sprintf("%.4g before training, %.4g after %d full-batch steps of Adam", e.gloveJ[0], e.gloveJ[len(e.gloveJ)-1], len(e.gloveJ))
	switch {
	case e.gl == nil:
		gq := gloveQuality()
		meta["glove_same_class"] = gloveQualityFact(gq)
	case e.training: // measured in Static after training: it costs about 20 GloVe steps
		meta["glove_J"] = e.ownGloVeJ()
		delete(meta, "glove_same_class")
	default:
		meta["glove_J"] = e.ownGloVeJ()
		meta["glove_same_class"] = gloveQualityFact(zoo.EmbeddingQuality(e.glove))
	}
	meta["focus"] = e.focus()
	meta["features"] = featuresTable()
	meta["similarity"] = e.similarityTable()
	meta["analogy"] = e.analogyTable()
	meta["neighbours"] = e.neighboursTable()
}

// weightsFact says where the weights come from.
func (e *embedModel) weightsFact() string {
	if e.gl != nil {
		return fmt.Sprintf("GloVe trained from scratch for %d full-batch steps (seed %d); skip-gram: the bundled checkpoint", e.trained, e.seed)
	}
	if e.method == embedGloVe {
		return fmt.Sprintf("GloVe: %d full-batch steps from seed %d, trained when the server first needed it; skip-gram: the bundled checkpoint, %s steps from seed %s", zoo.GloVeSteps, zoo.GloVeSeed, e.ck["steps"], e.ck["seed"])
	}
	if e.trained == 0 {
		return fmt.Sprintf("bundled checkpoint: %s steps from seed %s (go run ./cmd/train)", e.ck["steps"], e.ck["seed"])
	}
	return fmt.Sprintf("trained from scratch for %d steps (seed %d)", e.trained, e.seed)
}

// focus is what the map marks besides the current example: the typed word and its
// neighbours.
func (e *embedModel) focus() map[string]any {
	var ids []int
	for _, n := range e.neighbours(e.query, embedNeighbours) {
		ids = append(ids, n.Word)
	}
	return map[string]any{"word": e.query, "neighbours": ids}
}

// neighbours are w's nearest neighbours in the space the map shows.
func (e *embedModel) neighbours(w, k int) []models.Neighbour {
	E := e.space()
	return models.Nearest(E, E.RawRowView(w), k, w)
}

// space is the embeddings the map shows: skip-gram's E, or GloVe's (e_w + θ_w)/2
// when the method is GloVe.
func (e *embedModel) space() *mat.Dense {
	if e.method == embedGloVe {
		return e.glove
	}
	return e.m.E.Value
}

func (e *embedModel) spaceName() string {
	if e.method == embedGloVe {
		return "GloVe (e(w) + θ(w))/2"
	}
	return "e(w)"
}

func gloveQualityFact(q zoo.EmbedQuality) string {
	return fmt.Sprintf("%.0f%% of content words have a nearest neighbour of their own class (%.0f%% by chance); analogies %d of %d", 100*q.SameClass, 100*q.Chance, q.Analogies, q.AnalogyCount)
}

// ownGloVeJ is the J fact of the GloVe model the page trains.
func (e *embedModel) ownGloVeJ() string {
	return fmt.Sprintf("%.4g before training, %.4g before step %d (trained on the page from seed %d)", e.glJ[0], e.glJ[1], e.trained, e.seed)
}

// At is the skip-gram example of step t: the t-th (centre, context) pair of the
// sentence and its k negatives, scored by the current model.
func (e *embedModel) At(t int) sim.Frame {
	p, negs := e.pairs[t-1], e.negatives[t-1]
	words := e.corpus.Words
	scores := []float64{e.m.Score(p[0], p[1])}
	names := make([]string, len(negs))
	bars := []string{words[p[1]] + " (context)"} // the bars' names, for their tooltips
	for i, n := range negs {
		s := e.m.Score(p[0], n)
		scores = append(scores, s)
		names[i] = fmt.Sprintf("%s %.2f", words[n], s)
		bars = append(bars, words[n])
	}
	loss, err := e.m.Loss([]models.SkipGramExample{{Centre: p[0], Context: p[1], Negatives: negs}})
	if err != nil {
		loss = math.MaxFloat32 // a diverged model: the loss is +Inf, which JSON cannot carry
	}
	return sim.Frame{
		Arrays: []sim.Array{sim.Vector("scores", scores)},
		Meta: map[string]any{
			"centre_c":           words[p[0]],
			"context_t":          words[p[1]],
			"true_pair_score":    round4(scores[0]),
			"negatives":          strings.Join(names, ", "),
			"example_loss":       round4(loss),
			"softmax_normaliser": fmt.Sprintf("%.4g, a sum of V = %d terms for this one prediction", e.m.SoftmaxNormaliser(p[0]), e.m.Vocab()),
			"pair":               fmt.Sprintf("%d of %d", t, len(e.pairs)),
			"example":            map[string]any{"c": p[0], "t": p[1], "n": negs, "s": roundAll(scores)},
			"axes":               map[string]any{"scores": map[string]any{"col_title": "word", "cols": bars}},
		},
	}
}

func roundAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = round4(x)
	}
	return out
}

// TrainStep trains from scratch: the first call replaces the bundled weights by
// fresh ones drawn from the seed, then every call is one minibatch of Adam. The
// progress frame carries the loss curve and the map's points, so the page redraws
// the map as it trains.
func (e *embedModel) TrainStep() (sim.Frame, error) {
	var loss float64
	var err error
	if e.method == embedGloVe {
		e.stream(e.seed, func() { e.gl = zoo.NewGloVeModel(e.seed, e.window) })
		loss, err = e.gl.TrainStep() // e.glove follows at the next refresh
		if e.trained == 0 {
			e.glJ[0] = loss
		}
		e.glJ[1] = loss
	} else {
		rng := e.stream(e.seed, func() { e.m = zoo.NewEmbedModel(e.seed) })
		loss, err = e.m.TrainStep(rng, e.window, e.k)
	}
	if err != nil {
		return sim.Frame{}, fmt.Errorf("lessons: training diverged at step %d: %w", e.trained+1, err)
	}
	e.trained++
	e.stale = true
	if e.trained == 1 || e.trained%embedRefreshEvery == 0 {
		e.training = true
		e.refresh(e.trained > 1)
		e.training = false
		e.stale = e.gl != nil // Static measures GloVe's quality
	} else {
		e.static.Meta["weights"] = e.weightsFact()
	}
	points := make([][2]float64, len(e.points)/2)
	for i := range points {
		points[i] = [2]float64{round4(e.points[2*i]), round4(e.points[2*i+1])}
	}
	return sim.Frame{
		Arrays: []sim.Array{e.lossCurve.add(loss)},
		Meta:   map[string]any{"loss": round4(loss), "trained_steps": e.trained, "points": points},
	}, nil
}

// spaceSeries is the map as one series of points per word class, the most frequent
// content words labelled, then the typed word w and its embedNeighbours nearest
// neighbours argmax sim(e_v, e_w) as a last series of their own, all labelled: the
// view the page's word field chose.
func spaceSeries(sm sim.Model) []Series {
	e := sm.(*embedModel)
	c := e.corpus
	focus := []int{e.query}
	for _, n := range e.neighbours(e.query, embedNeighbours) {
		focus = append(focus, n.Word)
	}
	out := make([]Series, len(data.WordClasses))
	labelled := 0
	for w := range c.Words {
		s := &out[c.Class[w]]
		s.Label = data.WordClasses[c.Class[w]]
		s.X, s.Y = append(s.X, e.points[2*w]), append(s.Y, e.points[2*w+1])
		label := ""
		if c.Class[w] != data.ClassFunction && labelled < embedPlotLabels {
			labelled++
			if !slices.Contains(focus, w) { // labelled once, by the last series
				label = c.Words[w]
			}
		}
		s.Labels = append(s.Labels, label)
	}
	var kept []Series
	for _, s := range out {
		if len(s.X) > 0 {
			kept = append(kept, s)
		}
	}
	near := Series{Label: fmt.Sprintf("%q and its %d nearest neighbours", c.Words[e.query], len(focus)-1)}
	for _, w := range focus {
		near.X, near.Y = append(near.X, e.points[2*w]), append(near.Y, e.points[2*w+1])
		near.Labels = append(near.Labels, c.Words[w])
	}
	return append(kept, near)
}

// lossSeries is the bundled checkpoint's recorded training loss.
func lossSeries(sm sim.Model) []Series {
	e := sm.(*embedModel)
	every := e.ck.Float("loss_curve_every")
	s := Series{Label: `mean \(L\) over ` + e.ck["loss_curve_every"] + " steps"}
	for i, f := range strings.Split(e.ck["loss_curve"], ",") {
		y, err := strconv.ParseFloat(f, 64)
		if err != nil {
			continue
		}
		s.X, s.Y = append(s.X, every*float64(i+1)), append(s.Y, y)
	}
	return []Series{s}
}

var embeddingsLesson = &Lesson{
	Slug:    "embeddings",
	Short:   "Embeddings",
	Section: "003",
	Title:   "Word embeddings",
	Summary: "From one-hot to featurised vectors, cosine similarity and analogies, and skip-gram with negative sampling trained live on the corpus, its embedding space drawn with PCA.",
	Prose: []string{
		`So far every word entered a network as a <b>one-hot</b> vector \(o_w\): all zeros except a 1 at the word's index. Such vectors say nothing about meaning. Any two different words are orthogonal, so their cosine similarity is 0 whether they are <i>man</i> and <i>woman</i> or <i>man</i> and <i>orange</i>, and whatever a network learns about one word does not carry over to another.`,
		`A <b>featurised</b> representation gives each word a short dense vector instead. In the lecture's table every word is scored by hand on a few features (gender, royal, age, food); similar words get similar vectors, and <b>cosine similarity</b> \(\mathrm{sim}(u, v) = u^\top v / (\lVert u\rVert\,\lVert v\rVert)\) measures it. Differences carry meaning too: \(e_{man} - e_{woman} \approx e_{king} - e_{queen} \approx [-2, 0, 0, 0]\), so the question “<i>man</i> → <i>woman</i> as <i>king</i> → ?” is answered by the word whose vector is closest to \(e_{king} - e_{man} + e_{woman}\). The three query words are left out, because the query vector is usually closest to \(e_{king}\) itself. On the table the answer is <i>queen</i>, with cosine 0.9998.`,
		`Nobody writes such tables for a whole vocabulary: the vectors are learned. An <b>embedding matrix</b> \(E\) holds one vector per word (looking up \(e_w\) is the same as multiplying \(E\) by \(o_w\)). <b>Skip-gram</b> (word2vec) learns it from plain text by asking whether a word \(t\) appeared near a centre word \(c\). With <b>negative sampling</b> each question is a binary classifier, \(P(y{=}1 \mid c, t) = \sigma(\theta_t^\top e_c)\), trained on the true pair (label 1) and on \(k\) words drawn at random (label 0). The random words are drawn in proportion to \(f(w)^{3/4}\), which gives rare words a bigger share than their count. Words that occur in similar contexts end up with similar vectors.`,
		`Skip-gram is first written with a softmax over the whole vocabulary, and negative sampling stands in for it: the probability that \(t\) appears near \(c\) is \(P(t \mid c) = \exp(\theta_t^\top e_c) / Z_c\), where \(Z_c = \sum_{w=1}^{V} \exp(\theta_w^\top e_c)\), trained with the cross-entropy loss \(-\log P(t \mid c)\). The denominator is what makes it slow: one prediction needs the score of every one of the \(V\) words, and its gradient moves all \(V\) output vectors \(\theta_w\). <b>Hierarchical softmax</b> keeps a normalised \(P(t \mid c)\) but computes it differently: the words are the leaves of a binary tree (a Huffman tree, so frequent words sit near the root), each inner node \(n\) has its own vector \(\theta_n\), and \(P(t \mid c)\) is the product of the left-or-right decisions \(\sigma(\pm\theta_n^\top e_c)\) on the path from the root to \(t\): \(O(\log V)\) terms instead of \(V\). Negative sampling, used here, gives up the normalised distribution altogether: per pair it scores only the true word and \(k\) noise words, \(k + 1\) binary classifiers, and its scores are not probabilities over the vocabulary. What it keeps is the pull of \(e_c\) towards the words seen near \(c\) and away from random ones, which is what the embeddings need. The facts give the three costs for this model's \(V\), and at each step the softmax's denominator for the centre word, a sum the page computes over the whole vocabulary.`,
		`Here the model learns 32-dimensional embeddings from the English side of the page's translation corpus: about 3,600 short sentences and 262 words, with punctuation left out and frequent words like <i>the</i> subsampled. The scrubber walks through the training examples of one sentence: each step is one (centre, context) pair with its \(k\) negatives, scored by the current model, and the map marks the centre word (ringed), the true context word (green) and the negatives (red). The map shows every word projected on the first two principal components of its unit-length embedding, coloured by its word class in the corpus generator's lexicon. The model never sees these classes.`,
		`The bundled embeddings (4,000 steps of Adam) put the nearest neighbour of 85% of the content words in the same class, against 32% by chance: pronouns sit with pronouns (<i>he</i> next to <i>she</i>, cosine 0.90), food with food (<i>apple</i> next to <i>orange</i>), things with things (<i>car</i> next to <i>house</i> and <i>bike</i>), adjectives together, and <i>school</i>, <i>paris</i> and <i>london</i> almost on top of each other, since all three only ever follow “to”. Analogies mostly fail, and that is a finding about the data: in these English sentences <i>man</i> and <i>woman</i> occur in exactly the same contexts (the grammar treats them alike), so nothing in the text separates them and no vector offset can encode gender. Of nine analogy questions from the corpus only <i>boy</i> → <i>boys</i> as <i>girl</i> → <i>girls</i> comes out right, and the analogy table opens on it: the trained vectors answer <i>girls</i>. The lecture's <i>man</i> → <i>woman</i> as <i>king</i> → ? is answered on the hand-made feature table (the table's first row, always shown), for two reasons: the corpus has no <i>king</i> or <i>queen</i> at all (its lexicon has no royals, so the trained vectors have no \(e_{king}\); type <i>king</i> and the trained row says so), and even <i>man</i> and <i>woman</i> carry no gender in this text. <b>Train</b> starts again from random vectors (drawn from the seed) and redraws the map as it learns: with seed 1, 200 steps already give 77% same-class neighbours and 400 steps 85%.`,
		`<b>GloVe</b> learns from the same text in one piece instead of pair by pair. It first counts, for every two words \(i\) and \(j\), how often \(j\) falls within the window of \(i\): the co-occurrence matrix \(X\), here with the skip-gram window of 2 words each side, every neighbour counted once whatever its distance, and no subsampling. Because the window looks both ways, \(X\) is symmetric. It then fits \(\theta_i^\top e_j + b_i + b'_j\) to \(\log X_{ij}\) by least squares, each pair weighted by \(f(X_{ij})\): zero for pairs never seen together (their logarithm does not exist), small for rare pairs whose counts are noisy, and capped at 1 from \(x_{\max} = 100\) on so that pairs like “the … the” do not dominate (\(\alpha = 3/4\), the paper's values; 52 entries of this corpus reach 100). Since \(X\) is symmetric, \(\theta\) and \(e\) play the same role, and the embedding kept is their mean. The tables add a <i>GloVe</i> row beside skip-gram's: 32 dimensions, 300 full-batch steps of Adam from seed 3, trained when the page is first opened (under a second). \(J\) falls from about 4,400 to 0.043, but the vectors group words less well than skip-gram's: 61% same-class neighbours against 85%. With 262 words and 32 dimensions GloVe has more parameters than \(X\) has non-zero entries, so it can fit nearly every count exactly, noise included; skip-gram's sampled pairs and negatives do not let it memorise that way. Set the method to GloVe and the map shows GloVe's space instead, and <b>Train</b> fits a fresh GloVe model from the seed, on the window chosen above, one full-batch step of Adam on \(J\) per training step; the loss curve is then \(J\). The scrubber's steps stay skip-gram's: its (centre, context) pairs scored by the skip-gram model, marked on GloVe's map, since GloVe has no pairs to step through, only the counts of \(X\).`,
	},
	Equations: []Equation{
		{TeX: `e_w = E\, o_w, \qquad \mathrm{sim}(o_u, o_v) = 0 \ \ (u \ne v)`},
		{TeX: `\mathrm{sim}(u, v) = \cos\varphi = \frac{u^\top v}{\lVert u\rVert_2\, \lVert v\rVert_2}`},
		{TeX: `a \to b \text{ as } c \to\ ?: \quad \hat w = \arg\max_{w \notin \{a, b, c\}} \mathrm{sim}(e_w,\ e_c - e_a + e_b)`},
		{TeX: `\htmlClass{sym-scores}{P(y = 1 \mid c, t)} = \sigma(\theta_t^\top e_c)`, Symbols: []Symbol{{ID: "scores", Array: "scores"}}},
		{TeX: `\text{softmax (not trained here):}\quad P(t \mid c) = \frac{\exp(\theta_t^\top e_c)}{\sum_{w=1}^{V} \exp(\theta_w^\top e_c)}`},
		{TeX: `L = -\log \sigma(\theta_t^\top e_c) - \sum_{i=1}^{k} \log \sigma(-\theta_{n_i}^\top e_c)`},
		{TeX: `n_i \sim P(w) = \frac{f(w)^{3/4}}{\sum_j f(w_j)^{3/4}}`},
		{TeX: `J = \sum_{i,j} f(X_{ij}) \big(\theta_i^\top e_j + b_i + b'_j - \log X_{ij}\big)^2`},
		{TeX: `f(x) = \begin{cases} (x/x_{\max})^{3/4} & 0 < x < x_{\max} \\ 1 & x \ge x_{\max} \\ 0 & x = 0 \end{cases}, \qquad e_w^{\text{final}} = \frac{e_w + \theta_w}{2}`},
	},
	Arrays: []Array{
		{Name: "points", Label: `PCA of the unit-length \(e_w\)`, Axes: []Axis{Points, Coords}},
		{Name: "scores", Label: `\(\sigma(\theta^\top e_c)\)`, Axes: []Axis{Items}, PerStep: true},
		{Name: "logX", Label: `\(\log X_{ij}\)`, Axes: []Axis{Vocabulary, Vocabulary}},
		{Name: "X_seen", Label: `\(X_{ij} > 0\)`, Axes: []Axis{Vocabulary, Vocabulary}},
	},
	Loss:  "loss_curve",
	Stage: []string{"space", "scores"},
	Panels: []Panel{
		{ID: "space", Static: []string{"words", "word_class", "class_names", "focus"}, Meta: []string{"example"}, Train: []string{"points"}, Kind: Scatter, Title: `the embedding space on its first two principal components: skip-gram's \(e_w\), or GloVe's \((e_w + \theta_w)/2\) when the method is GloVe`, Arrays: []string{"points"},
			Note: `Colours are word classes from the lexicon, which the model never sees. Ringed: the centre word c; green: its true context t; red: the k negatives, with their scores \(\sigma(\theta^\top e_c)\).`},
		{ID: "scores", Meta: []string{"axes"}, Kind: Bars, Title: `\(\sigma(\theta^\top e_c)\) for the true context (bar 1) and the \(k\) negatives`, Arrays: []string{"scores"}, Scale: []float64{0, 1}, Symbol: "scores",
			Note: "Training pushes bar 1 towards 1 and the others towards 0; the words are listed in the facts."},
		{ID: "features", Static: []string{"features"}, Kind: Table, Title: "featurised representation (lecture 003)",
			Note: "Hand-made features: man, woman, king and queen carry the lecture's numbers."},
		{ID: "similarity", Static: []string{"similarity"}, Kind: Table, Title: "cosine similarity: one-hot, features, trained",
			Note: "One-hot vectors of two different words are orthogonal: cosine 0 for every pair. On the hand-made table man and woman point opposite ways (gender ±1 outweighs the rest): similarity depends on the features. — : a word the corpus does not have."},
		{ID: "analogy", Static: []string{"analogy"}, Kind: Table, Title: "analogies by vector offset",
			Note: "Top answers by cosine, the three query words left out; the best is green. Row 1 is the lecture's question on the feature table: the corpus has no king or queen."},
		{ID: "neighbours", Static: []string{"neighbours"}, Kind: Table, Title: "nearest neighbours by cosine"},
		{ID: "cooccurrence", Static: []string{"axes"}, Kind: Alignment, Title: `GloVe's co-occurrence counts \(\log X_{ij}\) of the 16 most frequent words (window ±2)`, Arrays: []string{"logX", "X_seen"}, Scale: []float64{0, embedCoocScale},
			Note: `Symmetric, as the window looks both ways. Hatched: \(X_{ij} = 0\), where \(f = 0\) and the pair adds nothing to \(J\).`},
	},
	Params: sim.Specs{
		{Name: "sentence", Label: "walk-through sentence", Kind: sim.Text, MaxLen: embedMaxSentence, MaxLenWhy: "every word makes up to 8 skip-gram pairs, one step each, and about 16 words already make a long walk-through", Default: embedDefaultWords,
			Help: "Its skip-gram pairs are the steps; every word must be in the corpus vocabulary."},
		{Name: "word", Label: "neighbours of", Kind: sim.Text, MaxLen: 30, MaxLenWhy: oneWordWhy, Default: "girl"},
		{Name: "a", Label: "analogy: a", Kind: sim.Text, MaxLen: 30, MaxLenWhy: oneWordWhy, Default: "boy",
			Help: "a → b as c → ?; the default is the corpus question the trained vectors get right. The lecture's man → woman as king → ? is answered on the feature table."},
		{Name: "b", Label: "analogy: b", Kind: sim.Text, MaxLen: 30, MaxLenWhy: oneWordWhy, Default: "boys"},
		{Name: "c", Label: "analogy: c", Kind: sim.Text, MaxLen: 30, MaxLenWhy: oneWordWhy, Default: "girl"},
		{Name: "negatives", Label: "negatives", Kind: sim.Int, Default: strconv.Itoa(zoo.EmbedNegatives), Min: 1, Max: 10, Step: 1, Symbol: "k",
			Help: "Words drawn from f(w)^¾ per true pair, in the walk-through and in training."},
		{Name: "window", Label: "context window", Kind: sim.Int, Default: strconv.Itoa(zoo.EmbedWindow), Min: 1, Max: 4, Step: 1,
			Help: "A context word is at most this many words from the centre word."},
		{Name: "method", Label: "method", Kind: sim.Choice, Choices: []string{embedSkipGram, embedGloVe}, Default: embedSkipGram,
			Help: "What Train trains from scratch and the map shows: skip-gram's e(w), or GloVe's (e(w) + θ(w))/2 fitted to log X on the same corpus and window (one full-batch step of Adam per training step). The tables show both."},
		seedSpec(1, "Draws the walk-through's negatives and the random start of training."),
	},
	Plots: []Plot{
		{Name: "space", Title: `word embeddings \(e_w\), first two principal components`, XLabel: "PC1", YLabel: "PC2", Points: true, Series: spaceSeries},
		{Name: "loss", Title: `skip-gram negative-sampling loss \(L\) while training the bundled embeddings`, XLabel: "training step", YLabel: `\(L\)`, Series: lossSeries},
	},
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/embeddings.html"), Scripts: []string{embeddingsScript}},
	Build:   buildEmbeddings,
	Facts:   embedFacts,
	LossNames: []LossName{
		{TeX: `\(L\)`, When: &sim.Applies{Param: "method", Values: []string{embedSkipGram}, Why: "skip-gram's loss"}},
		{TeX: `\(J\)`, When: &sim.Applies{Param: "method", Values: []string{embedGloVe}, Why: "GloVe's loss"}},
	},
	Trains: true,
	// 10000 (sim.MaxTrainSteps): 0.35 ms a step on one core with the map redrawn every 5th, 4 s; seed 1 reaches 85% same-class neighbours in 400.
	// A full-batch GloVe step takes 0.8 ms with the map: 10000 steps in 8 s, and J has levelled off after about 300.
	MaxTrained: 10000,
	Largest:    sim.Values{"sentence": "the girl drinks milk the boy eats the apple the man sees the woman", "window": "4", "negatives": "10", "method": "GloVe"},
	// 299 KB measured on a 14-word sentence with window 4 and 10 negatives, 46 KB at the defaults: the frames; the embeddings are shared.
	SessionBytes: 480 << 10,
	// 577 KB measured for skip-gram (its own E and Θ, their gradients and Adam's moments); GloVe at window 4
	// (Largest) 996 KB (θ, e, b, b′, gradients, Adam's moments and X's 10,437 non-zero entries); and a loss curve of 10000 steps.
	TrainedBytes: 1536 << 10,
}

// embedFacts labels the page's facts in the lecture's words.
var embedFacts = factTable{
	static: []fact{
		{key: "vocabulary", label: "vocabulary"},
		{key: "d", label: "embedding size d"},
		{key: "map", label: "map"},
		{key: "same_class_neighbours", label: "same-class neighbours"},
		{key: "weights", label: "weights"},
		{key: "V", label: "vocabulary size V"},
		{key: "softmax_cost", label: `softmax: scores \(\theta_w^\top e_c\) per prediction, V`},
		{key: "hierarchical_cost", label: `hierarchical softmax: binary decisions per prediction`},
		{key: "negative_sampling_cost", label: `negative sampling: scores per pair, k + 1`},
		{key: "cost_ratio", label: `softmax ÷ negative sampling, V / (k + 1)`, measured: true},
		{key: "glove_X", label: `GloVe: co-occurrence counts \(X_{ij}\)`},
		{key: "glove_f", label: `GloVe: weighting \(f(X_{ij})\)`},
		{key: "glove_J", label: `GloVe: loss \(J\)`, measured: true},
		{key: "glove_same_class", label: `GloVe: same-class neighbours of \((e_w + \theta_w)/2\)`, measured: true},
	},
	step: []fact{
		{key: "pair", label: "pair"},
		{key: "centre_c", label: "centre word c"},
		{key: "context_t", label: "context word t"},
		{key: "true_pair_score", label: `\(\sigma(\theta_t^\top e_c)\)`, measured: true},
		{key: "negatives", label: "negative samples"},
		{key: "example_loss", label: "loss of the example", measured: true},
		{key: "softmax_normaliser", label: `softmax denominator \(\sum_w \exp(\theta_w^\top e_c)\)`},
	},
}
