package lessons

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// beamBuild builds the beam-search page from its defaults with the changes applied.
func beamBuild(t *testing.T, changes map[string]string) (*beamModel, error) {
	t.Helper()
	v := beamLesson.Params.Defaults()
	for k, s := range changes {
		if _, ok := v[k]; !ok {
			t.Fatalf("no parameter %q", k)
		}
		v[k] = s
	}
	m, err := beamLesson.Build(v)
	if err != nil {
		return nil, err
	}
	return m.(*beamModel), nil
}

func mustBeam(t *testing.T, changes map[string]string) *beamModel {
	t.Helper()
	m, err := beamBuild(t, changes)
	if err != nil {
		t.Fatalf("build %v: %v", changes, err)
	}
	return m
}

// TestBeamClassicTrap is the lecture-style worked example the page opens with:
// greedy search finds 0.5·0.4·0.4·0.6 = 0.048, beam search with k = 2 and exhaustive
// search find 0.5·0.3·0.6·0.6 = 0.054, and the error analysis blames the search only
// while the beam is too narrow to find y*.
func TestBeamClassicTrap(t *testing.T) {
	const tol = 1e-9
	greedyP, bestP := 0.5*0.4*0.4*0.6, 0.5*0.3*0.6*0.6
	m := mustBeam(t, nil)
	tests := []struct {
		name string
		h    models.Hypothesis
		want string
		p    float64
	}{
		{"greedy", m.greedy, "jane goes africa <eos>", greedyP},
		{"beam k=2", m.res.Best, "jane visits africa <eos>", bestP},
		{"exhaustive", *m.exhaustive, "jane visits africa <eos>", bestP},
	}
	for _, tc := range tests {
		if got := m.sentence(tc.h.Tokens); got != tc.want || math.Abs(math.Exp(tc.h.LogProb)-tc.p) > tol {
			t.Errorf("%s: got %q P=%v want %q P=%v", tc.name, got, math.Exp(tc.h.LogProb), tc.want, tc.p)
		}
	}
	if math.Abs(greedyP-0.048) > tol || math.Abs(bestP-0.054) > tol {
		t.Errorf("the lecture's products: got %v and %v want 0.048 and 0.054", greedyP, bestP)
	}
	// the comparison table shows the two products
	tab := m.compare()
	cells := func(label string) []string {
		for _, r := range tab.Rows {
			if r.Label == label {
				var out []string
				for _, c := range r.Cells {
					out = append(out, c.Text)
				}
				return out
			}
		}
		return nil
	}
	for label, want := range map[string][]string{
		"greedy":       {"jane goes africa <eos>", "4", "0.048"},
		"beam, k = 2":  {"jane visits africa <eos>", "4", "0.054"},
		"exhaustive":   {"jane visits africa <eos>", "4", "0.054"},
		"reference y*": {"jane visits africa <eos>", "4", "0.054"},
	} {
		if got := cells(label); len(got) < 3 || !slices.Equal(got[:3], want) {
			t.Errorf("compare row %q: got %v want %v…", label, got, want)
		}
	}

	verdicts := []struct {
		changes map[string]string
		want    string
	}{
		{map[string]string{"k": "1"}, "P(y*|x) = 0.054 > P(ŷ|x) = 0.048: the model prefers y* but the beam missed it, so the search is at fault"},
		{map[string]string{"k": "2"}, "ŷ = y*"},
		{map[string]string{"k": "2", "reference": "jane goes africa"}, "P(y*|x) = 0.048 ≤ P(ŷ|x) = 0.054: the search found what the model prefers, so the model is at fault"},
		{map[string]string{"reference": "jane africa"}, "P(y*|x) = 0.02 ≤ P(ŷ|x) = 0.054"},
		{map[string]string{"reference": ""}, "type a reference y*"},
		{map[string]string{"alpha": "1", "k": "1"}, "score (α = 1)(y*|x) = -0.7297 > score (α = 1)(ŷ|x) = -0.7591"},
	}
	for _, tc := range verdicts {
		m := mustBeam(t, tc.changes)
		if got := m.verdict(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%v: verdict got %q want it to start %q", tc.changes, got, tc.want)
		}
		if got := m.At(m.Steps()).Meta["error_analysis"]; got != m.verdict() {
			t.Errorf("%v: the last frame's error analysis got %v want the verdict", tc.changes, got)
		}
	}
}

