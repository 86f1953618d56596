package models

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// randomStep is a seeded random decoder over v words: the state identifies the
// prefix, and each prefix gets its own log-softmax of random logits. With zeroFrac
// > 0 some words get probability 0 (one word always keeps a non-zero probability).
func randomStep(seed uint64, v int, zeroFrac float64) StepFunc[uint64] {
	return func(state uint64, last int) ([]float64, uint64) {
		next := state*0x9e3779b97f4a7c15 + uint64(last+2)
		r := rand.New(rand.NewPCG(seed, next))
		logits := make([]float64, v)
		keep := r.IntN(v)
		maxLogit := math.Inf(-1)
		for i := range logits {
			logits[i] = 2 * r.NormFloat64()
			if i != keep && r.Float64() < zeroFrac {
				logits[i] = math.Inf(-1)
			}
			maxLogit = max(maxLogit, logits[i])
		}
		var z float64
		for _, l := range logits {
			z += math.Exp(l - maxLogit)
		}
		for i := range logits {
			logits[i] -= maxLogit + math.Log(z)
		}
		return logits, next
	}
}

func TestBeamWidthOneIsGreedy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 300 {
		v := 2 + rng.IntN(7)
		cfg := SearchConfig{BOS: v, EOS: rng.IntN(v), MaxLen: 1 + rng.IntN(8), BeamSize: 1, Alpha: 1.5 * rng.Float64()}
		step := randomStep(rng.Uint64(), v, 0.3*rng.Float64())
		g := Greedy(uint64(0), cfg, step)
		b := BeamSearch(uint64(0), cfg, step)
		if !slices.Equal(g.Tokens, b.Best.Tokens) || g.LogProb != b.Best.LogProb || g.Score != b.Best.Score || g.Finished != b.Best.Finished {
			t.Fatalf("trial %d %+v: greedy got %+v, beam(1) got %+v, want equal", trial, cfg, g, b.Best)
		}
		if g.Length != len(g.Tokens) || g.Length == 0 {
			t.Fatalf("trial %d: length got %d want len(tokens) = %d > 0", trial, g.Length, len(g.Tokens))
		}
		if want := SequenceLogProb(uint64(0), cfg, step, g.Tokens); g.LogProb != want {
			t.Fatalf("trial %d: greedy log P got %v want %v", trial, g.LogProb, want)
		}
	}
}

func TestWideBeamIsExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 200 {
		v := 2 + rng.IntN(3)
		maxLen := 1 + rng.IntN(4)
		prefixes := int(math.Pow(float64(v), float64(maxLen))) // at least as many as any step's prefixes
		cfg := SearchConfig{BOS: v, EOS: rng.IntN(v), MaxLen: maxLen, BeamSize: prefixes, Alpha: 1.5 * rng.Float64()}
		step := randomStep(rng.Uint64(), v, 0.3*rng.Float64())
		ex := Exhaustive(uint64(0), cfg, step)
		b := BeamSearch(uint64(0), cfg, step)
		if !slices.Equal(ex.Tokens, b.Best.Tokens) || ex.LogProb != b.Best.LogProb || ex.Score != b.Best.Score {
			t.Fatalf("trial %d %+v: exhaustive got %+v, beam(%d) got %+v, want equal", trial, cfg, ex, prefixes, b.Best)
		}
		for _, st := range b.Steps {
			for _, n := range st.Expansions {
				if n.Fate == FatePruned {
					t.Fatalf("trial %d: a beam of %d pruned node %+v", trial, prefixes, n)
				}
			}
		}
		// a narrower beam can never beat exhaustive search
		cfg.BeamSize = 1 + rng.IntN(3)
		if nb := BeamSearch(uint64(0), cfg, step); nb.Best.Score > ex.Score {
			t.Fatalf("trial %d: beam(%d) score %v beats exhaustive %v", trial, cfg.BeamSize, nb.Best.Score, ex.Score)
		}
	}
}

