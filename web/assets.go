package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"mime"
	"net/http"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"

	"unroll/static"
	"unroll/templates"
)

// Package static's files, and the bundle of its modules the pages run (bundle.go), are
// served two ways (docs/api.md, "Static files"):
//
//   - under a content-hashed name, /static/js/bundle/page.3f9c0a1b2d4e.js, which the pages link:
//     the bytes behind such a URL never change, so a browser keeps them a year without
//     asking (immutableCache), and a second lesson moves only its HTML and its socket;
//   - under the plain name, /static/js/page.js, for anything outside the pages (a script,
//     a test's import()): revalidated on every use (plainCache, with the ETag).
//
// Every compressible file is compressed once, when the server starts (loadAssets), with
// brotli (github.com/andybalholm/brotli) and gzip (compress/gzip), and the request's
// Accept-Encoding picks one: never per request.
const (
	immutableCache = "public, max-age=31536000, immutable" // a hashed URL names these bytes for ever
	plainCache     = "no-cache"                            // a plain URL may name new bytes after a redeploy: ask each time (a 304 is cheap)

	// assetHashHex is the length of the hash in a hashed name: 48 bits tell apart
	// every version of a file a browser will ever hold.
	assetHashHex = 12
	// assetBrotliQuality is brotli's quality for the assets, measured on all of
	// them (637 KB of JS, CSS and text; docs/measurements.md, issue 22): quality 5
	// takes 0.12 s and gives 196 KB, quality 11 takes 2.1 s for 176 KB (10 % less),
	// which would put two seconds on every start. Quality 5 keeps `go run
	// ./cmd/server` ready in about a second.
	assetBrotliQuality = 5
	// assetMinSaving: a compressed form is kept only when it is at least this
	// fraction smaller than the file (a 300-byte icon gains nothing).
	assetMinSaving = 0.1
)

// asset is one file of package static as served.
type asset struct {
	path  string // as embedded: "js/page.js"
	url   string // the hashed URL: "/static/js/page.3f9c0a1b2d4e.js"
	ctype string
	hash  string // of body, hex, assetHashHex long
	body  []byte // the file (a stylesheet with its url()s rewritten to hashed URLs)
	br    []byte // body compressed with brotli, nil when not worth it
	gz    []byte // body compressed with gzip, nil when not worth it
}

// assetSet is every file of package static, by plain and by hashed path (both
// relative to /static/), and what a page needs to link them (templates.Assets).
type assetSet struct {
	plain  map[string]*asset
	hashed map[string]*asset
	page   *templates.Assets
}

// loadAssets builds the assets once per process: package static is part of the
// binary, so every Server shares them.
var loadAssets = sync.OnceValues(func() (*assetSet, error) { return buildAssets(static.FS) })

// cssURL finds the url(…) references of a stylesheet, with the format(…) after one
// (KaTeX's @font-face lists a woff2, a woff and a ttf for each font).
var cssURL = regexp.MustCompile(`(,\s*)?url\(\s*["']?([^"')]+)["']?\s*\)(\s*format\(\s*["'][^"']*["']\s*\))?`)

// moduleImport finds the static imports and re-exports of an ES module: what
// `import … from "./x.js"`, `import "./x.js"` and `export … from "./x.js"` name.
var moduleImport = regexp.MustCompile(`(?m)^\s*(?:import|export)\s*(?:[^;"'` + "`" + `]*?\bfrom\s*)?["']([^"']+)["']`)

// buildAssets reads every file of fsys and the page's bundle (bundleModules), rewrites the stylesheets' url()s to hashed
// URLs (dropping a font format that is not shipped: only woff2 is), names each file
// by its hash, and compresses what compresses.
func buildAssets(fsys fs.FS) (*assetSet, error) {
	set := &assetSet{plain: map[string]*asset{}, hashed: map[string]*asset{}}
	files := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files[p], err = fs.ReadFile(fsys, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	bundle, err := bundleModules(fsys)
	if err != nil {
		return nil, err
	}
	for p, body := range bundle {
		if _, dup := files[p]; dup {
			return nil, fmt.Errorf("web: package static has a file %s where the bundle goes", p)
		}
		files[p] = body
	}
	paths := slices.Sorted(maps.Keys(files))
	// Stylesheets last: their url()s name the other files by their hashed URLs.
	slices.SortStableFunc(paths, func(a, b string) int {
		return boolInt(path.Ext(a) == ".css") - boolInt(path.Ext(b) == ".css")
	})
	for _, p := range paths {
		body := files[p]
		if path.Ext(p) == ".css" {
			if body, err = set.rewriteCSS(p, body); err != nil {
				return nil, err
			}
		}
		sum := sha256.Sum256(body)
		a := &asset{path: p, body: body, hash: hex.EncodeToString(sum[:])[:assetHashHex], ctype: contentType(p, body)}
		ext := path.Ext(p)
		hashed := strings.TrimSuffix(p, ext) + "." + a.hash + ext
		a.url = "/static/" + hashed
		if _, dup := set.plain[hashed]; dup {
			return nil, fmt.Errorf("web: static file %s has the hashed name of %s", hashed, p)
		}
		set.plain[p], set.hashed[hashed] = a, a
	}
	compressAssets(set.plain)
	set.page = set.pageAssets()
	return set, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rewriteCSS points each url() of the stylesheet at p to the hashed URL of the file
// it names (relative to the stylesheet), and drops an alternative of a src list that
// names a file package static does not have (KaTeX's woff and ttf fonts).
func (set *assetSet) rewriteCSS(p string, css []byte) ([]byte, error) {
	var missing error
	out := cssURL.ReplaceAllFunc(css, func(m []byte) []byte {
		g := cssURL.FindSubmatch(m)
		ref := string(g[2])
		if strings.HasPrefix(ref, "data:") || strings.Contains(ref, "://") {
			return m
		}
		target := path.Join(path.Dir(p), ref)
		if strings.HasPrefix(ref, "/static/") {
			target = strings.TrimPrefix(ref, "/static/")
		}
		a, ok := set.plain[target]
		switch {
		case ok:
			return []byte(string(g[1]) + "url(" + a.url + ")" + string(g[3]))
		case len(g[1]) > 0: // a fallback of a list: not shipped, so not named
			return nil
		default:
			missing = fmt.Errorf("web: %s names %s, which package static does not have", p, ref)
			return m
		}
	})
	return out, missing
}

// contentType is a static file's type by its extension.
func contentType(p string, body []byte) string {
	switch path.Ext(p) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".woff2":
		return "font/woff2"
	case ".svg":
		return "image/svg+xml"
	case ".md", "":
		return "text/plain; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(p)); t != "" {
		return t
	}
	return http.DetectContentType(body)
}

// compressAssets compresses every compressible asset with brotli and gzip, a file
// at a time on each CPU; it returns when all are done.
func compressAssets(all map[string]*asset) {
	work := make(chan *asset)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for a := range work {
				a.br, a.gz = compressBody(a)
			}
		})
	}
	for _, a := range all {
		if compressible(a.ctype) {
			work <- a
		}
	}
	close(work)
	wg.Wait()
}

