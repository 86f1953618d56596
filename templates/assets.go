package templates

import (
	"context"
	"slices"

	"github.com/a-h/templ"

	"unroll/lessons"
)

// PageModule is the module every page runs (static/js/page.js); the modules it
// imports statically are the ones a page preloads.
const PageModule = "js/page.js"

// Assets are the URLs a page links package static's files by. The server names each
// file by a hash of its bytes (web/assets.go), so that a browser keeps it for good;
// Layout asks for the URLs here, through the context the page is rendered with
// (WithAssets), and falls back to the plain /static/ URLs without one.
type Assets struct {
	// URLs maps a file's path in package static ("css/unroll.css") to its URL
	// ("/static/css/unroll.1a2b3c4d5e6f.css").
	URLs map[string]string
	// ImportMap is the JSON of the page's import map: each module's plain URL (where
	// another module's relative import, or an import() of the plain URL, resolves)
	// to its hashed URL.
	ImportMap string
	// Preload are the hashed URLs of PageModule and the modules it imports
	// statically, fetched at once instead of one level of imports after another.
	Preload []string
	// Imports maps each module's path ("js/panels/ngrams.js") to the hashed URLs of
	// it and of every module it imports statically, directly or not: what a page
	// preloads with a panel kind's module (kindPreloads).
	Imports map[string][]string
}

type assetsKey struct{}

// WithAssets returns ctx carrying a for the pages rendered with it.
func WithAssets(ctx context.Context, a *Assets) context.Context {
	return context.WithValue(ctx, assetsKey{}, a)
}

// assetsOf is the Assets ctx carries, or nil.
func assetsOf(ctx context.Context) *Assets {
	a, _ := ctx.Value(assetsKey{}).(*Assets)
	return a
}

// assetURL is the URL to link the file at path (in package static) by.
func assetURL(ctx context.Context, path string) string {
	if a := assetsOf(ctx); a != nil {
		if u, ok := a.URLs[path]; ok {
			return u
		}
	}
	return "/static/" + path
}

// importMap is the page's <script type="importmap">, or nothing without Assets. It
// must come before any module script or preload of the page.
func importMap(ctx context.Context) templ.Component {
	a := assetsOf(ctx)
	if a == nil || a.ImportMap == "" {
		return templ.NopComponent
	}
	return templ.Raw(`<script type="importmap">` + a.ImportMap + `</script>`) // JSON from encoding/json: <, > and & are escaped
}

// modulePreloads is the hashed URLs of the page's first modules, or none.
func modulePreloads(ctx context.Context) []string {
	if a := assetsOf(ctx); a != nil {
		return a.Preload
	}
	return nil
}

// kindPreloads is the URLs a lesson page preloads for l's drawing modules (panelKinds):
// each kind's module and the modules it imports that the page's first modules
// (modulePreloads) do not, once each; without Assets, the kinds' plain URLs.
func kindPreloads(ctx context.Context, l *lessons.Lesson) []string {
	a := assetsOf(ctx)
	var out []string
	for _, k := range panelKinds(l) {
		p := "js/panels/" + k + ".js"
		mods := []string{assetURL(ctx, p)}
		if a != nil && len(a.Imports[p]) > 0 {
			mods = a.Imports[p]
		}
		for _, u := range mods {
			if (a == nil || !slices.Contains(a.Preload, u)) && !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	return out
}

// panelKinds are the drawing modules l's page shows (static/js/draw.js loads only
// those): each panel's kind, and the line of the training loss when l trains.
func panelKinds(l *lessons.Lesson) []string {
	var kinds []string
	for _, p := range l.Panels {
		if k := string(p.Kind); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	if l.Trains && !slices.Contains(kinds, string(lessons.Line)) {
		kinds = append(kinds, string(lessons.Line))
	}
	return kinds
}
