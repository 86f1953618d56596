package sim

import (
	"strings"
	"testing"
)

// TestTextLimitSaysWhy: a text longer than its limit is refused with the limit and its
// reason, the parameter's own or the default's; a text at the limit is taken whole.
func TestTextLimitSaysWhy(t *testing.T) {
	own := ParamSpec{Name: "input", Label: "input", Kind: Text, MaxLen: 5, MaxLenWhy: "five tokens fill the heatmap"}
	plain := ParamSpec{Name: "note", Label: "note", Kind: Text}
	for _, c := range []struct {
		spec ParamSpec
		n    int
		why  string
	}{
		{own, 5, "five tokens fill the heatmap"},
		{plain, maxTextDefault, maxTextDefaultWhy},
	} {
		if got := c.spec.TextLimitReason(); got != c.why {
			t.Errorf("%s: reason %q, want %q", c.spec.Name, got, c.why)
		}
		if v, err := c.spec.Check(strings.Repeat("é", c.n)); err != nil || len([]rune(v)) != c.n {
			t.Errorf("%s: %d characters at the limit: %q, %v", c.spec.Name, c.n, v, err)
		}
		_, err := c.spec.Check(strings.Repeat("é", c.n+1))
		if err == nil || !strings.HasSuffix(err.Error(), "the limit is "+itoa(c.n)+": "+c.why) {
			t.Errorf("%s: one past the limit: %v, want the limit and its reason", c.spec.Name, err)
		}
	}
}

func itoa(n int) string { return plain(float64(n)) }

// TestParamApplies: a parameter with a When applies only while the other parameter has
// one of its values; Validate refuses a condition on an undeclared, later or free-text
// parameter, on a value that parameter refuses, and one without a reason.
func TestParamApplies(t *testing.T) {
	gate := ParamSpec{Name: "clamp", Label: "clamp", Kind: Choice, Default: "none", Choices: []string{"none", "R", "Z"}}
	value := ParamSpec{Name: "clamp_value", Label: "value", Kind: Float, Default: "0", Max: 1,
		When: &Applies{Param: "clamp", Values: []string{"R", "Z"}, Why: "applies when a gate is clamped"}}
	ss := Specs{gate, value}
	if err := ss.Validate(); err != nil {
		t.Fatalf("valid specs: %v", err)
	}
	for g, want := range map[string]bool{"none": false, "R": true, "Z": true} {
		v := ss.Defaults()
		v["clamp"] = g
		if got := value.AppliesIn(v); got != want {
			t.Errorf("clamp=%s: clamp_value applies %v, want %v", g, got, want)
		}
		if !gate.AppliesIn(v) {
			t.Errorf("clamp=%s: a parameter without When must always apply", g)
		}
	}
	text := ParamSpec{Name: "input", Label: "input", Kind: Text}
	for name, bad := range map[string]Specs{
		"undeclared":     {value},
		"declared after": {value, gate},
		"on text":        {text, {Name: "x", Kind: Int, Max: 1, Default: "0", When: &Applies{Param: "input", Values: []string{"a"}, Why: "w"}}},
		"bad value":      {gate, {Name: "x", Kind: Int, Max: 1, Default: "0", When: &Applies{Param: "clamp", Values: []string{"Q"}, Why: "w"}}},
		"no reason":      {gate, {Name: "x", Kind: Int, Max: 1, Default: "0", When: &Applies{Param: "clamp", Values: []string{"R"}}}},
		"twice":          {gate, gate},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%s: Validate passed, want an error", name)
		}
	}
}
