package web

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/gorilla/websocket"

	"unroll/static"
)

// rawFetch is fetch without the transport's own gzip: the body as it came.
func rawFetch(t *testing.T, method, url string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	return do(t, &http.Client{Transport: &http.Transport{DisableCompression: true}}, method, url, header)
}

// decoded is body decoded from its Content-Encoding.
func decoded(t *testing.T, enc string, body []byte) []byte {
	t.Helper()
	var r io.Reader
	switch enc {
	case "":
		return body
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	default:
		t.Fatalf("unexpected Content-Encoding %q", enc)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decoding %s: %v", enc, err)
	}
	return out
}

// TestAssetsHashed: the page links every file by a hashed URL, which is immutable and
// holds the file's bytes in the encoding the request prefers; the plain URL holds the
// same bytes revalidated; a 304 answers a revalidation in each encoding.
func TestAssetsHashed(t *testing.T) {
	set, err := loadAssets()
	if err != nil {
		t.Fatal(err)
	}
	_, ts := newLessonServer(t)
	a := set.plain["js/page.js"]
	want, _ := fs.ReadFile(static.FS, "js/page.js")
	if a == nil || !strings.HasPrefix(a.url, "/static/js/page.") || !bytes.Equal(a.body, want) {
		t.Fatalf("js/page.js: got %+v", a)
	}
	for _, tc := range []struct{ accept, enc string }{
		{"br, gzip", "br"}, {"gzip, br", "br"}, {"gzip", "gzip"}, {"gzip;q=1, br;q=0.5", "gzip"},
		{"br;q=0, gzip", "gzip"}, {"*", "br"}, {"identity", ""}, {"", ""}, {"gzip;q=0, br;q=0", ""},
	} {
		for _, u := range []string{a.url, "/static/js/page.js"} {
			resp, body := rawFetch(t, "GET", ts.URL+u, http.Header{"Accept-Encoding": {tc.accept}})
			h := resp.Header
			cache := plainCache
			if u == a.url {
				cache = immutableCache
			}
			if resp.StatusCode != 200 || h.Get("Content-Encoding") != tc.enc || h.Get("Cache-Control") != cache ||
				h.Get("Vary") != "Accept-Encoding" || !strings.Contains(h.Get("Content-Type"), "javascript") {
				t.Fatalf("%s with Accept-Encoding %q: got %d, encoding %q, Cache-Control %q, Vary %q, type %q; want 200, %q, %q, Vary Accept-Encoding",
					u, tc.accept, resp.StatusCode, h.Get("Content-Encoding"), h.Get("Cache-Control"), h.Get("Vary"), h.Get("Content-Type"), tc.enc, cache)
			}
			if got := decoded(t, tc.enc, body); !bytes.Equal(got, want) {
				t.Fatalf("%s in %q: the decoded body differs from the file (%d bytes, want %d)", u, tc.enc, len(got), len(want))
			}
			again, body := rawFetch(t, "GET", ts.URL+u, http.Header{"Accept-Encoding": {tc.accept}, "If-None-Match": {h.Get("ETag")}})
			if again.StatusCode != http.StatusNotModified || len(body) != 0 {
				t.Errorf("%s revalidated in %q: got %d with %d bytes, want 304", u, tc.enc, again.StatusCode, len(body))
			}
		}
	}
	head, body := rawFetch(t, "HEAD", ts.URL+a.url, http.Header{"Accept-Encoding": {"br"}})
	if head.StatusCode != 200 || len(body) != 0 || head.Header.Get("Content-Encoding") != "br" || head.Header.Get("Cache-Control") != immutableCache {
		t.Errorf("HEAD: got %d, %d bytes, encoding %q, cache %q; want 200, none, br, immutable", head.StatusCode, len(body), head.Header.Get("Content-Encoding"), head.Header.Get("Cache-Control"))
	}
	// Fonts are compressed already: served as they are, without Vary.
	font := set.plain["vendor/katex/fonts/KaTeX_Main-Regular.woff2"]
	resp, _ := rawFetch(t, "GET", ts.URL+font.url, http.Header{"Accept-Encoding": {"br, gzip"}})
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Content-Type") != "font/woff2" || resp.Header.Get("Cache-Control") != immutableCache {
		t.Errorf("a woff2 font: got %d, encoding %q, type %q, cache %q", resp.StatusCode, resp.Header.Get("Content-Encoding"), resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"))
	}
	// A hashed name that is not the current one is not found (no stale module by accident).
	if resp, _ := rawFetch(t, "GET", ts.URL+"/static/js/page.000000000000.js", nil); resp.StatusCode != 404 {
		t.Errorf("an unknown hash: got %d, want 404", resp.StatusCode)
	}
}

