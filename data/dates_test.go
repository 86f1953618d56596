package data

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// dateLayouts parse each surface form back with Go's time package (month and
// weekday names match case-insensitively); ordinal forms are rewritten first.
var dateLayouts = []string{
	"2 January 2006", "Jan 2, 2006", "Monday 02/01/06", "02.01.2006", "2006/01/02",
	"January 2, 2006", "02-Jan-2006", "Mon, 2 Jan 2006", "Monday, January 2, 2006", "2 Jan 06",
	"20060102", "2 January 2006", "02/01/2006", "Jan 2 2006", "Monday 2 January 2006",
}

var ordinalSuffix = regexp.MustCompile(`\b(\d+)(st|nd|rd|th)\b`)

func parseSurface(t *testing.T, format int, s string) time.Time {
	t.Helper()
	s = strings.TrimPrefix(s, "the ")
	s = strings.Replace(s, " of ", " ", 1)
	s = ordinalSuffix.ReplaceAllString(s, "$1")
	d, err := time.Parse(dateLayouts[format], s)
	if err != nil {
		t.Fatalf("format %d: parse %q: %v", format, s, err)
	}
	return d
}

func TestDateOrdinal(t *testing.T) {
	tests := map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th",
		21: "21st", 22: "22nd", 23: "23rd", 24: "24th", 30: "30th", 31: "31st"}
	for d, want := range tests {
		if got := ordinal(d); got != want {
			t.Errorf("ordinal(%d) got %q want %q", d, got, want)
		}
	}
}

func TestDateFormatExamples(t *testing.T) {
	d := time.Date(2026, time.November, 22, 0, 0, 0, 0, time.UTC)
	if d.Weekday() != time.Sunday {
		t.Fatalf("2026-11-22 got %v want Sunday", d.Weekday())
	}
	for i, f := range dateFormats {
		if got := f.write(d); got != f.example {
			t.Errorf("format %d: got %q want %q", i, got, f.example)
		}
		if got := parseSurface(t, i, f.example); !got.Equal(d) {
			t.Errorf("format %d: %q parses to %v want 2026-11-22", i, f.example, got)
		}
	}
	if len(DateFormats()) != len(dateLayouts) {
		t.Errorf("formats got %d want %d layouts in the test", len(DateFormats()), len(dateLayouts))
	}
}

var weekdayWord = regexp.MustCompile(`(?i)\b(mon|tue|wed|thu|fri|sat|sun)[a-z]*`)

// TestDateRoundTrip: every source parses back to its target, the target is a
// valid ISO date, a weekday shown is the date's weekday, every format appears,
// and the sources are distinct.
func TestDateRoundTrip(t *testing.T) {
	gen := generateDatePairs(dateSeed, dateCount)
	if len(gen) != dateCount {
		t.Fatalf("dates got %d want %d", len(gen), dateCount)
	}
	perFormat := make([]int, len(dateFormats))
	sources := map[string]bool{}
	weekdays := 0
	for _, p := range gen {
		perFormat[p.format]++
		if sources[p.En] {
			t.Errorf("%q: got a repeated source want distinct", p.En)
		}
		sources[p.En] = true
		target, err := time.Parse("2006-01-02", p.Fr)
		if err != nil || isoDate(target) != p.Fr {
			t.Errorf("target %q: got unparsable (%v) want YYYY-MM-DD", p.Fr, err)
			continue
		}
		if target.Before(DateFirst) || target.After(DateLast) {
			t.Errorf("target %q: got outside [%s, %s]", p.Fr, isoDate(DateFirst), isoDate(DateLast))
		}
		if got := parseSurface(t, p.format, p.En); !got.Equal(target) {
			t.Errorf("%q: got %s want %s", p.En, isoDate(got), p.Fr)
		}
		if m := weekdayWord.FindString(p.En); m != "" {
			weekdays++
			want := target.Weekday().String()
			if !strings.EqualFold(m, want) && !strings.EqualFold(m, want[:3]) {
				t.Errorf("%q: weekday got %q want %s", p.En, m, want)
			}
		}
	}
	if weekdays < dateCount/len(dateFormats) {
		t.Errorf("dates showing a weekday got %d want at least %d", weekdays, dateCount/len(dateFormats))
	}
	for i, c := range perFormat {
		if c < dateCount/len(dateFormats)/2 {
			t.Errorf("format %q: got %d dates want at least %d", dateFormats[i].example, c, dateCount/len(dateFormats)/2)
		}
	}
}