// randomToyText is a toy over four words with random tables for every prefix of up
// to maxLen−1 words, written in the page's text form.
func randomToyText(rng *rand.Rand, maxLen int) string {
	words := []string{"a", "b", "c", "d"}
	row := func() string { // integer weights over a common denominator, written as fractions
		n := make([]int, 5)
		total := 0
		for i := range n {
			if i > 0 && rng.Float64() < 0.15 {
				continue // some words impossible
			}
			n[i] = 1 + rng.IntN(20)
			total += n[i]
		}
		nums := make([]string, 5)
		for i := range n {
			nums[i] = fmt.Sprintf("%d/%d", n[i], total)
		}
		return strings.Join(nums, " ")
	}
	entries := []string{"<bos>: " + row()}
	var prefixes func(prefix []string)
	prefixes = func(prefix []string) {
		if len(prefix) >= maxLen-1 {
			return
		}
		for _, w := range words {
			p := append(slices.Clone(prefix), w)
			entries = append(entries, strings.Join(p, " ")+": "+row())
			prefixes(p)
		}
	}
	prefixes(nil)
	return strings.Join(entries, "; ")
}

// TestBeamWidthOneIsGreedy: on random toys and on the trained model, the page's beam
// of width 1 returns greedy search's sentence, log-probability and score.
func TestBeamWidthOneIsGreedy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 40 {
		maxLen := 1 + rng.IntN(4)
		alpha := fmt.Sprint(0.05 * float64(rng.IntN(31)))
		m, err := beamBuild(t, map[string]string{"k": "1", "alpha": alpha, "words": "a b c d", "tables": randomToyText(rng, maxLen),
			"reference": "", "max_len": fmt.Sprint(maxLen)})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if !slices.Equal(m.greedy.Tokens, m.res.Best.Tokens) || m.greedy.LogProb != m.res.Best.LogProb || m.greedy.Score != m.res.Best.Score {
			t.Errorf("trial %d: greedy got %+v, beam(1) got %+v, want equal", trial, m.greedy, m.res.Best)
		}
	}
	for _, s := range []string{"we listen to the teacher .", "the boy is not hot .", "go ."} {
		m := mustBeam(t, map[string]string{"mode": beamTrained, "k": "1", "sentence": s})
		if !slices.Equal(m.greedy.Tokens, m.res.Best.Tokens) || m.greedy.LogProb != m.res.Best.LogProb {
			t.Errorf("trained %q: greedy got %q %v, beam(1) got %q %v, want equal", s, m.sentence(m.greedy.Tokens), m.greedy.LogProb, m.sentence(m.res.Best.Tokens), m.res.Best.LogProb)
		}
	}
}

// TestBeamWideIsExhaustive: a beam at least as wide as the number of prefixes (V^T_max)
// prunes nothing and returns exhaustive search's sentence, on random toys and α.
func TestBeamWideIsExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	words, _ := parseToyWords("a b c d")
	for trial := range 40 {
		maxLen := 1 + rng.IntN(4)
		d, err := parseToy(words, randomToyText(rng, maxLen))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		k := int(math.Pow(float64(len(words)), float64(maxLen)))
		alpha := 0.05 * float64(rng.IntN(31))
		m, err := buildBeamToy(d, "", maxLen, k, alpha)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		ex := m.exhaustive
		if ex == nil || !slices.Equal(ex.Tokens, m.res.Best.Tokens) || ex.LogProb != m.res.Best.LogProb || ex.Score != m.res.Best.Score {
			t.Fatalf("trial %d (T_max %d, α %v): exhaustive got %+v, beam(%d) got %+v, want equal", trial, maxLen, alpha, ex, k, m.res.Best)
		}
		for _, c := range m.tree()["counts"].([]map[string]int) {
			if c["pruned"] != 0 {
				t.Fatalf("trial %d: a beam of %d pruned %d expansions", trial, k, c["pruned"])
			}
		}
		// and the page's narrower beams never beat it
		for k := 1; k <= beamMaxK; k++ {
			if s := m.beamOf(k).Best.Score; s > ex.Score {
				t.Fatalf("trial %d: beam(%d) score %v beats exhaustive %v", trial, k, s, ex.Score)
			}
		}
	}
}