func TestToyClassicGreedyTrap(t *testing.T) {
	d := ClassicGreedyTrap()
	if err := d.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	const tol = 1e-12
	greedyP := 0.5 * 0.4 * 0.4 * 0.6 // 0.048
	bestP := 0.5 * 0.3 * 0.6 * 0.6   // 0.054
	for maxLen := 4; maxLen <= 7; maxLen++ {
		cfg := d.Config(maxLen, 2, 0)
		g := Greedy("", cfg, d.Step)
		if got := d.Decode(g.Tokens); got != "jane goes africa <eos>" || !closeTo(math.Exp(g.LogProb), greedyP, tol) {
			t.Errorf("MaxLen %d: greedy got %q P=%v want \"jane goes africa <eos>\" P=%v", maxLen, got, math.Exp(g.LogProb), greedyP)
		}
		b := BeamSearch("", cfg, d.Step)
		if got := d.Decode(b.Best.Tokens); got != "jane visits africa <eos>" || !closeTo(math.Exp(b.Best.LogProb), bestP, tol) {
			t.Errorf("MaxLen %d: beam(2) got %q P=%v want \"jane visits africa <eos>\" P=%v", maxLen, got, math.Exp(b.Best.LogProb), bestP)
		}
		ex := Exhaustive("", cfg, d.Step)
		if got := d.Decode(ex.Tokens); got != "jane visits africa <eos>" || !closeTo(math.Exp(ex.LogProb), bestP, tol) {
			t.Errorf("MaxLen %d: exhaustive got %q P=%v want \"jane visits africa <eos>\" P=%v", maxLen, got, math.Exp(ex.LogProb), bestP)
		}
	}

	// error analysis (lecture 003): P(y*|x) > P(ŷ|x), so the search is at fault
	cfg := d.Config(5, 1, 0)
	yStar, err := d.Encode("jane visits africa <eos>")
	if err != nil {
		t.Fatal(err)
	}
	yHat := Greedy("", cfg, d.Step).Tokens
	pStar, pHat := SequenceLogProb("", cfg, d.Step, yStar), SequenceLogProb("", cfg, d.Step, yHat)
	if !closeTo(math.Exp(pStar), bestP, tol) || !closeTo(math.Exp(pHat), greedyP, tol) || !(pStar > pHat) {
		t.Errorf("error analysis: P(y*|x), P(ŷ|x) got %v, %v want %v > %v", math.Exp(pStar), math.Exp(pHat), bestP, greedyP)
	}
}

func TestBeamTreeClassicTrap(t *testing.T) {
	d := ClassicGreedyTrap()
	res := BeamSearch("", d.Config(5, 2, 0), d.Step)
	// step 1 expands the root; steps 2–3 expand two live beams; step 4 finishes both
	wantFates := [][3]int{ // kept, finished, pruned
		{2, 0, 3},
		{2, 0, 8},
		{2, 0, 8},
		{0, 2, 8},
	}
	if len(res.Steps) != len(wantFates) {
		t.Fatalf("steps got %d want %d", len(res.Steps), len(wantFates))
	}
	parentIDs := map[int]bool{0: true}
	seen := map[int]BeamNode{}
	for s, st := range res.Steps {
		var got [3]int
		nextParents := map[int]bool{}
		for r, n := range st.Expansions {
			switch n.Fate {
			case FateKept:
				got[0]++
				nextParents[n.ID] = true
			case FateFinished:
				got[1]++
			case FatePruned:
				got[2]++
			}
			if n.T != st.T || n.T != s+1 || n.Rank != r || !parentIDs[n.Parent] {
				t.Errorf("step %d node %+v: bad t, rank or parent", s+1, n)
			}
			if r > 0 && n.Cum > st.Expansions[r-1].Cum {
				t.Errorf("step %d: rank %d cum %v above rank %d cum %v", s+1, r, n.Cum, r-1, st.Expansions[r-1].Cum)
			}
			if (n.Fate == FatePruned) != (r >= 2) {
				t.Errorf("step %d rank %d: fate %s", s+1, r, n.Fate)
			}
			if _, dup := seen[n.ID]; dup || n.ID == 0 {
				t.Errorf("node id %d reused", n.ID)
			}
			wantScore := n.Cum // α = 0
			if n.Score != wantScore || !closeTo(n.Cum-n.LogProb, cumOf(seen, n.Parent), 1e-14) {
				t.Errorf("step %d node %+v: score or cum inconsistent", s+1, n)
			}
			seen[n.ID] = n
		}
		if got != wantFates[s] {
			t.Errorf("step %d: kept, finished, pruned got %v want %v", s+1, got, wantFates[s])
		}
		parentIDs = nextParents
	}
	// kept at step 2 are "jane goes" (0.2) then "jane visits" (0.15)
	st2 := res.Steps[1].Expansions
	if d.Words[st2[0].Token] != "goes" || d.Words[st2[1].Token] != "visits" || !closeTo(math.Exp(st2[0].Cum), 0.2, 1e-15) {
		t.Errorf("step 2 top two got %q, %q want goes, visits", d.Words[st2[0].Token], d.Words[st2[1].Token])
	}
	// the best path, read back through the parents, is the best hypothesis
	var path []int
	for id := res.BestNode; id != 0; id = seen[id].Parent {
		path = append(path, seen[id].Token)
	}
	slices.Reverse(path)
	if !slices.Equal(path, res.Best.Tokens) || len(res.Finished) != 2 || len(res.Capped) != 0 {
		t.Errorf("best path got %v want %v; finished, capped got %d, %d want 2, 0", path, res.Best.Tokens, len(res.Finished), len(res.Capped))
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("json: %v", err)
	}
}

