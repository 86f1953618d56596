package lessons

import (
	"fmt"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
)

// featureWords and featureNames are the lecture's featurised representation: each
// word scored by hand on a few features. man, woman, king and queen carry the
// lecture's numbers; boy, girl, apple and orange are added in the same spirit.
var (
	featureNames = []string{"gender", "royal", "age", "food"}
	featureWords = []string{"man", "woman", "king", "queen", "boy", "girl", "apple", "orange"}
	featureTable = mat.NewDense(8, 4, []float64{
		// gender royal age food
		-1, 0.01, 0.01, 0.03, // man
		1, 0.02, 0.01, 0.04, // woman
		-0.99, 0.97, 0.78, 0.04, // king
		0.99, 0.96, 0.77, 0.02, // queen
		-0.98, 0.00, -0.75, 0.02, // boy
		0.99, 0.01, -0.76, 0.01, // girl
		0.00, -0.01, 0.03, 0.95, // apple
		0.01, 0.00, -0.02, 0.97, // orange
	})
)

// featureIndex is w's row of the feature table, -1 when it has none.
func featureIndex(w string) int {
	for i, x := range featureWords {
		if x == w {
			return i
		}
	}
	return -1
}

// cosCell is a word with its cosine similarity under it.
func cosCell(text string, cos float64) tableCell {
	return tableCell{Text: text, Sub: strconv.FormatFloat(cos, 'f', 2, 64)}
}

// featuresTable is the lecture's table: a row per feature, a column per word.
func featuresTable() table {
	t := table{Title: "featurised vectors: each word scored by hand on a few features", Head: featureWords}
	for f, name := range featureNames {
		row := tableRow{Label: name}
		for w := range featureWords {
			row.Cells = append(row.Cells, tableCell{Text: strconv.FormatFloat(featureTable.At(w, f), 'g', 3, 64)})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// similarityPairs are the word pairs the cosine table compares.
var similarityPairs = [][2]string{{"man", "woman"}, {"boy", "girl"}, {"king", "queen"}, {"apple", "orange"}, {"man", "king"}, {"man", "apple"}, {"girl", "orange"}}

// similarityTable compares sim(u, v) for the same pairs under one-hot vectors, the
// featurised table and the trained embeddings.
func (e *embedModel) similarityTable() table {
	t := table{Title: "cosine similarity sim(e_u, e_v) of word pairs"}
	oneHot, feat, trained, glove := tableRow{Label: "one-hot"}, tableRow{Label: "features"}, tableRow{Label: "trained"}, tableRow{Label: "GloVe"}
	for _, p := range similarityPairs {
		t.Head = append(t.Head, p[0]+"·"+p[1])
		oneHot.Cells = append(oneHot.Cells, tableCell{Text: "0", Mark: "off"})
		fu, fv := featureIndex(p[0]), featureIndex(p[1])
		feat.Cells = append(feat.Cells, tableCell{Text: strconv.FormatFloat(models.Cosine(featureTable.RawRowView(fu), featureTable.RawRowView(fv)), 'f', 2, 64)})
		u, okU := e.corpus.Index[p[0]]
		v, okV := e.corpus.Index[p[1]]
		if okU && okV {
			trained.Cells = append(trained.Cells, tableCell{Text: strconv.FormatFloat(models.Cosine(e.m.Embedding(u), e.m.Embedding(v)), 'f', 2, 64)})
			glove.Cells = append(glove.Cells, tableCell{Text: strconv.FormatFloat(models.Cosine(e.glove.RawRowView(u), e.glove.RawRowView(v)), 'f', 2, 64)})
		} else {
			trained.Cells = append(trained.Cells, tableCell{Text: "—", Mark: "cut"})
			glove.Cells = append(glove.Cells, tableCell{Text: "—", Mark: "cut"})
		}
	}
	t.Rows = []tableRow{oneHot, feat, trained, glove}
	return t
}

// analogyTable answers the lecture's example on the features, then the typed
// question on the features and on the trained embeddings.
func (e *embedModel) analogyTable() table {
	a, b, c := e.analogy[0], e.analogy[1], e.analogy[2]
	t := table{Title: fmt.Sprintf("%s → %s as %s → ?   argmax sim(e(w), e(%s) − e(%s) + e(%s)), the three words left out", a, b, c, c, a, b)}
	answers := func(label string, E *mat.Dense, words []string, ids [3]int, k int) tableRow {
		row := tableRow{Label: label}
		for _, n := range models.Analogy(E, ids[0], ids[1], ids[2], k) {
			row.Cells = append(row.Cells, cosCell(words[n.Word], n.Cosine))
		}
		row.Cells[0].Mark = "on"
		return row
	}
	t.Rows = append(t.Rows, answers("lecture, on features", featureTable, featureWords, [3]int{featureIndex("man"), featureIndex("woman"), featureIndex("king")}, 3))
	missing := func(words []string, in func(string) bool) string {
		for _, w := range words {
			if !in(w) {
				return w
			}
		}
		return ""
	}
	query := []string{a, b, c}
	if w := missing(query, func(w string) bool { return featureIndex(w) >= 0 }); w != "" {
		t.Rows = append(t.Rows, tableRow{Label: "features", Cells: []tableCell{{Text: fmt.Sprintf("%q is not in the feature table", w), Mark: "cut"}}})
	} else {
		t.Rows = append(t.Rows, answers("features", featureTable, featureWords, [3]int{featureIndex(a), featureIndex(b), featureIndex(c)}, 3))
	}
	if w := missing(query, func(w string) bool { _, ok := e.corpus.Index[w]; return ok }); w != "" {
		t.Rows = append(t.Rows, tableRow{Label: "trained", Cells: []tableCell{{Text: fmt.Sprintf("%q is not in the corpus vocabulary", w), Mark: "cut"}}})
	} else {
		ix := e.corpus.Index
		t.Rows = append(t.Rows, answers("trained", e.m.E.Value, e.corpus.Words, [3]int{ix[a], ix[b], ix[c]}, embedAnswers))
		t.Rows = append(t.Rows, answers("GloVe", e.glove, e.corpus.Words, [3]int{ix[a], ix[b], ix[c]}, embedAnswers))
	}
	return t
}

// neighboursTable lists the typed word's nearest neighbours by cosine.
func (e *embedModel) neighboursTable() table {
	w := e.corpus.Words[e.query]
	t := table{Title: fmt.Sprintf("nearest neighbours of %q: argmax sim(e(w), e(%s))", w, w)}
	row := tableRow{Label: "trained"}
	for _, n := range models.Nearest(e.m.E.Value, e.m.E.Value.RawRowView(e.query), embedNeighbours, e.query) {
		row.Cells = append(row.Cells, cosCell(e.corpus.Words[n.Word], n.Cosine))
	}
	t.Rows = append(t.Rows, row)
	row = tableRow{Label: "GloVe"}
	for _, n := range models.Nearest(e.glove, e.glove.RawRowView(e.query), embedNeighbours, e.query) {
		row.Cells = append(row.Cells, cosCell(e.corpus.Words[n.Word], n.Cosine))
	}
	t.Rows = append(t.Rows, row)
	if f := featureIndex(w); f >= 0 {
		row := tableRow{Label: "features"}
		for _, n := range models.Nearest(featureTable, featureTable.RawRowView(f), 3, f) {
			row.Cells = append(row.Cells, cosCell(featureWords[n.Word], n.Cosine))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