// TestBeamLengthNormalisation: on a toy where the bare <eos> is likelier than
// "a b <eos>" (0.4 > 0.45·0.9·0.9 = 0.3645), α = 0 picks the short sentence and α = 1
// (per-word average) the long one, in beam and exhaustive search alike.
func TestBeamLengthNormalisation(t *testing.T) {
	tables := "<bos>: 0.45 0.05 0.05 0.05 0.4; a: 0.025 0.9 0.025 0.025 0.025; a b: 0.025 0.025 0.025 0.025 0.9"
	tests := []struct {
		alpha string
		want  string
		score float64
	}{
		{"0", "<eos>", math.Log(0.4)},
		{"1", "a b <eos>", math.Log(0.45*0.9*0.9) / 3},
		{"0.7", "a b <eos>", math.Log(0.45*0.9*0.9) / math.Pow(3, 0.7)},
	}
	for _, tc := range tests {
		m := mustBeam(t, map[string]string{"words": "a b c d", "tables": tables, "reference": "a b", "alpha": tc.alpha})
		for name, h := range map[string]models.Hypothesis{"beam": m.res.Best, "exhaustive": *m.exhaustive} {
			if got := m.sentence(h.Tokens); got != tc.want || math.Abs(h.Score-tc.score) > 1e-9 {
				t.Errorf("α=%s %s: got %q score %v want %q score %v", tc.alpha, name, got, h.Score, tc.want, tc.score)
			}
		}
		// the last step ranks the candidates by that score
		if got := m.At(m.Steps()).Meta["candidates"].(string); !strings.HasPrefix(got, tc.want+":") {
			t.Errorf("α=%s: candidates got %q want %q first", tc.alpha, got, tc.want)
		}
	}
}

func TestBeamToyText(t *testing.T) {
	words, err := parseToyWords("jane visits goes africa")
	if err != nil {
		t.Fatal(err)
	}
	d, err := parseToy(words, formatToy(models.ClassicGreedyTrap()))
	if err != nil || !reflect.DeepEqual(d, models.ClassicGreedyTrap()) {
		t.Fatalf("round trip: got %+v, %v want ClassicGreedyTrap", d, err)
	}
	if got, want := beamLesson.Params[4].Default, formatToy(models.ClassicGreedyTrap()); beamLesson.Params[4].Name != "tables" || got != want {
		t.Errorf("tables default got %q want %q", got, want)
	}
	// fractions, leading dots, <bos> before a prefix, a trailing ; and no * (uniform)
	d, err = parseToy(words, "<bos>: 1/2 .5 0 0 0; <bos> jane: 0 0 0 2/5 3/5;")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{"": {0.5, 0.5, 0, 0, 0}, "jane": {0, 0, 0, 0.4, 0.6}}
	if !reflect.DeepEqual(d.Tables, want) || !reflect.DeepEqual(d.Default, []float64{0.2, 0.2, 0.2, 0.2, 0.2}) {
		t.Errorf("got tables %v default %v want %v and uniform", d.Tables, d.Default, want)
	}
}

