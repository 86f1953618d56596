package data

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The date-normalisation task for attention: a date written in one of many
// surface forms ("22 November 2026", "nov 22, 2026", "Sunday 22/11/26") is
// translated character by character into its ISO form "2026-11-22". It reuses Pair:
// En holds the surface form (the source), Fr the ISO date (the target); split both
// with CharTokens, not by white space.
const (
	dateSeed      = 1122 // 22 November, the lecture-example date
	dateCount     = 6000 // distinct dates: enough for ≥ 95% exact match, a few seconds of training
	dateTestEvery = 10   // the last dateCount/dateTestEvery generated dates are the test set
)

// SpaceToken stands for a space in CharTokens, so a space is visible on a page.
const SpaceToken = "␣"

// DateFirst and DateLast bound the dates drawn: one century, so that a two-digit
// year is unambiguous with the POSIX and Go rule (69–99 → 19yy, 00–68 → 20yy).
var (
	DateFirst = time.Date(1969, time.January, 1, 0, 0, 0, 0, time.UTC)
	DateLast  = time.Date(2068, time.December, 31, 0, 0, 0, 0, time.UTC)
)

// dateFormat is one surface form: an example (for 2026-11-22) and how to write it.
type dateFormat struct {
	example string
	write   func(t time.Time) string
}

func layout(l string) func(time.Time) string {
	return func(t time.Time) string { return t.Format(l) }
}

func lowerLayout(l string) func(time.Time) string {
	return func(t time.Time) string { return strings.ToLower(t.Format(l)) }
}