func cumOf(nodes map[int]BeamNode, id int) float64 {
	if id == 0 {
		return 0
	}
	return nodes[id].Cum
}

// lengthToy makes the short "<eos>" likelier than "a b <eos>" (0.4 > 0.45·0.9·0.9 =
// 0.3645) while the long sentence has the better per-token average.
func lengthToy() *ToyDistribution {
	return &ToyDistribution{
		Words: []string{"a", "b", "c", "d", EosToken},
		EOS:   4,
		Tables: map[string][]float64{
			"":    {0.45, 0.05, 0.05, 0.05, 0.4},
			"a":   {0.025, 0.9, 0.025, 0.025, 0.025},
			"a b": {0.025, 0.025, 0.025, 0.025, 0.9},
		},
		Default: []float64{0.2, 0.2, 0.2, 0.2, 0.2},
	}
}

func TestToyLengthNormalisationChangesWinner(t *testing.T) {
	d := lengthToy()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		alpha float64
		want  string
		score float64
	}{
		{0, "<eos>", math.Log(0.4)},
		{1, "a b <eos>", math.Log(0.45*0.9*0.9) / 3},
		{0.7, "a b <eos>", math.Log(0.45*0.9*0.9) / math.Pow(3, 0.7)},
	}
	for _, tc := range tests {
		cfg := d.Config(5, 2, tc.alpha)
		ex := Exhaustive("", cfg, d.Step)
		b := BeamSearch("", cfg, d.Step)
		for name, h := range map[string]Hypothesis{"exhaustive": ex, "beam(2)": b.Best} {
			if got := d.Decode(h.Tokens); got != tc.want || !closeTo(h.Score, tc.score, 1e-12) {
				t.Errorf("α=%v %s: got %q score %v want %q score %v", tc.alpha, name, got, h.Score, tc.want, tc.score)
			}
		}
	}
}

func TestBeamLengthNormalized(t *testing.T) {
	tests := []struct {
		logP  float64
		T     int
		alpha float64
		want  float64
	}{
		{-6, 3, 0, -6},
		{-6, 3, 1, -2},
		{-8, 4, 0.5, -4},
		{-1, 0, 1, -1},
	}
	for _, tc := range tests {
		if got := LengthNormalized(tc.logP, tc.T, tc.alpha); !closeTo(got, tc.want, 1e-15) {
			t.Errorf("LengthNormalized(%v, %d, %v) got %v want %v", tc.logP, tc.T, tc.alpha, got, tc.want)
		}
	}
}

