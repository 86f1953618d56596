package web

import (
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"unroll/sim"
)

// FuzzLessonPage: GET /lessons/{slug}?{query} with any query answers an HTML page (an
// invalid value renders with its default and shows the problem) or a 4xx JSON error,
// never a 500, and never puts a query value's markup into the page unescaped.
func FuzzLessonPage(f *testing.F) {
	var logs lockedBuffer
	s, err := New(slog.New(slog.NewTextHandler(&logs, nil)), Options{})
	if err != nil {
		f.Fatal(err)
	}
	for i, l := range s.catalog {
		f.Add(uint8(i), "")
		f.Add(uint8(i), l.Params.Defaults().Query()+"&step=3&trained=5")
		for _, p := range l.Params {
			f.Add(uint8(i), p.Name+"="+url.QueryEscape(overLimit(p)))
		}
	}
	f.Add(uint8(len(s.catalog)), "seed=1") // no such lesson: a 404
	// The pages' own markup, with and without a problem shown, so that a query value
	// that is a piece of it (say "<!") is not taken for one the page reflects unescaped.
	own := make([]string, len(s.catalog))
	for i, l := range s.catalog {
		queries := []string{""}
		if len(l.Params) > 0 {
			queries = append(queries, l.Params[0].Name+"=%ff") // invalid for every kind
		}
		for _, q := range queries {
			w := httptest.NewRecorder()
			r := httptest.NewRequest("GET", "http://localhost/lessons/"+l.Slug, nil)
			r.URL.RawQuery = q
			s.ServeHTTP(w, r)
			own[i] += w.Body.String()
		}
	}
	f.Fuzz(func(t *testing.T, lesson uint8, query string) {
		logs.Reset()
		slug := "no-such-lesson"
		if int(lesson) < len(s.catalog) {
			slug = s.catalog[lesson].Slug
		}
		r := httptest.NewRequest("GET", "http://localhost/lessons/"+slug, nil)
		r.URL.RawQuery = query // as the server's parser would hand it on, unchecked
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		what := "GET /lessons/" + slug + "?"
		if w.Code >= 400 {
			checkAPIAnswer(t, what, []byte(query), w, logs.String(), http.StatusBadRequest, http.StatusNotFound)
			return
		}
		if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
			t.Fatalf("%s%.300q: status %d, Content-Type %q, want an HTML 200 or a 4xx JSON error\nserver log: %.3000s",
				what, query, w.Code, w.Header().Get("Content-Type"), logs.String())
		}
		q, _ := url.ParseQuery(query) // what the handler sees, parse errors and all
		for k, vs := range q {
			for _, v := range append(vs, k) {
				if markup.MatchString(v) && strings.Contains(w.Body.String(), v) && !strings.Contains(own[lesson], v) {
					t.Fatalf("%s%.300q: the page contains the query's %.100q unescaped", what, query, v)
				}
			}
		}
	})
}

// markup matches a value that would open an HTML element if a page wrote it unescaped.
var markup = regexp.MustCompile(`<[A-Za-z!/?]`)

// overLimit is a value just past what p accepts: Max+1, a text one rune too long, a
// choice that is not one. The seeds of the query targets use it.
func overLimit(p sim.ParamSpec) string {
	switch p.Kind {
	case sim.Int:
		return strconv.FormatFloat(p.Max+1, 'f', -1, 64)
	case sim.Float:
		return strconv.FormatFloat(math.Nextafter(p.Max, math.Inf(1)), 'g', -1, 64)
	case sim.Text:
		n := p.MaxLen
		if n == 0 {
			n = 200
		}
		return strings.Repeat("é", n+1)
	case sim.Bool:
		return "yes"
	}
	return "<b>not a choice</b>"
}

// FuzzTrainedSteps: trained=N in a page or export URL is 0 when absent, a whole number
// from 0 to the lesson's cap when valid, and otherwise an error that quotes at most 20
// runes of what was pasted.
func FuzzTrainedSteps(f *testing.F) {
	for _, s := range []string{"", "0", "1", "10000", "10001", "-1", "+5", " 5", "5 ", "0x10", "1e3", "1.0", "٣",
		"99999999999999999999", "-0", "00000000000000000000000000001", "NaN", "Inf", strings.Repeat("9", 5000),
		strings.Repeat("😀", 40), "\xff\xfe", "5\x00"} {
		f.Add(s, uint16(sim.MaxTrainSteps))
		f.Add(s, uint16(100))
	}
	f.Add("0", uint16(0))
	f.Add("1", uint16(0))
	f.Fuzz(func(t *testing.T, raw string, cap16 uint16) {
		limit := int(cap16) % (sim.MaxTrainSteps + 1) // a lesson's cap is at most one train command
		n, err := trainedSteps(url.Values{"trained": {raw}}, limit)
		if err != nil {
			msg := err.Error()
			// The message's fixed words, and at most 20 runes of raw quoted (10 bytes each at worst).
			if len(msg) > 400 || !utf8.ValidString(msg) {
				t.Fatalf("trained=%.100q (cap %d): a %d-byte error message, want a short sentence: %.500q", raw, limit, len(msg), msg)
			}
			if utf8.RuneCountInString(raw) > 20 && strings.Contains(msg, strconv.Quote(raw)) {
				t.Fatalf("trained=%.100q (cap %d): the error echoes the whole value: %q", raw, limit, msg)
			}
			if raw == "" {
				t.Fatalf("trained= (empty, cap %d): got error %q, want 0 steps", limit, msg)
			}
			if k, convErr := strconv.Atoi(raw); convErr == nil && strconv.Itoa(k) == raw && 0 <= k && k <= limit {
				t.Fatalf("trained=%s (cap %d): refused a valid value: %v", raw, limit, err)
			}
			return
		}
		if n < 0 || n > limit {
			t.Fatalf("trained=%.100q (cap %d): got %d steps, want 0 ≤ n ≤ %d", raw, limit, n, limit)
		}
		if raw == "" && n != 0 {
			t.Fatalf("trained= (empty): got %d steps, want 0", n)
		}
		if k, convErr := strconv.Atoi(raw); convErr == nil && strconv.Itoa(k) == raw && n != k {
			t.Fatalf("trained=%s: got %d steps", raw, n)
		}
	})
}
