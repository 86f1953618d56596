package web

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"unroll/internal/machine"
	"unroll/lessons"
)

// A crowded lecture hall's Wi-Fi, as issue 22 measures it: a phone that waits
// 150 ms for every answer, shares 1.6 Mbit/s down and 750 kbit/s up, and runs
// JavaScript 4× slower than the test machine.
const (
	hallLatencyMs  = 150           // round trip of a crowded hall's access point
	hallDownBytes  = 1_600_000 / 8 // 1.6 Mbit/s down, in bytes per second
	hallUpBytes    = 750_000 / 8   // 750 kbit/s up
	hallCPUSlowing = 4             // a mid-range phone against the test machine

	// coldLiveTarget is issue 22's target for a cold page (empty cache, fresh browser
	// context) to be live: its status says live and the stage's first frame is drawn.
	// Not met yet (2.6–3.5 s measured, docs/measurements.md): the test logs each page
	// over it.
	coldLiveTarget = 2500 * time.Millisecond
	// coldLiveWithin is what the test holds a cold page to meanwhile: the slowest
	// lesson measured on an idle 2-core machine (3.5 s) with room for a busy one.
	coldLiveWithin = 4500 * time.Millisecond
	// coldBytes is what a cold page may move: HTTP bodies and headers as encoded on
	// the wire, and the socket's frames until it is live.
	coldBytes = 300_000
	// nextBytes is what the next lesson in the same browser may move: its HTML and
	// its socket, every asset coming from the cache.
	nextBytes = 80_000
	// raceLiveWithin is the cold page's time limit under -race: the race detector
	// slows the server's Go 5–10× (snapshot encoding, the first step), which is not
	// the phone's network; the test still fails a page that hangs or waterfalls.
	raceLiveWithin = 3 * coldLiveWithin
)

// liveProbeJS runs in every document before its scripts: it records (in
// window.__unrollLive, milliseconds since navigation started) the moment the page
// says both that its connection is live (the status line's data-state) and that the
// stage's first frame is drawn (body's data-stream), from the page's own attributes.
const liveProbeJS = `(() => {
  const check = () => {
    if (window.__unrollLive) return;
    const conn = document.querySelector('[data-testid=conn]');
    if (document.body?.dataset.stream === "live" && conn?.dataset.state === "live") window.__unrollLive = performance.now();
  };
  new MutationObserver(check).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-stream", "data-state"]});
})()`

// settledJS is true once the page is live, has loaded what it defers (body's
// data-deferred) and has rendered all its maths (body's data-math, whose fonts come
// with it); a page without these attributes defers nothing.
const settledJS = `window.__unrollLive > 0 && [document.body.dataset.deferred, document.body.dataset.math].every((s) => s === undefined || s === "loaded" || s === "rendered")`

// emulateNetworkConditions is Network.emulateNetworkConditions, which cdproto no
// longer generates (it offers the per-URL rules instead); Chromium still runs it.
var emulateNetworkConditions = cdp.Command[emulateNetworkParams, cdp.Empty]{Method: "Network.emulateNetworkConditions"}

type emulateNetworkParams struct {
	Offline            bool    `json:"offline"`
	Latency            float64 `json:"latency"`
	DownloadThroughput float64 `json:"downloadThroughput"`
	UploadThroughput   float64 `json:"uploadThroughput"`
}

// wire counts what a tab moves over the network: each finished request's encoded
// length (headers and body as they came over the wire) and each websocket frame
// received, with the monotonic time of the document's request.
type wire struct {
	mu       sync.Mutex
	urls     map[network.RequestID]string
	inflight map[network.RequestID]bool
	http     map[string]float64 // by URL
	frames   []wsFrame
	sockets  int     // websockets opened since the last reset
	docStart float64 // the monotonic time (s) of the last document request
	idle     chan struct{}
}

type wsFrame struct {
	at    float64 // monotonic seconds
	bytes int
}

func newWire() *wire {
	return &wire{urls: map[network.RequestID]string{}, inflight: map[network.RequestID]bool{}, http: map[string]float64{}, idle: make(chan struct{}, 1)}
}

// reset starts a new count (for the next page of the same tab).
func (w *wire) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.http, w.frames, w.sockets = map[string]float64{}, nil, 0
}

func (w *wire) on(ev any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		w.urls[e.RequestID], w.inflight[e.RequestID] = e.Request.URL, true
		if e.Type == network.ResourceTypeDocument {
			w.docStart = e.Timestamp.Float64()
		}
	case *network.EventLoadingFinished:
		w.http[w.urls[e.RequestID]] += e.EncodedDataLength
		w.done(e.RequestID)
	case *network.EventLoadingFailed:
		w.done(e.RequestID)
	case *network.EventWebSocketCreated:
		w.sockets++
	case *network.EventWebSocketFrameReceived:
		w.frames = append(w.frames, wsFrame{at: e.Timestamp.Float64(), bytes: len(e.Response.PayloadData)})
	}
}

func (w *wire) done(id network.RequestID) {
	delete(w.inflight, id)
	if len(w.inflight) == 0 {
		select {
		case w.idle <- struct{}{}:
		default:
		}
	}
}