// TestAssetsKaTeXCSS: KaTeX's stylesheet names its fonts by their hashed URLs, only
// woff2, and every font it names is served.
func TestAssetsKaTeXCSS(t *testing.T) {
	set, err := loadAssets()
	if err != nil {
		t.Fatal(err)
	}
	css := string(set.plain["vendor/katex/katex.min.css"].body)
	urls := regexp.MustCompile(`url\(([^)]*)\)`).FindAllStringSubmatch(css, -1)
	if len(urls) == 0 {
		t.Fatal("KaTeX's CSS names no url()")
	}
	for _, m := range urls {
		u := m[1]
		if !strings.HasSuffix(u, ".woff2") || set.hashed[strings.TrimPrefix(u, "/static/")] == nil {
			t.Errorf("KaTeX's CSS names %s: want the hashed URL of a shipped woff2", u)
		}
	}
	if strings.Contains(css, ".woff)") || strings.Contains(css, ".ttf") || strings.Contains(css, `format("woff")`) || strings.Contains(css, "src:,") {
		t.Error("KaTeX's CSS still names a woff or ttf font, or lost a src's first entry")
	}
}

// TestAssetsPage: a page's HTML links the hashed URLs and carries an import map of
// every module; its preloads are page.js's static imports, not the deferred modules;
// the page is revalidated (no-cache, an ETag, 304) and compressed.
func TestAssetsPage(t *testing.T) {
	set, err := loadAssets()
	if err != nil {
		t.Fatal(err)
	}
	_, ts := newLessonServer(t)
	resp, body := rawFetch(t, "GET", ts.URL+"/lessons/tiny", http.Header{"Accept-Encoding": {"br, gzip"}})
	html := string(decoded(t, resp.Header.Get("Content-Encoding"), body))
	if resp.Header.Get("Content-Encoding") != "br" || resp.Header.Get("Cache-Control") != "no-cache" || resp.Header.Get("ETag") == "" {
		t.Errorf("the page: encoding %q, Cache-Control %q, ETag %q; want br, no-cache and an ETag",
			resp.Header.Get("Content-Encoding"), resp.Header.Get("Cache-Control"), resp.Header.Get("ETag"))
	}
	for _, p := range []string{"js/page.js", "css/unroll.css", "vendor/katex/katex.min.css", "vendor/katex/katex.min.js"} {
		if !strings.Contains(html, `"`+set.plain[p].url+`"`) {
			t.Errorf("the page does not link %s by %s", p, set.plain[p].url)
		}
	}
	if strings.Contains(html, `src="/static/js/page.js"`) || strings.Contains(html, `src="/static/vendor/katex/katex.min.js"`) || strings.Contains(html, `href="/static/css/unroll.css"`) {
		t.Error("the page links a plain /static/ URL")
	}
	m := regexp.MustCompile(`<script type="importmap">(.*?)</script>`).FindStringSubmatch(html)
	if m == nil || strings.Index(html, `<script type="importmap">`) > strings.Index(html, `type="module"`) {
		t.Fatal("no import map before the module script")
	}
	var im struct{ Imports map[string]string }
	if err := json.Unmarshal([]byte(m[1]), &im); err != nil {
		t.Fatal(err)
	}
	for p, a := range set.plain {
		if strings.HasPrefix(p, "js/") && im.Imports["/static/"+p] != a.url {
			t.Errorf("the import map sends /static/%s to %q, want %q", p, im.Imports["/static/"+p], a.url)
		}
	}
	preloads := strings.Count(html, `rel="modulepreload"`)
	if preloads < 10 || strings.Contains(html, `modulepreload" href="`+set.plain["js/exports.js"].url) || !strings.Contains(html, `modulepreload" href="`+set.plain["js/draw.js"].url) {
		t.Errorf("%d module preloads; want page.js's static imports (draw.js), not exports.js", preloads)
	}
	again, _ := rawFetch(t, "GET", ts.URL+"/lessons/tiny", http.Header{"Accept-Encoding": {"br"}, "If-None-Match": {resp.Header.Get("ETag")}})
	if again.StatusCode != http.StatusNotModified {
		t.Errorf("the page revalidated: got %d, want 304", again.StatusCode)
	}
}

// TestAssetsImports: each module's static imports, directly or not, by hashed URL and
// the module first: page.js's are the page's preloads, and a panel kind's come with it
// (ngrams.js brings edits.js, which it draws the bleu lesson's last step with).
func TestAssetsImports(t *testing.T) {
	set, err := loadAssets()
	if err != nil {
		t.Fatal(err)
	}
	page := set.page
	if !slices.Equal(page.Preload, page.Imports["js/page.js"]) {
		t.Errorf("the preloads are not page.js's imports")
	}
	got := page.Imports["js/panels/ngrams.js"]
	for _, p := range []string{"js/panels/ngrams.js", "js/panels/edits.js", "js/panels/common.js", "js/colors.js", "js/dom.js"} {
		if !slices.Contains(got, set.plain[p].url) {
			t.Errorf("ngrams.js's imports %q lack %s", got, p)
		}
	}
	if len(got) == 0 || got[0] != set.plain["js/panels/ngrams.js"].url || slices.Contains(got, set.plain["js/page.js"].url) {
		t.Errorf("ngrams.js's imports %q: want ngrams.js first, and not page.js", got)
	}
}

