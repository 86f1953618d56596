package exports

import (
	"encoding/json"
	"strings"
	"testing"

	"unroll/figures"
)

// TestTreeFigure: the beam-search tree at a middle step shows the hypotheses of the
// steps so far, pruned ones as pruned and no best path yet; after the last step its
// PDF has every kept and finished hypothesis' last word, and the best hypothesis'
// path (the root and every node the search marks best) is outlined, its edges too.
func TestTreeFigure(t *testing.T) {
	l := lessonNamed(t, "beam-search")
	p := panelNamed(t, l, "tree")
	m := built(t, l)
	raw, _ := json.Marshal(m.Static().Meta[p.ID])
	var tree struct {
		Nodes []struct {
			T    int    `json:"t"`
			Word string `json:"word"`
			Fate string `json:"fate"`
			Best bool   `json:"best"`
			More int    `json:"more"`
		} `json:"nodes"`
		Counts []json.RawMessage `json:"counts"`
		Best   int               `json:"best"`
	}
	if err := json.Unmarshal(raw, &tree); err != nil || len(tree.Counts) == 0 {
		t.Fatalf("the lesson's tree: %v", err)
	}
	steps := len(tree.Counts)
	count := func(f figures.Figure, m figures.Mark) (n int) {
		for _, node := range f.Diagram.Nodes {
			if node.Mark.Has(m) {
				n++
			}
		}
		return n
	}
	mid := (steps + 1) / 2
	f, err := Panel(viewAt(t, l, m, mid), p)
	if err != nil {
		t.Fatal(err)
	}
	var pruned, shown int
	for _, n := range tree.Nodes {
		if n.T <= mid && n.More == 0 {
			shown++
			if n.Fate == "pruned" {
				pruned++
			}
		}
	}
	if got := len(f.Diagram.Nodes) - 1; got != shown { // and the root
		t.Errorf("step %d: %d hypotheses drawn, want the %d of steps 1..%d", mid, got, shown, mid)
	}
	if got := count(f, figures.Pruned); got != pruned {
		t.Errorf("step %d: %d nodes drawn pruned, want %d", mid, got, pruned)
	}
	if got := count(f, figures.Best); got != 0 {
		t.Errorf("step %d: %d nodes on the best path before the search ended", mid, got)
	}

	f, err = Panel(viewAt(t, l, m, steps+1), p)
	if err != nil {
		t.Fatal(err)
	}
	best := 1 // the root
	for _, n := range tree.Nodes {
		if n.Best && n.More == 0 {
			best++
		}
	}
	if got := count(f, figures.Best); got != best || best < 2 {
		t.Errorf("after the search: %d nodes outlined best, want the root and the %d on ŷ's path", got, best-1)
	}
	var bestEdges int
	for _, e := range f.Diagram.Edges {
		if e.Style == figures.EdgeBest {
			bestEdges++
		}
	}
	if bestEdges != best-1 {
		t.Errorf("after the search: %d edges on the best path, want %d", bestEdges, best-1)
	}
	pdf, err := figures.Draw(f, figures.PDF, figures.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, ok := pdfText(t, pdf)
	if !ok {
		t.Skip("pdftotext (poppler-utils) is not installed")
	}
	text = squeeze(text)
	for _, n := range tree.Nodes {
		if n.More == 0 && n.Fate != "pruned" && !strings.Contains(text, squeeze(n.Word)) {
			t.Errorf("the %s hypothesis ending in %q at step %d is not in the PDF's text", n.Fate, n.Word, n.T)
		}
	}
}