// waitIdle waits until no request is in flight (a signal from the events, not a
// sleep), or fails after wait.
func (w *wire) waitIdle(t *testing.T, wait time.Duration) {
	t.Helper()
	deadline := time.After(wait)
	for {
		w.mu.Lock()
		n := len(w.inflight)
		w.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-w.idle:
		case <-deadline:
			t.Fatalf("%d requests still in flight after %v", n, wait)
		}
	}
}

// count is the HTTP bytes so far and the socket's bytes received until liveMs after
// the document's request (the frames that made the page live).
func (w *wire) count(liveMs float64) (httpBytes, wsBytes int, largest string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var sum, most float64
	for u, n := range w.http {
		sum += n
		if n > most {
			most, largest = n, fmt.Sprintf("%s %.0f B", u, n)
		}
	}
	for _, f := range w.frames {
		if f.at <= w.docStart+liveMs/1000 {
			wsBytes += f.bytes
		}
	}
	return int(sum), wsBytes, largest
}

// TestBrowserNetworkBudget loads every lesson of the catalog on an emulated phone on
// a crowded hall's Wi-Fi (hallLatencyMs, hallDownBytes, hallUpBytes, hallCPUSlowing),
// cold in a fresh browser context, and then the next lesson of the catalog in the
// same browser: the cold page must be live within coldLiveWithin (raceLiveWithin
// under -race) moving at most coldBytes, and the next lesson move at most nextBytes.
// UNROLL_NETWORK_REPORT=FILE appends one line per lesson to FILE (the table of
// docs/measurements.md).
func TestBrowserNetworkBudget(t *testing.T) {
	machine.SkipIfEmulated(t, "times pages on an emulated network")
	root := startBrowser(t)
	srv := browserServer(t)
	catalog := lessons.Catalog()
	base := coldLiveWithin
	if raceEnabled {
		base = raceLiveWithin
	}
	// The emulated phone is 4× slower than this machine; on a busy machine more so.
	slow := machineSlowdown(t, root)
	limit := time.Duration(float64(base) * slow)
	t.Logf("a cold page must be live within %v: %v × %.1f, how much slower this machine runs now than idle", limit, base, slow)
	var report []string
	for i, l := range catalog {
		next := catalog[(i+1)%len(catalog)]
		if !walked(l.Slug) {
			continue
		}
		t.Run(l.Slug, func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(root, chromedp.WithNewBrowserContext()) // a cold cache
			defer cancel()
			w := newWire()
			if err := chromedp.Listen(ctx, w.on); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Call(ctx, emulateNetworkConditions, emulateNetworkParams{Latency: hallLatencyMs, DownloadThroughput: hallDownBytes, UploadThroughput: hallUpBytes}); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Call(ctx, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: hallCPUSlowing}); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: liveProbeJS}); err != nil {
				t.Fatal(err)
			}
			load := func(slug string) (ms float64, httpBytes, wsBytes int, largest string) {
				t.Helper()
				w.reset()
				if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/lessons/"+slug)); err != nil {
					t.Fatalf("loading %s: %v", slug, err)
				}
				waitForJSWithin(t, ctx, 4*browserWait, slug+" live and its deferred modules loaded", settledJS)
				w.waitIdle(t, browserWait)
				ms = evalJS[float64](t, ctx, `window.__unrollLive`)
				httpBytes, wsBytes, largest = w.count(ms)
				w.mu.Lock()
				sockets := w.sockets
				w.mu.Unlock()
				if sockets != 1 { // a page loads with one socket: no second one, no reconnect
					t.Errorf("%s opened %d websockets, want 1", slug, sockets)
				}
				return ms, httpBytes, wsBytes, largest
			}
			ms, hb, wb, largest := load(l.Slug)
			nms, nhb, nwb, nlargest := load(next.Slug)
			t.Logf("cold %s: live in %.0f ms, %d B (HTTP %d, socket %d; largest %s); next (%s): live in %.0f ms, %d B (HTTP %d, socket %d; largest %s)",
				l.Slug, ms, hb+wb, hb, wb, largest, next.Slug, nms, nhb+nwb, nhb, nwb, nlargest)
			report = append(report, fmt.Sprintf("| %s | %.2f | %.1f | %.1f | %s | %.1f |", l.Slug, ms/1000, float64(hb+wb)/1000, float64(wb)/1000, next.Slug, float64(nhb+nwb)/1000))
			if time.Duration(ms*float64(time.Millisecond)) > coldLiveTarget {
				t.Logf("cold %s live after %.0f ms: over issue 22's target of %v", l.Slug, ms, coldLiveTarget)
			}
			if time.Duration(ms*float64(time.Millisecond)) > limit {
				t.Errorf("cold %s live after %.0f ms, want within %v", l.Slug, ms, limit)
			}
			if hb+wb > coldBytes {
				t.Errorf("cold %s moved %d B, want at most %d", l.Slug, hb+wb, coldBytes)
			}
			if nhb+nwb > nextBytes {
				t.Errorf("the next lesson (%s) moved %d B, want at most %d", next.Slug, nhb+nwb, nextBytes)
			}
		})
	}
	if f := os.Getenv("UNROLL_NETWORK_REPORT"); f != "" {
		if err := os.WriteFile(f, []byte(strings.Join(report, "\n")+"\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
}
