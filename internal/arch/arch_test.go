// Package arch holds the tests that keep the import direction of docs/architecture.md
// ("Packages"): every package of Unroll may import only the packages of Unroll listed for
// it, net/http only in web and cmd, and the numeric packages only the standard library,
// gonum and what their job needs.
package arch

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// mayImport lists, for every package of Unroll, the packages of Unroll it may import,
// directly or not. A package that is not listed fails TestImportDirection: a new
// package takes its place in the direction (and in docs/architecture.md) first.
var mayImport = map[string][]string{
	"models":           {},
	"sim":              {},
	"palette":          {},
	"palette/gen":      {"palette"}, // go generate: writes static/js/palette.js
	"figures":          {"palette"},
	"static":           {},
	"internal/arch":    {},
	"internal/docs":    {},
	"internal/machine": {},
	"internal/alias":   {},
	"internal/testkit": {}, // only tests import it
	"cmd/release":      {},
	"data":             {"models"},
	"check":            {"models"},
	"torchload":        {"models"},
	"zoo":              {"data", "models"},
	"lessons":          {"zoo", "data", "sim", "torchload", "models"},
	"templates":        {"exports", "figures", "palette", "lessons", "zoo", "data", "sim", "torchload", "models"},
	"exports":          {"figures", "palette", "lessons", "zoo", "data", "sim", "torchload", "models"},
	"web":              {"exports", "templates", "lessons", "zoo", "data", "figures", "palette", "check", "torchload", "sim", "models", "static"},
	"cmd/server":       {"web", "exports", "templates", "lessons", "zoo", "data", "figures", "palette", "check", "torchload", "sim", "models", "static"},
	"cmd/train":        {"zoo", "data", "models"},
	"cmd/loadtest":     {"sim"}, // a client of the server, over its websockets: never web
}

// httpAllowed are the packages that may import net/http themselves: the server's
// surface. (templates reaches it only through templ's runtime, which is not ours.)
var httpAllowed = []string{"web", "cmd/server", "cmd/release", "cmd/loadtest"}

// thirdParty lists the modules outside the standard library a numeric package may
// import, directly or not; a package not listed here (figures: gonum/plot and its
// fonts) may import any.
var thirdParty = map[string][]string{
	"models": numeric,
	"sim":    {},
	"data":   numeric,
	"zoo":    append([]string{"github.com/google/renameio/"}, numeric...), // renameio: atomic checkpoint writes
	// gopickle: reads a torch.save state_dict's pickle, under torchload's allowlist.
	"torchload": append([]string{"github.com/nlpodyssey/gopickle/"}, numeric...),
}

// numeric is what models imports, and every package that imports models with it:
// gonum, and golang.org/x/sys/cpu, which says whether the CPU has AVX2 and FMA for the
// one assembly kernel (models/gemm_amd64.s).
var numeric = []string{"gonum.org/", "golang.org/x/sys/cpu"}

// deps lists the packages pkg imports, directly or not (go list -deps), pkg included.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// imports lists the packages pkg imports itself (test files excluded).
func imports(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{join .Imports \" \"}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list -f {{.Imports}} %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// ours lists the module's packages without the "unroll/" prefix.
func ours(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "unroll/...").Output()
	if err != nil {
		t.Fatalf("go list unroll/...: %v", err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		pkgs = append(pkgs, strings.TrimPrefix(p, "unroll/"))
	}
	return pkgs
}

func TestImportDirection(t *testing.T) {
	for _, pkg := range ours(t) {
		allowed, listed := mayImport[pkg]
		if !listed {
			t.Errorf("unroll/%s is not in mayImport: give it its place in the import direction (docs/architecture.md)", pkg)
			continue
		}
		if slices.Contains(imports(t, "unroll/"+pkg), "net/http") && !slices.Contains(httpAllowed, pkg) {
			t.Errorf("unroll/%s imports net/http; only %v may", pkg, httpAllowed)
		}
		for _, d := range deps(t, "unroll/"+pkg) {
			if strings.HasPrefix(d, "unroll/") && d != "unroll/"+pkg && !slices.Contains(allowed, strings.TrimPrefix(d, "unroll/")) {
				t.Errorf("unroll/%s imports %s (directly or not); it may import only %v of ours", pkg, d, allowed)
			}
		}
	}
}

// TestThirdPartyImports: the numeric packages import only the standard library and the
// modules their job needs.
func TestThirdPartyImports(t *testing.T) {
	for pkg, prefixes := range thirdParty {
		for _, d := range deps(t, "unroll/"+pkg) {
			std := !strings.Contains(strings.SplitN(d, "/", 2)[0], ".")
			if std || strings.HasPrefix(d, "unroll/") || d == "unroll" {
				continue
			}
			if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(d, p) }) {
				t.Errorf("unroll/%s imports %s (directly or not); it may import only the standard library and %v", pkg, d, prefixes)
			}
		}
	}
}
