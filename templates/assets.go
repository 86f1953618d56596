package templates

import (
	"context"
	"slices"

	"github.com/a-h/templ"

	"unroll/lessons"
)

// PageModule is the module every page runs (static/js/page.js), in the folder of
// the page's modules (Assets.Modules); what it imports statically a page preloads.
const PageModule = "page.js"

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
	// Imports maps each bundled module ("js/bundle/panels/heatmap.js") to the
	// modules it imports statically (the chunks it shares with others,
	// "js/bundle/chunk-….js"), so that a page preloads a panel module's imports with
	// it (panelPreloads) instead of finding them one level later.
	Imports map[string][]string
	// Modules is the folder of the page's modules: the server's bundle of static/js
	// ("js/bundle/", web/bundle.go), which keeps PageModule and panels/<kind>.js at
	// the places they have in static/js.
	Modules string
}

// modules is the folder of the page's modules: Assets.Modules, or static/js's own
// files without Assets.
func modules(ctx context.Context) string {
	if a := assetsOf(ctx); a != nil && a.Modules != "" {
		return a.Modules
	}
	return "js/"
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

// panelPreloads is the hashed URLs of the drawing modules of kinds and of every
// module they import statically (Assets.Imports, followed to the end), less those
// modulePreloads already lists: on a phone on a crowded network each level of
// imports found late costs a round trip (150 ms, docs/measurements.md).
func panelPreloads(ctx context.Context, kinds []string) []string {
	a := assetsOf(ctx)
	if a == nil {
		var urls []string
		for _, k := range kinds {
			urls = append(urls, assetURL(ctx, modules(ctx)+"panels/"+k+".js"))
		}
		return urls
	}
	seen := map[string]bool{}
	for _, u := range a.Preload {
		seen[u] = true
	}
	var urls []string
	var walk func(p string)
	walk = func(p string) {
		u, ok := a.URLs[p]
		if !ok || seen[u] {
			return
		}
		seen[u] = true
		urls = append(urls, u)
		for _, q := range a.Imports[p] {
			walk(q)
		}
	}
	for _, k := range kinds {
		walk(modules(ctx) + "panels/" + k + ".js")
	}
	return urls
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
