package palette

import (
	"bytes"
	"os"
	"testing"
)

// TestJSUpToDate: static/js/palette.js is what go generate writes from this package.
func TestJSUpToDate(t *testing.T) {
	got, err := os.ReadFile("../static/js/palette.js")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, JS()) {
		t.Error("static/js/palette.js is stale: run go generate ./palette")
	}
}

func TestRoleOf(t *testing.T) {
	for _, c := range []struct{ label, role string }{
		{"LSTM", "LSTM"},
		{"LSTM C_t", "LSTM"},
		{"GRU ‖∂L/∂H_t‖", "GRU"},
		{"RNN H_t", "RNN"},
		{"the vanilla RNN", "RNN"},
		{`\(\hat{y}\) (unidirectional)`, "unidirectional"},
		{"bidirectional", "bidirectional"},
		{"without attention", "without attention"},
		{"BLEU with attention", "with attention"},
		{"teacher forcing: P(label)", "teacher forcing"},
		{"free running: P(own choice)", "free running"},
		{"beam's best prefix", "beam search"},
		{"greedy's prefix", "greedy"},
		{"beam search", "beam search"},
		{"English", "English"},
		{"gruff", ""},           // not a whole word
		{"LSTMs", ""},           // not a whole word
		{"ÉGRU", ""},            // a letter before it
		{"loss", ""},            // no role
		{"GRU and LSTM", "GRU"}, // the first one
	} {
		r, ok := RoleOf(c.label)
		if ok != (c.role != "") || r.Name != c.role {
			t.Errorf("RoleOf(%q) = %q, %v; want %q", c.label, r.Name, ok, c.role)
		}
	}
}

func TestAssign(t *testing.T) {
	// the lstm page's grad-norms panel: three models, and the LSTM's cell gradient
	got := Assign([]string{"LSTM", "GRU", "RNN", "LSTM C_t"})
	want := []Style{{Blue, 0, 0}, {Orange, 1, 1}, {BluishGreen, 2, 2}, {Blue, 3, 3}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Assign: series %d is %+v, want %+v", i, got[i], want[i])
		}
	}
	// series without roles skip the colours the panel's roles hold
	got = Assign([]string{"loss", "greedy", "x"})
	want = []Style{{Blue, 0, 0}, {Orange, 1, 1}, {BluishGreen, 1, 1}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Assign: series %d is %+v, want %+v", i, got[i], want[i])
		}
	}
	// no two series of a panel look the same, whatever their number
	var labels []string
	for range 2 * len(Categorical) * len(Dashes) {
		labels = append(labels, "curve")
	}
	seen := map[Style]bool{}
	for _, s := range Assign(labels)[:len(Categorical)] {
		if seen[s] {
			t.Errorf("Assign: two series drawn as %+v", s)
		}
		seen[s] = true
	}
}