func TestBeamCapAndZeroProbabilities(t *testing.T) {
	// a decoder that never says <eos>: every search stops at MaxLen with a capped hypothesis
	never := func(state int, last int) ([]float64, int) {
		return []float64{math.Log(0.7), math.Log(0.3), math.Inf(-1)}, state
	}
	cfg := SearchConfig{BOS: 3, EOS: 2, MaxLen: 3, BeamSize: 2}
	g := Greedy(0, cfg, never)
	b := BeamSearch(0, cfg, never)
	if !slices.Equal(g.Tokens, []int{0, 0, 0}) || g.Finished || g.Length != 3 {
		t.Errorf("greedy got %+v want [0 0 0] unfinished", g)
	}
	if len(b.Finished) != 0 || len(b.Capped) != 2 || !slices.Equal(b.Best.Tokens, []int{0, 0, 0}) {
		t.Errorf("beam got finished %d capped %d best %v want 0, 2, [0 0 0]", len(b.Finished), len(b.Capped), b.Best.Tokens)
	}
	for _, st := range b.Steps {
		for _, n := range st.Expansions {
			if n.Token == 2 {
				t.Errorf("a probability-0 word was expanded: %+v", n)
			}
		}
	}
	if got := SequenceLogProb(0, cfg, never, []int{0, 2}); !math.IsInf(got, -1) {
		t.Errorf("log P of an impossible sequence got %v want -Inf", got)
	}

	// nothing possible at all: empty results, BestNode −1
	none := func(state int, last int) ([]float64, int) { return []float64{math.Inf(-1), math.Inf(-1)}, state }
	cfg = SearchConfig{BOS: 2, EOS: 1, MaxLen: 3, BeamSize: 2}
	if g := Greedy(0, cfg, none); len(g.Tokens) != 0 {
		t.Errorf("greedy got %+v want empty", g)
	}
	if b := BeamSearch(0, cfg, none); b.BestNode != -1 || len(b.Best.Tokens) != 0 {
		t.Errorf("beam got best node %d tokens %v want -1, []", b.BestNode, b.Best.Tokens)
	}
}

func TestBeamSearchConfigValidate(t *testing.T) {
	tests := []struct {
		cfg SearchConfig
		ok  bool
	}{
		{SearchConfig{MaxLen: 1, BeamSize: 1}, true},
		{SearchConfig{MaxLen: 10, BeamSize: 4, Alpha: 0.7}, true},
		{SearchConfig{MaxLen: 0, BeamSize: 1}, false},
		{SearchConfig{MaxLen: 3, BeamSize: 0}, false},
		{SearchConfig{MaxLen: 3, BeamSize: 1, Alpha: -0.5}, false},
		{SearchConfig{MaxLen: 3, BeamSize: 1, Alpha: math.NaN()}, false},
		{SearchConfig{MaxLen: 3, BeamSize: 1, Alpha: math.Inf(1)}, false},
	}
	for _, tc := range tests {
		err := tc.cfg.Validate()
		if (err == nil) != tc.ok || (err != nil && !strings.HasPrefix(err.Error(), "models: ")) {
			t.Errorf("Validate(%+v) got %v want ok=%v", tc.cfg, err, tc.ok)
		}
	}
}

func TestExhaustiveGuard(t *testing.T) {
	if got := ExhaustiveNodes(5, 5); got != 5+25+125+625+3125 {
		t.Errorf("ExhaustiveNodes(5, 5) got %d want 3905", got)
	}
	if got := ExhaustiveNodes(1<<20, 10); got != math.MaxInt {
		t.Errorf("ExhaustiveNodes overflow got %d want MaxInt", got)
	}
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "models: ") {
			t.Errorf("Exhaustive over 100 words × 4 got panic %v want a models: panic", r)
		}
	}()
	Exhaustive(uint64(0), SearchConfig{BOS: 100, EOS: 0, MaxLen: 4}, randomStep(1, 100, 0))
}

func TestToyValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(d *ToyDistribution)
	}{
		{"sum", func(d *ToyDistribution) { d.Tables["jane"] = []float64{0.1, 0.3, 0.4, 0.1, 0} }},
		{"negative", func(d *ToyDistribution) { d.Tables["jane"] = []float64{-0.1, 0.4, 0.4, 0.2, 0.1} }},
		{"NaN", func(d *ToyDistribution) { d.Default = []float64{math.NaN(), 0.25, 0.25, 0.25, 0.25} }},
		{"length", func(d *ToyDistribution) { d.Tables[""] = []float64{0.5, 0.5} }},
		{"unknown prefix word", func(d *ToyDistribution) { d.Tables["jane runs"] = d.Default }},
		{"eos in prefix", func(d *ToyDistribution) { d.Tables["jane <eos>"] = d.Default }},
		{"double space", func(d *ToyDistribution) { d.Tables["jane  goes"] = d.Default }},
		{"no default", func(d *ToyDistribution) { d.Default = nil }},
		{"duplicate word", func(d *ToyDistribution) { d.Words[1] = "jane" }},
		{"spaced word", func(d *ToyDistribution) { d.Words[1] = "visits often" }},
		{"eos id", func(d *ToyDistribution) { d.EOS = 5 }},
		{"one word", func(d *ToyDistribution) { d.Words = d.Words[:1]; d.EOS = 0 }},
	}
	for _, tc := range tests {
		d := ClassicGreedyTrap()
		tc.edit(d)
		if err := d.Validate(); err == nil || !strings.HasPrefix(err.Error(), "models: ") {
			t.Errorf("%s: Validate got %v want a models: error", tc.name, err)
		}
	}
	// a table typed to a few decimals passes
	d := ClassicGreedyTrap()
	d.Tables["jane"] = []float64{0.1, 0.2, 0.3, 0.3, 0.1}
	if err := d.Validate(); err != nil {
		t.Errorf("rounded table: Validate got %v want nil", err)
	}
}

func TestToyJSONRoundTrip(t *testing.T) {
	d := ClassicGreedyTrap()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back ToyDistribution
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, d) || back.Validate() != nil {
		t.Errorf("round trip got %+v want %+v", back, *d)
	}
	if _, err := d.Encode("jane flies"); err == nil {
		t.Errorf("Encode of an unknown word got nil error")
	}
	if lp, next := d.Step("jane", 2); next != "jane goes" || !closeTo(math.Exp(lp[3]), 0.4, 1e-15) {
		t.Errorf("Step(\"jane\", goes) got %v, %q want P(africa)=0.4, \"jane goes\"", lp, next)
	}
}

func TestBeamDecodeIsBeamSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := range 500 {
		v := 2 + rng.IntN(9)
		cfg := SearchConfig{BOS: v, EOS: rng.IntN(v), MaxLen: 1 + rng.IntN(7), BeamSize: 1 + rng.IntN(6), Alpha: 1.5 * rng.Float64()}
		step := randomStep(rng.Uint64(), v, 0.4*rng.Float64())
		if trial%7 == 0 { // ties: every word equally likely
			step = func(state uint64, last int) ([]float64, uint64) {
				lp := make([]float64, v)
				for i := range lp {
					lp[i] = -math.Log(float64(v))
				}
				return lp, state + 1
			}
		}
		want := BeamSearch(uint64(0), cfg, step).Best
		got := BeamDecode(uint64(0), cfg, step)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d %+v: BeamDecode got %+v, BeamSearch best %+v", trial, cfg, got, want)
		}
	}
}

// BenchmarkBeamScoring compares BeamSearch (with its tree) and BeamDecode on one
// sentence of a 500-word decoder, k = 4, up to 12 tokens: the cost of scoring a test
// split with each.
func BenchmarkBeamScoring(b *testing.B) {
	cfg := SearchConfig{BOS: 500, EOS: 0, MaxLen: 12, BeamSize: 4, Alpha: 0.75}
	step := randomStep(7, 500, 0)
	b.Run("BeamSearch", func(b *testing.B) {
		for b.Loop() {
			BeamSearch(uint64(0), cfg, step)
		}
	})
	b.Run("BeamDecode", func(b *testing.B) {
		for b.Loop() {
			BeamDecode(uint64(0), cfg, step)
		}
	})
}