// ordinal writes a day of the month as 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st.
func ordinal(d int) string {
	suffix := "th"
	if d < 11 || d > 13 {
		switch d % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(d) + suffix
}

// dateFormats are the surface forms. Numeric forms are day-first (22/11/26) or
// year-first (2026/11/22), never the American month-first, which would make
// 05/06 ambiguous.
var dateFormats = []dateFormat{
	{"22 November 2026", layout("2 January 2006")},
	{"nov 22, 2026", lowerLayout("Jan 2, 2006")},
	{"Sunday 22/11/26", layout("Monday 02/01/06")},
	{"22.11.2026", layout("02.01.2006")},
	{"2026/11/22", layout("2006/01/02")},
	{"November 22nd, 2026", func(t time.Time) string {
		return t.Format("January") + " " + ordinal(t.Day()) + ", " + t.Format("2006")
	}},
	{"22-nov-2026", lowerLayout("02-Jan-2006")},
	{"Sun, 22 Nov 2026", layout("Mon, 2 Jan 2006")},
	{"Sunday, November 22, 2026", layout("Monday, January 2, 2006")},
	{"22 nov 26", lowerLayout("2 Jan 06")},
	{"20261122", layout("20060102")},
	{"the 22nd of november 2026", func(t time.Time) string {
		return "the " + ordinal(t.Day()) + " of " + strings.ToLower(t.Format("January 2006"))
	}},
	{"22/11/2026", layout("02/01/2006")},
	{"Nov 22 2026", layout("Jan 2 2006")},
	{"sunday 22 november 2026", lowerLayout("Monday 2 January 2006")},
}

// DateFormats lists one example of each surface form, for 2026-11-22.
func DateFormats() []string {
	out := make([]string, len(dateFormats))
	for i, f := range dateFormats {
		out[i] = f.example
	}
	return out
}

// isoDate is the target form of a date, YYYY-MM-DD.
func isoDate(t time.Time) string { return t.Format("2006-01-02") }

// datePair is a generated pair with the index of its surface form.
type datePair struct {
	Pair
	format int
}

func generateDatePairs(seed uint64, n int) []datePair {
	rng := rand.New(rand.NewPCG(seed, 0xda7e))
	days := int(DateLast.Sub(DateFirst).Hours()/24) + 1
	n = min(n, days)
	seen := map[int]bool{}
	out := make([]datePair, 0, n)
	for len(out) < n {
		d := rng.IntN(days)
		if seen[d] {
			continue
		}
		seen[d] = true
		t := DateFirst.AddDate(0, 0, d)
		f := rng.IntN(len(dateFormats))
		out = append(out, datePair{Pair{En: dateFormats[f].write(t), Fr: isoDate(t)}, f})
	}
	return out
}

// generateDates returns n pairs of distinct dates between 1969-01-01 and
// 2068-12-31, each in a surface form drawn uniformly from DateFormats (En) with
// its ISO form (Fr), deterministic in seed (at most one pair per day of the range).
func generateDates(seed uint64, n int) []Pair {
	gen := generateDatePairs(seed, n)
	out := make([]Pair, len(gen))
	for i, p := range gen {
		out[i] = p.Pair
	}
	return out
}

type dateSplit struct{ train, test []Pair }

var shippedDates = sync.OnceValue(func() dateSplit {
	all := generateDates(dateSeed, dateCount)
	cut := len(all) - len(all)/dateTestEvery
	return dateSplit{all[:cut:cut], all[cut:]}
})

// Dates is the shipped date task, generateDates(dateSeed, dateCount): the first 90%
// train, the last 10% test. Every date occurs once, so no test date is seen in
// training in any form. Built once; callers must not modify the slices.
func Dates() (train, test []Pair) {
	d := shippedDates()
	return d.train, d.test
}

// CharTokens splits s into one token per character (rune), writing a space as
// SpaceToken: "22 nov" → "2", "2", "␣", "n", "o", "v".
func CharTokens(s string) []string {
	out := make([]string, 0, len(s))
	for _, r := range s {
		if r == ' ' {
			out = append(out, SpaceToken)
			continue
		}
		out = append(out, string(r))
	}
	return out
}

// dateCandidateLayouts parse every surface form of dateFormats (after ordinal suffixes
// and "the … of" are removed) into a candidate date; RecogniseDate keeps a candidate
// only if the generator writes it back exactly as typed, so dateFormats stays the one
// definition of the forms.
var dateCandidateLayouts = []string{
	"2 January 2006", "Jan 2, 2006", "Monday 02/01/06", "02.01.2006", "2006/01/02",
	"January 2, 2006", "02-Jan-2006", "Mon, 2 Jan 2006", "Monday, January 2, 2006",
	"2 Jan 06", "20060102", "02/01/2006", "Jan 2 2006", "Monday 2 January 2006",
}

// dateOrdinal matches the "nd" of "22nd" (and st, rd, th).
var dateOrdinal = regexp.MustCompile(`(\d)(st|nd|rd|th)\b`)

// RecogniseDate reports the ISO form of a typed date and the example of its surface
// form, when s (lower-cased and trimmed as the date task reads it) is exactly one of
// the trained forms of a date in the task's range.
func RecogniseDate(s string) (iso, form string, ok bool) {
	typed, plain := dateReading(s)
	for _, layout := range dateCandidateLayouts {
		t, err := time.Parse(layout, plain)
		if err != nil || t.Before(DateFirst) || t.After(DateLast) {
			continue
		}
		for _, f := range dateFormats {
			if strings.ToLower(f.write(t)) == typed {
				return isoDate(t), f.example, true
			}
		}
	}
	return "", "", false
}

// dateReading is s as the date task reads it (lower-cased and trimmed) and the same
// with ordinal suffixes and "the … of" removed, which dateCandidateLayouts parse.
func dateReading(s string) (typed, plain string) {
	typed = strings.ToLower(strings.TrimSpace(s))
	plain = dateOrdinal.ReplaceAllString(typed, "$1")
	plain = strings.TrimPrefix(plain, "the ")
	plain = strings.Replace(plain, " of ", " ", 1)
	return typed, plain
}

// CheckDate reports why s is not a date the task knows, in words a student can act
// on: not a date in any trained form, a day or month the calendar does not have
// (31 February), a year outside DateFirst–DateLast, a weekday that does not match the
// date, or a date written otherwise than the trained forms write it. It returns nil
// exactly when RecogniseDate recognises s.
func CheckDate(s string) error {
	if _, _, ok := RecogniseDate(s); ok {
		return nil
	}
	typed, plain := dateReading(s)
	var calendar string // why a form that fits the text is not a calendar date
	for _, layout := range dateCandidateLayouts {
		t, err := time.Parse(layout, plain)
		if err != nil {
			var pe *time.ParseError
			if errors.As(err, &pe) && calendar == "" {
				switch {
				case strings.Contains(pe.Message, "day out of range"):
					calendar = "its month has no such day"
				case strings.Contains(pe.Message, "month out of range"):
					calendar = "there is no such month (months are 1 to 12)"
				}
			}
			continue
		}
		if t.Before(DateFirst) || t.After(DateLast) {
			return fmt.Errorf("%q is %s, outside the years the date model was trained on, %d to %d", s, isoDate(t), DateFirst.Year(), DateLast.Year())
		}
		if strings.Contains(layout, "Mon") {
			if day := strings.ToLower(t.Weekday().String()); !strings.Contains(typed, day[:3]) {
				return fmt.Errorf("%q: %s was a %s, so the weekday does not match the date", s, isoDate(t), t.Weekday())
			}
		}
		return fmt.Errorf("%q reads as %s, but not in one of the trained forms; write it, for example, %q", s, isoDate(t), dateFormats[0].write(t))
	}
	if calendar != "" {
		return fmt.Errorf("%q is not a date in the calendar: %s", s, calendar)
	}
	ex := DateFormats()
	return fmt.Errorf("%q is not a date in any of the %d trained forms, such as %q, %q or %q", s, len(ex), ex[0], ex[1], ex[2])
}
