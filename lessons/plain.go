package lessons

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// PlainLabel is a label with its TeX (between \( and \)) written in Unicode, for what
// a page writes without TeX: a canvas's legend, a block's name, a hover's first line.
// \hat{y}_{t'} becomes ŷₜ′, \|\partial L/\partial H_t\| becomes ‖∂L/∂Hₜ‖; a subscript
// Unicode has no letters for goes between ₍ ₎ (y₍T₎), never after an underscore.
func PlainLabel(label string) string {
	var b strings.Builder
	for {
		i := strings.Index(label, `\(`)
		if i < 0 {
			b.WriteString(label)
			return b.String()
		}
		j := strings.Index(label[i:], `\)`)
		if j < 0 {
			b.WriteString(label)
			return b.String()
		}
		b.WriteString(label[:i])
		b.WriteString(plainTeX(label[i+2 : i+j]))
		label = label[i+j+2:]
	}
}

// texWords are the TeX commands the labels use, in Unicode.
var texWords = map[string]string{
	"alpha": "α", "beta": "β", "gamma": "γ", "rho": "ρ", "sigma": "σ", "phi": "φ", "theta": "θ", "tau": "τ", "ell": "ℓ",
	"partial": "∂", "top": "ᵀ", "odot": "⊙", "cdot": "·", "times": "×", "dots": "…", "ldots": "…", "cdots": "⋯",
	"langle": "⟨", "rangle": "⟩", "lVert": "‖", "rVert": "‖", "|": "‖", "infty": "∞", "log": "log", "exp": "exp",
	"max": "max", "min": "min", "sqrt": "√", ",": " ", ";": " ", ":": " ", "!": "", "quad": " ", "left": "", "right": "",
	"{": "{", "}": "}", "mid": "| ", "to": "→ ", "sum": "Σ", "prod": "∏", "le": "≤", "ge": "≥", "in": "∈", "approx": "≈", "mathbf": "", "mathrm": "", "text": "",
}

// texAccents are the accents the labels use, as combining marks after their letter.
var texAccents = map[string]string{
	"hat": "\u0302", "tilde": "\u0303", "bar": "\u0304", "overrightarrow": "\u20d7", "overleftarrow": "\u20d6",
}

// Unicode's subscript and superscript forms of the characters that have one.
var (
	subscripts   = map[rune]rune{'0': '₀', '1': '₁', '2': '₂', '3': '₃', '4': '₄', '5': '₅', '6': '₆', '7': '₇', '8': '₈', '9': '₉', '+': '₊', '−': '₋', '=': '₌', '(': '₍', ')': '₎', 'a': 'ₐ', 'e': 'ₑ', 'h': 'ₕ', 'i': 'ᵢ', 'j': 'ⱼ', 'k': 'ₖ', 'l': 'ₗ', 'm': 'ₘ', 'n': 'ₙ', 'o': 'ₒ', 'p': 'ₚ', 'r': 'ᵣ', 's': 'ₛ', 't': 'ₜ', 'u': 'ᵤ', 'v': 'ᵥ', 'x': 'ₓ', '′': '′', ',': ',', '.': '.'}
	superscripts = map[rune]rune{'0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹', '+': '⁺', '−': '⁻', '=': '⁼', '(': '⁽', ')': '⁾', 'T': 'ᵀ', 'l': 'ˡ', 't': 'ᵗ', 'n': 'ⁿ', 'i': 'ⁱ', 'k': 'ᵏ', 'ᵀ': 'ᵀ', '′': '′'}
)

// plainTeX writes one TeX span in Unicode.
func plainTeX(tex string) string {
	var b strings.Builder
	for tex != "" {
		r, n := utf8.DecodeRuneInString(tex)
		switch r {
		case '\\':
			name, rest := texCommand(tex[1:])
			tex = rest
			if mark, ok := texAccents[name]; ok {
				var arg string
				arg, tex = texGroup(tex)
				b.WriteString(plainTeX(arg) + mark)
			} else if name == "mathrm" || name == "text" || name == "mathbf" || name == "operatorname" || name == "mathit" {
				var arg string
				arg, tex = texGroup(tex)
				b.WriteString(plainTeX(arg))
			} else if name == "sqrt" {
				var arg string
				arg, tex = texGroup(tex)
				b.WriteString("√" + plainTeX(arg))
			} else if w, ok := texWords[name]; ok {
				b.WriteString(w)
			} else {
				b.WriteString(name)
			}
			continue
		case '_', '^':
			var arg string
			arg, tex = texGroup(tex[1:])
			b.WriteString(script(plainTeX(arg), r == '_'))
			continue
		case '{', '}':
		case '\'':
			b.WriteRune('′')
		case '-':
			b.WriteRune('−')
		default:
			b.WriteRune(r)
		}
		tex = tex[n:]
	}
	return b.String()
}

// texCommand splits a command's name (letters, or one other character) from what follows.
func texCommand(s string) (name, rest string) {
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
		i++
	}
	if i == 0 && s != "" {
		_, n := utf8.DecodeRuneInString(s)
		return s[:n], s[n:]
	}
	return s[:i], strings.TrimPrefix(s[i:], " ") // TeX: a space ends a command's name
}

// texGroup splits a command's argument, {…} or one character (or command), from what follows.
func texGroup(s string) (arg, rest string) {
	s = strings.TrimLeft(s, " ")
	if s == "" {
		return "", ""
	}
	if s[0] == '\\' {
		_, rest := texCommand(s[1:])
		return s[:len(s)-len(rest)], rest
	}
	if s[0] != '{' {
		_, n := utf8.DecodeRuneInString(s)
		return s[:n], s[n:]
	}
	depth := 0
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[1:i], s[i+1:]
			}
		}
	}
	return s[1:], ""
}

// script writes s as a subscript (sub) or superscript: in Unicode's forms when every
// character has one, else between ₍ ₎ or after ^.
func script(s string, sub bool) string {
	forms := superscripts
	if sub {
		forms = subscripts
	}
	out := make([]rune, 0, len(s))
	for _, r := range s {
		f, ok := forms[r]
		if !ok {
			if sub {
				return "₍" + s + "₎"
			}
			return "^(" + s + ")"
		}
		out = append(out, f)
	}
	return string(out)
}

// MarshalJSON writes the declaration with its label's plain form ("plain"), which the
// page's canvases and hover lines write where they cannot set TeX.
func (a Array) MarshalJSON() ([]byte, error) {
	type declared Array // without this method
	return json.Marshal(struct {
		declared
		Plain string `json:"plain"`
	}{declared(a), PlainLabel(a.Label)})
}