func TestDateSplit(t *testing.T) {
	train, test := Dates()
	if len(train)+len(test) != dateCount || len(test) != dateCount/dateTestEvery {
		t.Errorf("split got %d+%d want %d with %d test", len(train), len(test), dateCount, dateCount/dateTestEvery)
	}
	dates := map[string]bool{}
	chars := map[string]bool{}
	for _, p := range train {
		dates[p.Fr] = true
		for _, c := range CharTokens(p.En) {
			chars[c] = true
		}
	}
	for _, p := range test {
		if dates[p.Fr] {
			t.Errorf("%s: got in train and test want test only", p.Fr)
		}
		for _, c := range CharTokens(p.En) {
			if !chars[c] {
				t.Errorf("%q: character %q got unseen in train want seen", p.En, c)
			}
		}
	}
	again := generateDates(dateSeed, dateCount)
	if !slices.Equal(again, append(slices.Clone(train), test...)) {
		t.Errorf("generateDates(dateSeed, dateCount): got a different sequence want Dates() train+test")
	}
	if slices.Equal(generateDates(1, 50), generateDates(2, 50)) {
		t.Errorf("seeds 1 and 2: got equal dates want different")
	}
}

func TestDateCharTokens(t *testing.T) {
	got := CharTokens("22 nov")
	want := []string{"2", "2", SpaceToken, "n", "o", "v"}
	if !slices.Equal(got, want) {
		t.Errorf("CharTokens got %q want %q", got, want)
	}
	if got := strings.Join(CharTokens("2026-11-22"), ""); got != "2026-11-22" {
		t.Errorf("CharTokens(target) joined got %q want 2026-11-22", got)
	}
}

func TestRecogniseDate(t *testing.T) {
	for _, ex := range DateFormats() { // every trained form of 2026-11-22
		iso, form, ok := RecogniseDate(ex)
		if !ok || iso != "2026-11-22" || form != ex {
			t.Errorf("%q: got %q, %q, %v want 2026-11-22 in its own form", ex, iso, form, ok)
		}
	}
	tests := []struct {
		typed, want string // want "" = not recognised
	}{
		{"  22 NOVEMBER 2026 ", "2026-11-22"}, // the task lower-cases and trims
		{"the 1st of january 1969", "1969-01-01"},
		{"December 31st, 2068", "2068-12-31"},
		{"monday 22/11/26", ""},   // 22/11/26 is a Sunday
		{"2026-11-22", ""},        // the output form is not a source form
		{"31 february 2026", ""},  // no such day
		{"22 November 2090", ""},  // outside 1969–2068
		{"22  November 2026", ""}, // two spaces: not how the generator writes it
		{"hello", ""},
	}
	for _, tt := range tests {
		iso, _, ok := RecogniseDate(tt.typed)
		if ok != (tt.want != "") || iso != tt.want {
			t.Errorf("%q: got %q, %v want %q", tt.typed, iso, ok, tt.want)
		}
	}
	train, test := Dates()
	for _, p := range append(train[:300:300], test...) {
		if iso, _, ok := RecogniseDate(p.En); !ok || iso != p.Fr {
			t.Errorf("generated %q: got %q, %v want %q", p.En, iso, ok, p.Fr)
		}
	}
}

// TestCheckDate: CheckDate accepts exactly what RecogniseDate recognises, and says
// why it refuses the rest: not a date, not in the calendar, outside the years, the
// wrong weekday, another way of writing it.
func TestCheckDate(t *testing.T) {
	tests := []struct {
		typed, want string // want "" = accepted
	}{
		{"22 November 2026", ""},
		{"29 February 2024", ""},
		{"Sunday 22/11/26", ""},
		{"31 February 2026", `"31 February 2026" is not a date in the calendar: its month has no such day`},
		{"29 February 2025", "its month has no such day"},
		{"the 31st of february 2026", "its month has no such day"},
		{"2026/02/30", "its month has no such day"},
		{"13/13/2026", "there is no such month"},
		{"hello world", `"hello world" is not a date in any of the 15 trained forms, such as "22 November 2026"`},
		{"2026-11-22", "is not a date in any of the 15 trained forms"},
		{"22 November 2090", `"22 November 2090" is 2090-11-22, outside the years the date model was trained on, 1969 to 2068`},
		{"monday 22/11/26", "2026-11-22 was a Sunday, so the weekday does not match the date"},
		{"22  November 2026", `reads as 2026-11-22, but not in one of the trained forms; write it, for example, "22 November 2026"`},
	}
	for _, tt := range tests {
		err := CheckDate(tt.typed)
		_, _, ok := RecogniseDate(tt.typed)
		switch {
		case tt.want == "" && (err != nil || !ok):
			t.Errorf("%q: got %v (recognised %v) want accepted", tt.typed, err, ok)
		case tt.want != "" && (err == nil || ok || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: got %v (recognised %v) want an error containing %q", tt.typed, err, ok, tt.want)
		}
	}
	train, test := Dates()
	for _, p := range append(train[:300:300], test...) {
		if err := CheckDate(p.En); err != nil {
			t.Errorf("generated %q: %v", p.En, err)
		}
	}
}