// TestBeamBadInput: every kind of bad input gets a message that names its field,
// and a set command carrying it changes nothing.
func TestBeamBadInput(t *testing.T) {
	tests := []struct {
		changes map[string]string
		want    string // the message starts with this
		has     string // and contains this
	}{
		{map[string]string{"tables": "<bos>: 0.5 0.2 0.1 0.1 0.05"}, `toy tables, entry 1 ("<bos>")`, "sum to 0.95, want 1"},
		{map[string]string{"tables": "<bos>: 0.5 0.3 0.1 0.2 -0.1"}, `toy tables, entry 1 ("<bos>")`, `"<eos>": -0.1 is not a probability`},
		{map[string]string{"tables": "<bos>: 0.5 0.3 x 0.2 0"}, `toy tables, entry 1 ("<bos>")`, `"x" is not a number`},
		{map[string]string{"tables": "<bos>: 1/0 0 0 0 0"}, `toy tables, entry 1`, "divides by zero"},
		{map[string]string{"tables": "<bos>: 0.5 0.5"}, `toy tables, entry 1`, "2 probabilities, want 5, one per word in the order jane visits goes africa <eos>"},
		{map[string]string{"tables": "<bos>: 1 0 0 0 0; jane runs: 1 0 0 0 0"}, `toy tables, entry 2 ("jane runs")`, `"runs" is not a toy word`},
		{map[string]string{"tables": "<bos>: 1 0 0 0 0; jane <eos>: 1 0 0 0 0"}, `toy tables, entry 2`, "cannot contain <eos>"},
		{map[string]string{"tables": "<bos>: 1 0 0 0 0; <bos>: 1 0 0 0 0"}, `toy tables, entry 2`, "listed twice"},
		{map[string]string{"tables": "*: 1 0 0 0 0; *: 1 0 0 0 0"}, `toy tables, entry 2`, "* is listed twice"},
		{map[string]string{"tables": "hello"}, `toy tables, entry 1`, "a colon"},
		{map[string]string{"tables": ": 1 0 0 0 0"}, `toy tables, entry 1`, "the prefix is empty"},
		{map[string]string{"tables": ""}, "toy tables", `no entries; write at least one, such as "<bos>: 1/5 1/5 1/5 1/5 1/5"`},
		{map[string]string{"tables": " ; ;"}, "toy tables", "no entries"},
		{map[string]string{"words": "jane jane"}, "toy words", "appears twice"},
		{map[string]string{"words": "a <eos>"}, "toy words", "reserved"},
		{map[string]string{"words": "a b c d e f g"}, "toy words", "1 to 6 words"},
		{map[string]string{"words": "  "}, "toy words", "1 to 6 words"},
		{map[string]string{"words": "a:b"}, "toy words", "contains : or ;"},
		{map[string]string{"reference": "jane flies"}, "reference y*", `"flies" is not a toy word`},
		{map[string]string{"reference": "jane <eos> africa"}, "reference y*", "only be the last word"},
		{map[string]string{"mode": beamTrained, "sentence": "   "}, "source sentence x", "empty"},
		{map[string]string{"mode": beamTrained, "target": "nous écoutons le zorglub ."}, "reference y*", `"zorglub" is not in the model's French vocabulary`},
	}
	for _, tc := range tests {
		_, err := beamBuild(t, tc.changes)
		if err == nil {
			t.Errorf("%v: got no error want %q…", tc.changes, tc.want)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, tc.want) || !strings.Contains(msg, tc.has) || strings.Contains(msg, "models:") || strings.Contains(msg, "lessons:") {
			t.Errorf("%v: got %q want %q…%q", tc.changes, msg, tc.want, tc.has)
		}
	}

	// a bad set leaves the run as it was; a field the mode does not use is not checked
	run, err := sim.NewRun(beamLesson.Params, beamLesson.Model, beamLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	run.Seek(2)
	before, static := run.Snapshot().Data, run.Model().Static()
	for _, bad := range []map[string]string{{"tables": "<bos>: 0.9 0 0 0 0"}, {"reference": "jane flies"}, {"k": "0"}, {"alpha": "-1"}, {"alpha": "x"}} {
		if _, err := run.Apply(sim.Command{Type: sim.SetCommand, Params: bad}); err == nil {
			t.Errorf("set %v: got no error", bad)
		}
	}
	if !reflect.DeepEqual(run.Values(), beamLesson.Params.Defaults()) || run.Step() != 2 || !reflect.DeepEqual(run.Model().Static(), static) {
		t.Errorf("after bad sets: values %v step %d; want the defaults at step 2, unchanged", run.Values(), run.Step())
	}
	_ = before
	if _, err := beamBuild(t, map[string]string{"mode": beamTrained, "tables": "nonsense"}); err != nil {
		t.Errorf("trained mode with bad toy tables: got %v want no error (the toy is not used)", err)
	}
}

// TestBeamDeterminism: the same values give byte-identical static meta and frames.
func TestBeamDeterminism(t *testing.T) {
	for _, changes := range []map[string]string{nil, {"k": "3", "alpha": "0.7"}, {"mode": beamTrained, "k": "4"}} {
		a, b := mustBeam(t, changes), mustBeam(t, changes)
		ja, _ := json.Marshal(a.Static().Meta)
		jb, _ := json.Marshal(b.Static().Meta)
		if !bytes.Equal(ja, jb) {
			t.Errorf("%v: static meta differs between two builds", changes)
		}
		for s := 1; s <= a.Steps(); s++ {
			if !reflect.DeepEqual(a.At(s), b.At(s)) {
				t.Errorf("%v: step %d differs between two builds", changes, s)
			}
		}
	}
}

// TestBeamTree checks what the tree panel gets: every kept and finished expansion,
// pruned ones up to the quota with the rest counted, parents that are drawn, and the
// best path marked.
func TestBeamTree(t *testing.T) {
	for _, changes := range []map[string]string{nil, {"k": "1"}, {"k": "10", "max_len": "8"}, {"mode": beamTrained, "k": "3"}} {
		m := mustBeam(t, changes)
		tree := m.tree()
		nodes := tree["nodes"].([]treeNode)
		counts := tree["counts"].([]map[string]int)
		if len(counts) != len(m.res.Steps) || m.Steps() != len(counts)+1 {
			t.Fatalf("%v: %d counts for %d search steps, %d page steps", changes, len(counts), len(m.res.Steps), m.Steps())
		}
		drawn := map[int]treeNode{}
		perStep := make([]map[string]int, len(counts))
		for i := range perStep {
			perStep[i] = map[string]int{}
		}
		for _, n := range nodes {
			c := perStep[n.T-1]
			if n.More > 0 {
				c["pruned"] += n.More
				continue
			}
			c[n.Fate]++
			drawn[n.ID] = n
			if p, ok := drawn[n.Parent]; n.Parent != 0 && (!ok || p.Fate != string(models.FateKept) || p.T != n.T-1) {
				t.Errorf("%v: node %+v has a parent that is not a kept node drawn at the step before", changes, n)
			}
		}
		for i := range counts {
			if !reflect.DeepEqual(perStep[i], counts[i]) {
				t.Errorf("%v step %d: drawn and counted %v want %v", changes, i+1, perStep[i], counts[i])
			}
			if shown := len(slices.DeleteFunc(slices.Clone(nodes), func(n treeNode) bool { return n.T != i+1 || n.More > 0 })); shown > treeRows+beamMaxK {
				t.Errorf("%v step %d: %d entries drawn, want at most about %d", changes, i+1, shown, treeRows)
			}
		}
		var path []int
		for id := m.res.BestNode; id > 0; id = drawn[id].Parent {
			if !drawn[id].Best {
				t.Errorf("%v: node %d on the best path is not marked", changes, id)
			}
			path = append(path, id)
		}
		if marked := len(slices.DeleteFunc(slices.Clone(nodes), func(n treeNode) bool { return !n.Best })); marked != len(path) || len(path) != m.res.Best.Length {
			t.Errorf("%v: %d nodes marked best, path %d, ŷ length %d; want equal", changes, marked, len(path), m.res.Best.Length)
		}
	}
}

// TestBeamTreeGreedyPath: in the lecture's toy every node of greedy's path survives
// the beam of 2, so the tree underlines "jane goes africa <eos>".
func TestBeamTreeGreedyPath(t *testing.T) {
	var words []string
	for _, n := range mustBeam(t, nil).tree()["nodes"].([]treeNode) {
		if n.Greedy {
			words = append(words, n.Word)
		}
	}
	if got := strings.Join(words, " "); got != "jane goes africa <eos>" {
		t.Errorf("greedy path in the tree: got %q want %q", got, "jane goes africa <eos>")
	}
}

// TestBeamExhaustiveBound: exhaustive search runs only while Σ V^t stays within
// models.MaxExhaustiveNodes, and the page says so otherwise.
func TestBeamExhaustiveBound(t *testing.T) {
	for maxLen := 1; maxLen <= beamMaxLen; maxLen++ {
		m := mustBeam(t, map[string]string{"max_len": fmt.Sprint(maxLen)})
		ran := models.ExhaustiveNodes(5, maxLen) <= models.MaxExhaustiveNodes
		if (m.exhaustive != nil) != ran || ran == strings.Contains(m.exhNote, "not run") {
			t.Errorf("T_max %d: exhaustive ran %v, note %q; want ran %v", maxLen, m.exhaustive != nil, m.exhNote, ran)
		}
		if ran != (maxLen <= 8) {
			t.Errorf("T_max %d: the help text says exhaustive search runs up to 8", maxLen)
		}
	}
	m := mustBeam(t, map[string]string{"mode": beamTrained})
	if m.exhaustive != nil || !strings.Contains(m.exhNote, "impossible") || !strings.Contains(m.exhNote, "≈ 10^") {
		t.Errorf("trained: exhaustive %v note %q; want not run, with the size", m.exhaustive, m.exhNote)
	}
}

// TestBeamTrainedExamples checks what the page's text says about the bundled model:
// on the default sentence greedy misses the reference that k = 2 finds (the search
// is at fault), and on "does she lose the keys ?" the beam finds a sentence the
// model prefers to the reference (the model is at fault).
func TestBeamTrainedExamples(t *testing.T) {
	m := mustBeam(t, map[string]string{"mode": beamTrained, "k": "1"})
	if v := m.verdict(); !strings.Contains(v, "the search is at fault") {
		t.Errorf("default sentence, k = 1: verdict %q want the search at fault", v)
	}
	if got, want := m.sentence(m.greedy.Tokens), "nous avons le professeur . <eos>"; got != want {
		t.Errorf("default sentence: greedy %q want %q (the text quotes it)", got, want)
	}
	m = mustBeam(t, map[string]string{"mode": beamTrained, "k": "2"})
	if got, want := m.sentence(m.res.Best.Tokens), "nous écoutons le professeur . <eos>"; got != want {
		t.Errorf("default sentence, k = 2: ŷ %q want %q", got, want)
	}
	keys := map[string]string{"mode": beamTrained, "k": "2", "sentence": "does she lose the keys ?", "target": "est-ce qu'elle perd les clés ?", "max_len": "7"}
	m = mustBeam(t, keys)
	if v := m.verdict(); !strings.Contains(v, "the model is at fault") {
		t.Errorf("keys, k = 2, T_max = 7: verdict %q want the model at fault", v)
	}
	keys["max_len"] = "6" // the text: at the default T_max no hypothesis finishes, and the page says so
	m = mustBeam(t, keys)
	if v := m.verdict(); !strings.HasPrefix(v, "no comparison: no hypothesis of the beam finished") {
		t.Errorf("keys, k = 2, T_max = 6: verdict %q want no comparison", v)
	}
}

func TestBeamPlots(t *testing.T) {
	m := mustBeam(t, nil)
	w := widthSeries(m)
	if len(w) != 3 || w[0].Y[0] != m.greedy.Score || w[0].Y[1] != m.exhaustive.Score || w[1].Y[0] != m.greedy.Score {
		t.Errorf("width plot: got %+v want beam(1) = greedy %v, beam(2) = exhaustive %v", w, m.greedy.Score, m.exhaustive.Score)
	}
	a := alphaSeries(mustBeam(t, map[string]string{"words": "a b c d", "reference": "", "tables": "<bos>: 0.45 0.05 0.05 0.05 0.4; a: 0.025 0.9 0.025 0.025 0.025; a b: 0.025 0.025 0.025 0.025 0.9"}))
	// the two lines cross: <eos> wins at α = 0, "a b <eos>" at α = 1.5
	first, last := map[string]float64{}, map[string]float64{}
	for _, s := range a {
		first[s.Label], last[s.Label] = s.Y[0], s.Y[len(s.Y)-1]
	}
	if !(first["<eos>"] > first["a b <eos>"]) || !(last["<eos>"] < last["a b <eos>"]) {
		t.Errorf("α plot: got starts %v ends %v; want the lines to cross", first, last)
	}
}

// BenchmarkBeamBuild is what a slider move costs the server: build the page (every
// search) and compute every frame. BenchmarkBeamFrame is one frame of a built page.
func BenchmarkBeamBuild(b *testing.B) {
	for _, mode := range []string{beamToy, beamTrained} {
		v := beamLesson.Params.Defaults()
		v["mode"] = mode
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				m, err := beamLesson.Build(v)
				if err != nil {
					b.Fatal(err)
				}
				m.Static()
				for s := 1; s <= m.Steps(); s++ {
					m.At(s)
				}
			}
		})
	}
}

