package templates

import (
	"context"
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"unroll/lessons"
	"unroll/sim"
)

// A limit the server enforces, and where a literal copy of it is looked for.
type limit struct {
	name  string
	value float64
	// inPanels: also look in static/js/panels/. The drawing modules size things in
	// pixels and characters (60 px, 200 px, "< 0.01 %"), so only the limits no drawing
	// would use by chance are looked for there.
	inPanels bool
}

var limits = []limit{
	{"sim.MaxCommandBytes", sim.MaxCommandBytes, true},
	{"sim.MaxTrainSteps", sim.MaxTrainSteps, true},
	{"sim.MaxSpeed", sim.MaxSpeed, false},
	{"sim.MinSpeed", sim.MinSpeed, false},
	{"the default text limit (sim.ParamSpec.TextLimit)", float64(sim.ParamSpec{Kind: sim.Text}.TextLimit()), false},
}

// allowed are literals equal to a limit that are not copies of it: each names its file
// and the text around it, and why.
var allowed = []struct{ file, text, why string }{
	{"static/js/readout.js", "LONG_FACT_CHARS = 60", "a fact's length in characters, not a speed"},
	{"static/js/page.js", "ERROR_SHOW_MS = 10000", "ten seconds, not training steps"},
	{"templates/values.go", "trainStepsOffered = 200", "the Train box's starting value, not a text limit"},
}

// number finds numeric literals in Go, templ and JavaScript: decimals (with _
// separators), hex, and a shift or product of two of them (16 << 10, 16 * 1024), each
// standing alone (not part of a name such as h264 or a colour such as #60a0ff).
var number = regexp.MustCompile(`(?:^|[^\w$.#])((?:0[xX][0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+)(?:\s*(?:<<|\*)\s*(?:\d[\d_]*))?)(?:$|[^\w$])`)

// literalValue is the value of one match of number, or NaN.
func literalValue(lit string) float64 {
	parse := func(s string) float64 {
		s = strings.ReplaceAll(strings.TrimSpace(s), "_", "")
		if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
			n, err := strconv.ParseInt(s[2:], 16, 64)
			if err != nil {
				return math.NaN()
			}
			return float64(n)
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return f
	}
	if a, b, ok := strings.Cut(lit, "<<"); ok {
		return parse(a) * math.Pow(2, parse(b))
	}
	if a, b, ok := strings.Cut(lit, "*"); ok {
		return parse(a) * parse(b)
	}
	return parse(lit)
}

// TestLimitsWrittenOnce: no template and no page script writes a limit of the server's
// as a literal; they take it from sim (templates) or from the page (scripts,
// static/js/limits.js). It checks the literal finder on copies first.
func TestLimitsWrittenOnce(t *testing.T) {
	for _, tc := range []struct {
		line string
		want float64
	}{
		{`const MAX_COMMAND_BYTES = 16 << 10;`, 16384},
		{`if (bytes > 16384) {`, 16384},
		{`const n = 16 * 1024`, 16384},
		{`max="60"`, 60},
		{`min="0.01" step`, 0.01},
		{`steps: 10_000,`, 10000},
		{`return 200 // sim's default`, 200},
		{`0x4000`, 16384},
	} {
		found := false
		for _, m := range number.FindAllStringSubmatch(tc.line, -1) {
			found = found || literalValue(m[1]) == tc.want
		}
		if !found {
			t.Errorf("the literal finder misses %v in %q", tc.want, tc.line)
		}
	}
	for _, bad := range []string{`h264`, `#60a0ff`, `x60`, `1.0160`} {
		for _, m := range number.FindAllStringSubmatch(bad, -1) {
			if v := literalValue(m[1]); v == 60 || v == 0.01 {
				t.Errorf("the literal finder reads %v in %q", v, bad)
			}
		}
	}

	var files []string
	for _, pattern := range []string{"*.templ", "*.go", "../static/js/*.js", "../static/js/panels/*.js"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_templ.go") || strings.HasSuffix(f, "_test.go") {
			continue // generated from the .templ; tests may write limits to check them
		}
		seen++
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.ToSlash(f) // as the repository names it: templates/… or static/js/…
		if rest, ok := strings.CutPrefix(name, "../"); ok {
			name = rest
		} else {
			name = "templates/" + name
		}
		panel := strings.HasPrefix(name, "static/js/panels/")
	lines:
		for i, line := range strings.Split(string(text), "\n") {
			for _, m := range number.FindAllStringSubmatch(line, -1) {
				v := literalValue(m[1])
				for _, l := range limits {
					if v != l.value || panel && !l.inPanels {
						continue
					}
					for _, a := range allowed {
						if a.file == name && strings.Contains(line, a.text) {
							continue lines
						}
					}
					t.Errorf("%s:%d writes %s (%v) again: %s\n\ttake it from sim (templates) or from the page's limits (scripts, limits.js)", name, i+1, l.name, l.value, strings.TrimSpace(line))
				}
			}
		}
	}
	if seen < 10 {
		t.Fatalf("looked at %d files, want the templates and the page scripts", seen)
	}
}

