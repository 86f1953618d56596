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