func BenchmarkBeamFrame(b *testing.B) {
	for _, mode := range []string{beamToy, beamTrained} {
		v := beamLesson.Params.Defaults()
		v["mode"] = mode
		m, err := beamLesson.Build(v)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(mode, func(b *testing.B) {
			t := 0
			for b.Loop() {
				m.At(t%m.Steps() + 1)
				t++
			}
		})
	}
}

// TestBeamGolden freezes what the page shows with the trained translator (the toy
// defaults are in TestFramesGolden); refresh with go test ./lessons -run Golden -update.
func TestBeamGolden(t *testing.T) {
	checkFramesGolden(t, pageModel(t, beamLesson, map[string]string{"mode": beamTrained}), "beam-search-trained")
}

// TestBeamReferenceFollowsTheSentence (issue 14): a sentence changed while the
// reference field still holds the default sentence's translation is not scored against
// that unrelated reference: it takes the corpus's translation, or none.
func TestBeamReferenceFollowsTheSentence(t *testing.T) {
	train, _ := data.Corpus()
	inCorpus := train[3]
	for _, c := range []struct {
		sentence, target, want string
	}{
		{beamSentence, beamTarget, beamTarget},
		{inCorpus.En, beamTarget, inCorpus.Fr},
		{"we listen to the teacher , she sings .", beamTarget, ""},
		{inCorpus.En, "nous chantons .", "nous chantons ."},
	} {
		got, note := referenceFor(c.sentence, c.target)
		if got != c.want {
			t.Errorf("%q with %q: reference %q, want %q", c.sentence, c.target, got, c.want)
		}
		if (got != c.target) != (note != "") {
			t.Errorf("%q with %q: note %q, want one exactly when the reference changed", c.sentence, c.target, note)
		}
	}
}