// The page's parts that carry limits, as the templates write them.
var (
	limitsBlock = regexp.MustCompile(`<script id="limits" type="application/json">([^<]*)</script>`)
	speedInput  = regexp.MustCompile(`<input type="range" min="([^"]*)" max="([^"]*)"[^>]*data-testid="speed"`)
	textInput   = regexp.MustCompile(`<input [^>]*type="text" data-param="([^"]*)"[^>]*maxlength="([^"]*)"`)
	trainInput  = regexp.MustCompile(`<input type="number" min="1" max="([^"]*)"[^>]*data-testid="train-steps"`)
)

// TestPageCarriesLimits: every lesson page carries sim's limits as its scripts read them
// (the limits block) and enforces them in its controls: the speed slider stays within
// sim.MinSpeed…sim.MaxSpeed and reaches MaxSpeed, a text field's maxlength is its
// parameter's limit, and the Train box stops at the lesson's cap (at most
// sim.MaxTrainSteps).
func TestPageCarriesLimits(t *testing.T) {
	texts, trains := 0, 0 // the pages with a text field, and that train
	for _, l := range lessons.Catalog() {
		var b strings.Builder
		if err := LessonPage(l, l.Params.Defaults(), "", "", "amd64-00000000", View{}).Render(context.Background(), &b); err != nil {
			t.Fatalf("%s: %v", l.Slug, err)
		}
		page := b.String()

		m := limitsBlock.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("%s: no <script id=\"limits\"> block", l.Slug)
		}
		var got map[string]float64
		if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
			t.Fatalf("%s: the limits block %s: %v", l.Slug, m[1], err)
		}
		want := map[string]float64{"max_command_bytes": sim.MaxCommandBytes, "min_speed": sim.MinSpeed, "max_speed": sim.MaxSpeed, "max_train_steps": sim.MaxTrainSteps}
		if len(got) != len(want) {
			t.Errorf("%s: the limits block is %v, want %v", l.Slug, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: the limits block says %s = %v, want %v", l.Slug, k, got[k], v)
			}
		}

		if m := speedInput.FindStringSubmatch(page); m == nil {
			t.Errorf("%s: no speed slider", l.Slug)
		} else if lo, hi := literalValue(m[1]), literalValue(m[2]); hi != sim.MaxSpeed || !(lo >= sim.MinSpeed && lo <= hi) {
			t.Errorf("%s: the speed slider runs from %s to %s, want within %v…%v up to %v", l.Slug, m[1], m[2], sim.MinSpeed, sim.MaxSpeed, sim.MaxSpeed)
		}

		fields := map[string]string{}
		for _, m := range textInput.FindAllStringSubmatch(page, -1) {
			fields[m[1]] = m[2]
		}
		for _, s := range l.Params {
			if s.Kind != sim.Text {
				continue
			}
			texts++
			if got, want := fields[s.Name], strconv.Itoa(s.TextLimit()); got != want {
				t.Errorf("%s: the %s field's maxlength is %q, want %s", l.Slug, s.Name, got, want)
			}
		}

		m = trainInput.FindStringSubmatch(page)
		if m != nil {
			trains++
		}
		switch {
		case l.Trains && m == nil:
			t.Errorf("%s trains but has no Train box", l.Slug)
		case m != nil && (m[1] != strconv.Itoa(l.MaxTrained) || l.MaxTrained > sim.MaxTrainSteps):
			t.Errorf("%s: the Train box stops at %s, want the lesson's cap %d (at most %d)", l.Slug, m[1], l.MaxTrained, sim.MaxTrainSteps)
		}
	}
	if texts == 0 || trains == 0 {
		t.Errorf("found %d text fields and %d Train boxes in the catalog's pages: the patterns no longer match the templates", texts, trains)
	}
}
