package lessons

import (
	"regexp"
	"strings"
	"testing"
)

// texSpan is inline TeX, \( … \) (the page renders it, so a subscript there is a
// symbol), or a quoted token, “_” (a task's own character).
var texSpan = regexp.MustCompile(`\\\(.*?\\\)|“[^”]*”`)

// identifier is a word written as code: snake_case (unk_percent_en, dH_back).
var identifier = regexp.MustCompile(`[A-Za-z0-9]+(_[A-Za-z0-9]+)+`)

// readsAsCode reports why a label a page shows reads as a code name ("" when it does
// not): an underscore outside TeX, which a page shows as it is.
func readsAsCode(label string) string {
	text := texSpan.ReplaceAllString(label, "")
	if w := identifier.FindString(text); w != "" {
		return "the identifier " + w
	}
	if strings.Contains(text, "_") {
		return "an underscore outside TeX"
	}
	return ""
}

// TestLabelsReadAsSymbols: every label a lesson declares for its page — its summary, fact labels,
// array labels and their plain forms (what a canvas writes), legends, panel titles and
// notes, parameter labels and help — is in the lecture's symbols or words: no identifier and no
// underscore outside TeX.
func TestLabelsReadAsSymbols(t *testing.T) {
	for _, l := range testedLessons() {
		t.Run(l.Slug, func(t *testing.T) {
			check := func(what, label string) {
				t.Helper()
				if why := readsAsCode(label); why != "" {
					t.Errorf("%s %q reads as code: %s", what, label, why)
				}
			}
			check("summary", l.Summary)
			for _, f := range append(append([]fact(nil), l.Facts.static...), l.Facts.step...) {
				check("fact label", f.label)
			}
			for _, a := range l.Arrays {
				check("label of array "+a.Name, a.Label)
				check("plain label of array "+a.Name, PlainLabel(a.Label))
			}
			for _, p := range l.Panels {
				check("title of panel "+p.ID, p.Title)
				check("note of panel "+p.ID, p.Note)
				for _, g := range p.Legend {
					check("legend of panel "+p.ID, g)
				}
			}
			for _, s := range l.Params {
				check("label of parameter "+s.Name, s.Label)
				check("help of parameter "+s.Name, s.Help)
			}
		})
	}
}

// TestReadsAsCode: the check above tells a code name from a symbol.
func TestReadsAsCode(t *testing.T) {
	for label, code := range map[string]bool{
		"unk_percent_en": true, "dH_back": true, "jacobian_norm": true, "vs min_freq": true, "x_t": true,
		`\(x_t\)`: false, "‖∂L/∂Hₜ‖": false, "hidden units h": false, `\(\partial L/\partial H_t\) per step`: false,
		`\(a\) then b_c`: true,
	} {
		if got := readsAsCode(label) != ""; got != code {
			t.Errorf("readsAsCode(%q) = %v, want %v", label, got, code)
		}
	}
}

// TestPlainLabel: the labels' TeX in Unicode, as canvases and facts write it.
func TestPlainLabel(t *testing.T) {
	for tex, want := range map[string]string{
		`\(\hat{y}_{t'}\)`:                                    "y\u0302ₜ′",
		`\(\|\partial H_t/\partial H_{t-1}\|_2\)`:             "‖∂Hₜ/∂Hₜ₋₁‖₂",
		`\((\rho(W_{hh})\gamma)^{T-t}\)`:                      "(ρ(Wₕₕ)γ)ᵀ⁻ᵗ",
		`\(\mathrm{softmax}(O_t / \tau)\)`:                    "softmax(Oₜ / τ)",
		`\(\tilde{H}_t\)`:                                     "H̃ₜ",
		`\(H_t^{(l)}\)`:                                       "Hₜ⁽ˡ⁾",
		`\(\sigma(u_o^\top v_c)\)`:                            "σ(uₒᵀv₍c₎)",
		`\(y_1, \dots, y_T\)`:                                 "y₁, …, y₍T₎",
		`labels \(Y\)`:                                        "labels Y",
		`\(\mathrm{BLEU}\) (d2l)`:                             "BLEU (d2l)",
		`\(\mathrm{softmax}(QK^\top/\sqrt{d_k})\)`:            "softmax(QKᵀ/√dₖ)",
		`decoder input \((\langle\mathrm{bos}\rangle, y_1)\)`: "decoder input (⟨bos⟩, y₁)",
		`\(\prod_{r>t} \|J_r\|_2\)`:                           "∏₍r>t₎ ‖Jᵣ‖₂",
		"no TeX_here":                                         "no TeX_here",
	} {
		if got := PlainLabel(tex); got != want {
			t.Errorf("PlainLabel(%q) = %q, want %q", tex, got, want)
		}
	}
}

// TestPlainLabelCommands: the TeX of panel titles reads as signs, never as a command's
// name ("P(y_t' \mid …)" once read "midy").
func TestPlainLabelCommands(t *testing.T) {
	for in, want := range map[string]string{
		`\(P(y \mid x)\)`:         "P(y | x)",
		`\(a \to b\)`:             "a → b",
		`\(\sum_j \alpha_j\)`:     "Σⱼ αⱼ",
		`\(\mathbf{c}\)`:          "c",
		`\(\mathrm{softmax}(x)\)`: "softmax(x)",
	} {
		if got := PlainLabel(in); got != want {
			t.Errorf("PlainLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