// TestBeamReferenceNoteShown: the note reaches the page's facts.
func TestBeamReferenceNoteShown(t *testing.T) {
	v, err := beamLesson.Params.Apply(beamLesson.Params.Defaults(), map[string]string{"mode": beamTrained, "sentence": "we listen to the teacher , she sings ."})
	if err != nil {
		t.Fatal(err)
	}
	m, err := beamLesson.Model(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Static().Facts {
		if strings.Contains(fmt.Sprint(f.Value), "type this sentence's to score it") {
			return
		}
	}
	t.Errorf("the facts do not say the reference was dropped: %+v", m.Static().Facts)
}

// TestBeamVerdictFinishedOnly: the error analysis compares the finished y* with a
// finished ŷ. At k = 2 and T_max = 1 on the toy nothing finishes and the page says the
// comparison cannot be made (it blamed the model, comparing the prefix "jane" with
// y*); when the beam's best is cut off at T_max but another hypothesis finished, ŷ is
// the best finished one; and a cut-off prefix is at least as probable as every
// sentence it begins, which is why it cannot stand for ŷ.
func TestBeamVerdictFinishedOnly(t *testing.T) {
	m := mustBeam(t, map[string]string{"k": "2", "max_len": "1"})
	if m.res.Best.Finished || len(m.res.Finished) != 0 {
		t.Fatalf("k = 2, T_max = 1: ŷ %q finished %v, %d finished; want nothing finished", m.sentence(m.res.Best.Tokens), m.res.Best.Finished, len(m.res.Finished))
	}
	v := m.verdict()
	if !strings.HasPrefix(v, "no comparison: no hypothesis of the beam finished (said <eos>) within Tₘₐₓ = 1") || strings.Contains(v, "at fault") {
		t.Errorf("k = 2, T_max = 1: verdict %q want no comparison and no blame", v)
	}
	if got := m.At(m.Steps()).Meta["error_analysis"]; got != v {
		t.Errorf("the last frame's error analysis got %v want the verdict", got)
	}
	if got := m.At(m.Steps()).Meta["beam_result_ŷ"]; !strings.Contains(fmt.Sprint(got), "cut off at Tₘₐₓ: not a finished sentence") {
		t.Errorf("the beam's result %q: want it marked cut off", got)
	}
	if row := m.compare().Rows[1]; !strings.Contains(row.Cells[0].Text, "cut off at Tₘₐₓ") {
		t.Errorf("the beam's row %q: want it marked cut off", row.Cells[0].Text)
	}

	// the beam's best "a a" is cut off at T_max = 2; "<eos>" finished at step 1
	mixed := map[string]string{"words": "a b", "tables": "<bos>: 0.6 0.1 0.3; *: 0.9 0.05 0.05", "reference": "a", "k": "2", "max_len": "2"}
	m = mustBeam(t, mixed)
	if got := m.sentence(m.res.Best.Tokens); got != "a a" || m.res.Best.Finished {
		t.Fatalf("mixed toy: the beam's best %q (finished %v), want %q cut off", got, m.res.Best.Finished, "a a")
	}
	h, ok := m.bestFinished()
	if !ok || m.sentence(h.Tokens) != "<eos>" || math.Abs(math.Exp(h.LogProb)-0.3) > 1e-12 {
		t.Fatalf("mixed toy: best finished %q P %v (found %v), want <eos> with 0.3", m.sentence(h.Tokens), math.Exp(h.LogProb), ok)
	}
	want := "P(y*|x) = 0.03 ≤ P(ŷ|x) = 0.3: the search found what the model prefers, so the model is at fault"
	if v := m.verdict(); !strings.HasPrefix(v, want) || !strings.Contains(v, `ŷ is the best finished hypothesis, "<eos>"`) {
		t.Errorf("mixed toy: verdict %q want it to start %q and name the finished ŷ", v, want)
	}

	// every comparison quotes a finished ŷ: the best finished hypothesis's P
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 40 {
		maxLen := 1 + rng.IntN(4)
		m, err := beamBuild(t, map[string]string{"k": fmt.Sprint(1 + rng.IntN(3)), "words": "a b c d", "tables": randomToyText(rng, maxLen),
			"reference": "a b", "max_len": fmt.Sprint(maxLen)})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		v := m.verdict()
		h, ok := m.bestFinished()
		switch {
		case !ok && !strings.HasPrefix(v, "no comparison"):
			t.Errorf("trial %d: nothing finished, verdict %q", trial, v)
		case ok && !h.Finished:
			t.Errorf("trial %d: best finished %+v is not finished", trial, h)
		case ok && strings.Contains(v, "P(ŷ|x) = ") && !strings.Contains(v, "P(ŷ|x) = "+probText(h.LogProb)+":"):
			t.Errorf("trial %d: verdict %q does not quote the finished ŷ's P %s", trial, v, probText(h.LogProb))
		}
	}

	// the prefix "jane visits africa" (cut off at T_max = 3) against the sentences it begins
	prefix := mustBeam(t, map[string]string{"k": "2", "max_len": "3"}).res.Best
	full := mustBeam(t, map[string]string{"k": "10", "max_len": "6"})
	for _, f := range full.res.Finished {
		if len(f.Tokens) > len(prefix.Tokens) && slices.Equal(f.Tokens[:len(prefix.Tokens)], prefix.Tokens) && f.LogProb > prefix.LogProb {
			t.Errorf("%q: log P %v > its prefix's %v", full.sentence(f.Tokens), f.LogProb, prefix.LogProb)
		}
	}
}

// TestBeamTrainedMaxLen: the longest sentence T_max applies in trained mode too,
// bounded by the translator's MaxOutput (the parameter's maximum is that bound).
func TestBeamTrainedMaxLen(t *testing.T) {
	if got, want := beamMaxLen, zoo.CorpusTask().MaxOutput; got != want {
		t.Fatalf("beamMaxLen %d, want the translator's MaxOutput %d", got, want)
	}
	for _, maxLen := range []int{1, 3, 6, beamMaxLen} {
		m := mustBeam(t, map[string]string{"mode": beamTrained, "k": "3", "max_len": fmt.Sprint(maxLen), "sentence": "we are not eating the apples ."})
		if m.cfg.MaxLen != maxLen || len(m.res.Steps) > maxLen || m.greedy.Length > maxLen {
			t.Errorf("T_max %d: config %d, %d steps, greedy %d tokens", maxLen, m.cfg.MaxLen, len(m.res.Steps), m.greedy.Length)
		}
		for _, h := range append(slices.Clone(m.res.Finished), m.res.Capped...) {
			if h.Length > maxLen {
				t.Errorf("T_max %d: hypothesis %q has %d tokens", maxLen, m.sentence(h.Tokens), h.Length)
			}
		}
		if got := m.Static().Meta["T_max"]; got != maxLen {
			t.Errorf("T_max %d: the facts say %v", maxLen, got)
		}
	}
	// the parameter refuses more than the translator writes
	v := beamLesson.Params.Defaults()
	if _, err := beamLesson.Params.Parse(url.Values{"mode": {beamTrained}, "max_len": {fmt.Sprint(beamMaxLen + 1)}}); err == nil {
		t.Errorf("max_len %d accepted, want refused (defaults %v)", beamMaxLen+1, v["max_len"])
	}
}