// TestCompressResponses: HTML and JSON are compressed as the request asks; a short body,
// a HEAD, an image and a request that accepts nothing are not; a websocket upgrades
// through the wrapper.
func TestCompressResponses(t *testing.T) {
	_, ts := newLessonServer(t)
	for _, tc := range []struct {
		name, method, path, accept, enc string
	}{
		{"page in brotli", "GET", "/lessons/tiny", "br", "br"},
		{"page in gzip", "GET", "/lessons/tiny", "gzip", "gzip"},
		{"page plain", "GET", "/lessons/tiny", "", ""},
		{"page HEAD", "HEAD", "/lessons/tiny", "br", ""},
		{"short JSON stays plain", "GET", "/api/v1/version", "br", ""},
		{"a short 404 stays plain", "GET", "/nope", "br", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := rawFetch(t, tc.method, ts.URL+tc.path, http.Header{"Accept-Encoding": {tc.accept}})
			if got := resp.Header.Get("Content-Encoding"); got != tc.enc {
				t.Fatalf("Content-Encoding %q, want %q", got, tc.enc)
			}
			if tc.method == "GET" && resp.StatusCode == 200 && len(decoded(t, tc.enc, body)) == 0 {
				t.Error("an empty body")
			}
		})
	}
	// A websocket upgrade with Accept-Encoding still hijacks its connection.
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/lessons/tiny/ws"
	c, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {ts.URL}, "Accept-Encoding": {"br, gzip"}})
	if err != nil {
		t.Fatalf("websocket through the compressor: %v", err)
	}
	c.SetReadDeadline(time.Now().Add(browserWait))
	if _, _, err := c.ReadMessage(); err != nil {
		t.Errorf("no first message: %v", err)
	}
	c.Close()
}

// TestCompressWriter: the wrapper on its own: a long body is compressed and decodes to
// what was written; a flush sends what is written so far, decodable before the end;
// a 304, a PNG and a body already compressed go as they are.
func TestCompressWriter(t *testing.T) {
	long := strings.Repeat("<p>the hidden state h_t carries the past</p>\n", 200)
	serve := func(h http.HandlerFunc, accept string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/x", nil)
		r.Header.Set("Accept-Encoding", accept)
		w := httptest.NewRecorder()
		cw, finish := compressResponse(w, r)
		h(cw, r)
		finish()
		return w
	}
	w := serve(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(long)))
		io.WriteString(w, long)
	}, "gzip")
	if w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Content-Length") != "" || string(decoded(t, "gzip", w.Body.Bytes())) != long {
		t.Errorf("a long page: encoding %q, Content-Length %q", w.Header().Get("Content-Encoding"), w.Header().Get("Content-Length"))
	}
	// streaming: after a flush the client can read the first part already
	r := httptest.NewRequest("GET", "/x", nil)
	r.Header.Set("Accept-Encoding", "br")
	rec := httptest.NewRecorder()
	cw, finish := compressResponse(rec, r)
	cw.Header().Set("Content-Type", "text/plain")
	io.WriteString(cw, "first part\n")
	http.NewResponseController(cw).Flush()
	if !rec.Flushed || rec.Header().Get("Content-Encoding") != "br" {
		t.Fatalf("a flush: flushed %v, encoding %q", rec.Flushed, rec.Header().Get("Content-Encoding"))
	}
	part := make([]byte, 64)
	n, _ := brotli.NewReader(bytes.NewReader(rec.Body.Bytes())).Read(part)
	if string(part[:n]) != "first part\n" {
		t.Errorf("after a flush the client reads %q, want the first part", part[:n])
	}
	io.WriteString(cw, "second part\n")
	finish()
	if got := string(decoded(t, "br", rec.Body.Bytes())); got != "first part\nsecond part\n" {
		t.Errorf("the stream decodes to %q", got)
	}
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
		code int
	}{
		{"304", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotModified)
		}, 304},
		{"png", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			io.WriteString(w, long)
		}, 200},
		{"already gzip", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/css")
			w.Header().Set("Content-Encoding", "gzip")
			io.WriteString(w, long)
		}, 200},
	} {
		w := serve(tc.h, "br")
		if w.Code != tc.code || (tc.name != "already gzip" && w.Header().Get("Content-Encoding") != "") || (tc.code == 200 && w.Body.String() != long) {
			t.Errorf("%s: got %d, encoding %q, %d bytes", tc.name, w.Code, w.Header().Get("Content-Encoding"), w.Body.Len())
		}
	}
}