// compressBody is a's body with brotli and with gzip, each nil unless it saves
// assetMinSaving.
func compressBody(a *asset) (br, gz []byte) {
	keep := func(b []byte) []byte {
		if float64(len(b)) > (1-assetMinSaving)*float64(len(a.body)) {
			return nil
		}
		return b
	}
	var buf bytes.Buffer
	bw := brotli.NewWriterLevel(&buf, assetBrotliQuality)
	_, _ = bw.Write(a.body) // a bytes.Buffer does not fail
	_ = bw.Close()
	br = keep(bytes.Clone(buf.Bytes()))
	buf.Reset()
	gw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = gw.Write(a.body)
	_ = gw.Close()
	gz = keep(bytes.Clone(buf.Bytes()))
	return br, gz
}

// pageAssets is what Layout links: every file's hashed URL, the import map that sends
// each bundled module's plain URL (where another's relative import resolves) to its
// hashed URL, each module's static imports, and the bundle's page module with the
// chunks it imports statically, to preload.
func (set *assetSet) pageAssets() *templates.Assets {
	urls := map[string]string{}
	imports := map[string]string{}
	deps := map[string][]string{}
	for p, a := range set.plain {
		urls[p] = a.url
		if strings.HasPrefix(p, bundleDir) && path.Ext(p) == ".js" {
			imports["/static/"+p] = a.url
			for _, m := range moduleImport.FindAllSubmatch(a.body, -1) {
				if ref := string(m[1]); strings.HasPrefix(ref, "./") || strings.HasPrefix(ref, "../") {
					deps[p] = append(deps[p], path.Join(path.Dir(p), ref))
				}
			}
		}
	}
	importMap, _ := json.Marshal(map[string]any{"imports": imports}) // strings only: cannot fail
	var preload []string
	seen := map[string]bool{}
	var walk func(p string)
	walk = func(p string) {
		a, ok := set.plain[p]
		if !ok || seen[p] {
			return
		}
		seen[p] = true
		preload = append(preload, a.url)
		for _, q := range deps[p] {
			walk(q)
		}
	}
	walk(bundleDir + templates.PageModule)
	return &templates.Assets{URLs: urls, ImportMap: string(importMap), Preload: preload, Imports: deps, Modules: bundleDir}
}

// ServeHTTP serves GET /static/{path}: a hashed name as immutable, a plain name
// revalidated, each in the encoding the request prefers of those it accepts.
func (set *assetSet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, "/static/")
	a, cache := set.hashed[p], immutableCache
	if a == nil {
		a, cache = set.plain[p], plainCache
	}
	if a == nil {
		writeError(w, http.StatusNotFound, "there is no static file "+strconv.Quote(p))
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("Cache-Control", cache)
	h.Set("X-Content-Type-Options", "nosniff")
	body, tag := a.body, a.hash
	if a.br != nil || a.gz != nil {
		h.Add("Vary", "Accept-Encoding")
		switch acceptedEncoding(r, a.br != nil, a.gz != nil) {
		case "br":
			body, tag = a.br, tag+"-br"
			h.Set("Content-Encoding", "br")
		case "gzip":
			body, tag = a.gz, tag+"-gz"
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", `"`+tag+`"`)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body)) // 304 on If-None-Match, HEAD, ranges
}

// acceptedEncoding is the content coding to answer r with: "br" or "gzip" when the
// request accepts it (Accept-Encoding with q > 0, by name or by "*") and it is on
// offer (br, gz), brotli at equal weight, else "" (the identity).
func acceptedEncoding(r *http.Request, br, gz bool) string {
	qBr, qGz, qAny := -1.0, -1.0, -1.0 // -1: not named
	for _, field := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(field, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			q := 1.0
			if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "br":
				qBr = q
			case "gzip", "x-gzip":
				qGz = q
			case "*":
				qAny = q
			}
		}
	}
	if qBr < 0 {
		qBr = qAny
	}
	if qGz < 0 {
		qGz = qAny
	}
	switch {
	case br && qBr > 0 && (qBr >= qGz || !gz):
		return "br"
	case gz && qGz > 0:
		return "gzip"
	}
	return ""
}
