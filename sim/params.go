package sim

import (
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParamKind is how a parameter is edited and validated.
type ParamKind string

// The parameter kinds.
const (
	Int    ParamKind = "int"    // a whole number in [Min, Max]
	Float  ParamKind = "float"  // a finite number in [Min, Max]
	Choice ParamKind = "choice" // one of Choices
	Text   ParamKind = "text"   // free text of at most MaxLen characters
	Bool   ParamKind = "bool"   // "true" or "false"
)

// maxTextDefault bounds text parameters that do not set MaxLen: a sentence, not a book.
const maxTextDefault = 200

// maxTextDefaultWhy is maxTextDefault's reason as the page and the errors state it.
const maxTextDefaultWhy = "a field takes a sentence, not a book, and the model is built again from all of it at every change"

// ParamSpec declares one parameter of a lesson: its URL name, its label and help for
// the page, and the values it accepts.
type ParamSpec struct {
	Name    string    `json:"name"`
	Label   string    `json:"label"`
	Help    string    `json:"help,omitempty"`
	Kind    ParamKind `json:"kind"`
	Default string    `json:"default"`
	Min     float64   `json:"min,omitempty"`
	Max     float64   `json:"max,omitempty"`
	Step    float64   `json:"step,omitempty"` // slider granularity
	Choices []string  `json:"choices,omitempty"`
	MaxLen  int       `json:"max_len,omitempty"`
	// MaxLenWhy is why the text is at most MaxLen characters, a clause for the student
	// ("the model reads at most 20 words"): the page says it when a paste or typing is
	// cut to the limit, and the error of a longer value ends with it.
	MaxLenWhy string `json:"max_len_why,omitempty"`
	Symbol    string `json:"symbol,omitempty"` // the lecture's symbol, TeX, e.g. `\rho(W)`
	Advanced  bool   `json:"advanced,omitempty"`
	// When, if set, is the condition under which the parameter takes effect: while it
	// does not hold the model ignores the value, and the page disables the control and
	// says why (When.Why).
	When *Applies `json:"when,omitempty"`
}

// Applies is the condition of ParamSpec.When: the parameter applies only while the
// parameter Param (a Choice, Bool or Int declared before it) has one of Values.
type Applies struct {
	Param  string   `json:"param"`
	Values []string `json:"values"`
	Why    string   `json:"why"` // what the student reads on the disabled control, e.g. "applies when a gate is clamped"
}

// AppliesIn reports whether the parameter takes effect with the values v: always
// without a When, else while v[When.Param] is one of When.Values.
func (p ParamSpec) AppliesIn(v Values) bool { return p.When.Holds(v) }

// Holds reports whether the condition holds at the values v; a nil condition always
// holds.
func (a *Applies) Holds(v Values) bool {
	return a == nil || slices.Contains(a.Values, v[a.Param])
}

// TextLimit is the most characters a Text parameter takes: MaxLen, or a default when
// it sets none. The page renders it as the field's maxlength.
func (p ParamSpec) TextLimit() int {
	if p.MaxLen > 0 {
		return p.MaxLen
	}
	return maxTextDefault
}

// TextLimitReason is why a Text parameter takes at most TextLimit characters:
// MaxLenWhy, or the default limit's reason.
func (p ParamSpec) TextLimitReason() string {
	if p.MaxLen > 0 && p.MaxLenWhy != "" {
		return p.MaxLenWhy
	}
	if p.MaxLen > 0 {
		return "the lesson takes no more"
	}
	return maxTextDefaultWhy
}

// plain writes a number as a student types it: 1000000, not 1e+06.
func plain(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Check returns the canonical form of raw, or an error a student can act on.
func (p ParamSpec) Check(raw string) (string, error) {
	switch p.Kind {
	case Int:
		n, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil {
			return "", fmt.Errorf("%s must be a whole number, got %q", p.Label, clip(raw))
		}
		if float64(n) < p.Min || float64(n) > p.Max {
			return "", fmt.Errorf("%s must be between %s and %s, got %d", p.Label, plain(p.Min), plain(p.Max), n)
		}
		return strconv.Itoa(n), nil
	case Float:
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return "", fmt.Errorf("%s must be a number, got %q", p.Label, clip(raw))
		}
		if f < p.Min || f > p.Max {
			return "", fmt.Errorf("%s must be between %s and %s, got %s", p.Label, plain(p.Min), plain(p.Max), plain(f))
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	case Choice:
		if !slices.Contains(p.Choices, raw) {
			return "", fmt.Errorf("%s must be one of %s, got %q", p.Label, strings.Join(p.Choices, ", "), clip(raw))
		}
		return raw, nil
	case Bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return "", fmt.Errorf("%s must be true or false, got %q", p.Label, clip(raw))
		}
		return strconv.FormatBool(b), nil
	case Text:
		limit := p.TextLimit()
		if !utf8.ValidString(raw) {
			return "", fmt.Errorf("%s is not valid text (UTF-8)", p.Label)
		}
		if n := utf8.RuneCountInString(raw); n > limit {
			return "", fmt.Errorf("%s is %d characters long; the limit is %d: %s", p.Label, n, limit, p.TextLimitReason())
		}
		return raw, nil
	}
	return "", fmt.Errorf("sim: parameter %s has unknown kind %q", p.Name, p.Kind)
}

// clip shortens a bad value for an error message, so a huge paste is not echoed back.
func clip(s string) string {
	const keep = 40 // enough to recognise what was typed
	if utf8.RuneCountInString(s) <= keep {
		return s
	}
	return string([]rune(s)[:keep]) + "…"
}

// Values are a lesson's validated parameter values in canonical string form, keyed
// by ParamSpec.Name; every declared parameter is present.
type Values map[string]string

// Int returns an Int parameter; it panics if the lesson did not declare it (a bug).
func (v Values) Int(name string) int {
	n, err := strconv.Atoi(v.must(name))
	if err != nil {
		panic(fmt.Sprintf("sim: parameter %s is not an int: %v", name, err))
	}
	return n
}

// Float returns a Float parameter.
func (v Values) Float(name string) float64 {
	f, err := strconv.ParseFloat(v.must(name), 64)
	if err != nil {
		panic(fmt.Sprintf("sim: parameter %s is not a float: %v", name, err))
	}
	return f
}

// Bool returns a Bool parameter.
func (v Values) Bool(name string) bool { return v.must(name) == "true" }

// String returns a Choice or Text parameter.
func (v Values) String(name string) string { return v.must(name) }

func (v Values) must(name string) string {
	s, ok := v[name]
	if !ok {
		panic(fmt.Sprintf("sim: no parameter %q", name))
	}
	return s
}

// Query encodes the values as a URL query in a stable order (sorted keys), so the
// same state always has the same URL.
func (v Values) Query() string {
	q := url.Values{}
	for k, s := range v {
		q.Set(k, s)
	}
	return q.Encode()
}

// Specs is a lesson's parameter list, in the order the page shows them.
type Specs []ParamSpec

// Validate checks the specs' declarations (a lesson bug, which the catalog's tests
// report): unique names, and every When naming a Choice, Bool or Int parameter
// declared before it, with values that parameter accepts in their canonical form (as
// the page compares them) and a reason to show.
func (ss Specs) Validate() error {
	for i, s := range ss {
		if slices.IndexFunc(ss[:i], func(o ParamSpec) bool { return o.Name == s.Name }) >= 0 {
			return fmt.Errorf("sim: parameter %s is declared twice", s.Name)
		}
		if s.When == nil {
			continue
		}
		j := slices.IndexFunc(ss[:i], func(o ParamSpec) bool { return o.Name == s.When.Param })
		if j < 0 {
			return fmt.Errorf("sim: parameter %s applies when %s is set, which is not declared before it", s.Name, s.When.Param)
		}
		if k := ss[j].Kind; k != Choice && k != Bool && k != Int {
			return fmt.Errorf("sim: parameter %s applies when %s is set, a %s parameter (want choice, bool or int)", s.Name, s.When.Param, k)
		}
		if len(s.When.Values) == 0 || s.When.Why == "" {
			return fmt.Errorf("sim: parameter %s: its condition needs values and a reason", s.Name)
		}
		for _, v := range s.When.Values {
			if c, err := ss[j].Check(v); err != nil || c != v {
				return fmt.Errorf("sim: parameter %s applies when %s = %q, which it does not accept in that form", s.Name, s.When.Param, v)
			}
		}
	}
	return nil
}

// Defaults returns every parameter at its default.
func (ss Specs) Defaults() Values {
	v := make(Values, len(ss))
	for _, s := range ss {
		v[s.Name] = s.Default
	}
	return v
}

// Parse validates a URL query against the specs: missing parameters take their
// default, unknown keys are ignored (a page may carry others, such as step), and the
// first invalid value is returned as an error along with the defaults for it.
func (ss Specs) Parse(q url.Values) (Values, error) {
	v := ss.Defaults()
	var first error
	for _, s := range ss {
		raw, ok := q[s.Name]
		if !ok || len(raw) == 0 {
			continue
		}
		canon, err := s.Check(raw[0])
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		v[s.Name] = canon
	}
	return v, first
}

// Apply returns base with the changes applied, or an error naming the first unknown
// parameter or invalid value; base is never modified.
func (ss Specs) Apply(base Values, changes map[string]string) (Values, error) {
	out := make(Values, len(base))
	for k, s := range base {
		out[k] = s
	}
	names := slices.Sorted(maps.Keys(changes)) // the same bad request gets the same message
	for _, name := range names {
		raw := changes[name]
		i := slices.IndexFunc(ss, func(s ParamSpec) bool { return s.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("there is no parameter %q on this page", clip(name))
		}
		canon, err := ss[i].Check(raw)
		if err != nil {
			return nil, err
		}
		out[name] = canon
	}
	return out, nil
}
