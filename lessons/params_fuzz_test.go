package lessons

import (
	"maps"
	"math"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"unroll/sim"
)

// FuzzParamsParse feeds any URL query to every lesson's Params.Parse, as a page URL,
// a websocket URL or an export URL does. Parse must give every parameter a canonical
// value (the query's when valid, the default otherwise, with an error naming the first
// bad one), bound its error message, and its values must come back unchanged from
// their own query (the page's canonical URL).
func FuzzParamsParse(f *testing.F) {
	for _, l := range testedLessons() {
		f.Add(l.Params.Defaults().Query())
		for _, p := range l.Params {
			for _, v := range edgeValues(p) {
				f.Add(url.Values{p.Name: {v}}.Encode())
			}
		}
	}
	f.Fuzz(func(t *testing.T, query string) {
		q, _ := url.ParseQuery(query) // what a handler sees, parse errors and all
		for _, l := range testedLessons() {
			v, err := l.Params.Parse(q)
			if len(v) != len(l.Params) {
				t.Fatalf("%s ?%.200q: got %d values, want one per parameter (%d)", l.Slug, query, len(v), len(l.Params))
			}
			var firstBad string
			for _, p := range l.Params {
				got, ok := v[p.Name]
				if !ok {
					t.Fatalf("%s ?%.200q: no value for %s", l.Slug, query, p.Name)
				}
				if canon, cerr := p.Check(got); cerr != nil || canon != got {
					t.Fatalf("%s ?%.200q: %s = %q is not canonical: Check gives %q, %v", l.Slug, query, p.Name, got, canon, cerr)
				}
				raw, given := q[p.Name]
				if !given || len(raw) == 0 {
					if got != p.Default {
						t.Fatalf("%s ?%.200q: %s = %q without a value in the query, want the default %q", l.Slug, query, p.Name, got, p.Default)
					}
					continue
				}
				canon, cerr := p.Check(raw[0])
				switch {
				case cerr == nil && got != canon:
					t.Fatalf("%s ?%.200q: %s = %q, want the query's %q", l.Slug, query, p.Name, got, canon)
				case cerr != nil && got != p.Default:
					t.Fatalf("%s ?%.200q: %s = %q after an invalid value, want the default %q", l.Slug, query, p.Name, got, p.Default)
				case cerr != nil && firstBad == "":
					firstBad = cerr.Error()
				}
			}
			if (err == nil) != (firstBad == "") || err != nil && err.Error() != firstBad {
				t.Fatalf("%s ?%.200q: Parse error %v, want the first invalid parameter's %q", l.Slug, query, err, firstBad)
			}
			if err != nil {
				if msg := err.Error(); len(msg) > 1000 || !utf8.ValidString(msg) {
					t.Fatalf("%s ?%.200q: a %d-byte error, want a short sentence: %.300q", l.Slug, query, len(msg), msg)
				}
			}
			back, _ := url.ParseQuery(v.Query())
			again, err := l.Params.Parse(back)
			if err != nil || !maps.Equal(again, v) {
				t.Fatalf("%s ?%.200q: the canonical query %q parses to %v, %v; want %v", l.Slug, query, v.Query(), again, err, v)
			}
		}
	})
}

// edgeValues are values at and just past p's limits, and values a student might paste.
func edgeValues(p sim.ParamSpec) []string {
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch p.Kind {
	case sim.Int:
		return []string{num(p.Min), num(p.Max), num(p.Min - 1), num(p.Max + 1), " " + num(p.Max) + " ", num(p.Max) + ".0",
			"1e3", "0x10", "+1", "-0", "٣", "99999999999999999999"}
	case sim.Float:
		return []string{num(p.Min), num(p.Max), strconv.FormatFloat(math.Nextafter(p.Max, math.Inf(1)), 'g', -1, 64),
			strconv.FormatFloat(math.Nextafter(p.Min, math.Inf(-1)), 'g', -1, 64), "NaN", "nan", "Inf", "-Infinity", "1e309", "4.9e-324", "0x1p-2", "1_000", ".5"}
	case sim.Text:
		n := p.MaxLen
		if n == 0 {
			n = 200
		}
		return []string{strings.Repeat("a", n), strings.Repeat("é", n+1), "\xff\xfe", "<script>alert(1)</script>", "a\x00b", "\u202e"}
	case sim.Bool:
		return []string{"true", "false", "1", "T", "yes", ""}
	case sim.Choice:
		out := []string{"", "<b>"}
		if len(p.Choices) > 0 {
			out = append(out, strings.ToUpper(p.Choices[0]), p.Choices[len(p.Choices)-1]+" ")
		}
		return out
	}
	return nil
}
