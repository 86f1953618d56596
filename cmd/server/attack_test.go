package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"unroll/sim"
)

// TestAttacksOnTheRealServer reruns issue 9's attacks, as a curious student would, on
// the real binary over loopback, while a bystander steps through the gru lesson. For
// each it reports the server's peak RSS above its level before the attack and the
// bystander's step latency; docs/measurements.md quotes them. It needs Linux's /proc
// and takes about a minute and a half, so it runs only when asked:
//
//	UNROLL_LOAD=1 go test ./cmd/server -run AttacksOnTheRealServer -v -count=1
func TestAttacksOnTheRealServer(t *testing.T) {
	if os.Getenv("UNROLL_LOAD") == "" {
		t.Skip("set UNROLL_LOAD=1 to measure (about a minute and a half, Linux only)")
	}
	bin := filepath.Join(t.TempDir(), "server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// start runs a fresh server for one attack, so that each figure starts from an idle
	// server's memory; it returns the server's URL and its /proc folder.
	var base, proc string
	start := func() (stop func()) {
		cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		urls := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(stderr)
			re := regexp.MustCompile(`url=(http://\S+)`)
			for sc.Scan() {
				if m := re.FindStringSubmatch(sc.Text()); m != nil {
					urls <- m[1]
				}
			}
		}()
		base = strings.TrimSuffix(<-urls, "/")
		proc = fmt.Sprintf("/proc/%d/", cmd.Process.Pid)
		return func() { cmd.Process.Kill(); cmd.Wait() }
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: the figures need Linux")
	}
	// rss reads a field of the server's /proc status in MiB.
	rss := func(field string) float64 {
		b, _ := os.ReadFile(proc + "status")
		m := regexp.MustCompile(field + `:\s+(\d+) kB`).FindSubmatch(b)
		kb, _ := strconv.Atoi(string(m[1]))
		return float64(kb) / 1024
	}

	// The bystander: a gru page stepping every 20 ms for as long as an attack lasts.
	bystander := func(stop <-chan struct{}) <-chan []time.Duration {
		out := make(chan []time.Duration, 1)
		c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/lessons/gru/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		c.ReadMessage()
		go func() {
			defer c.Close()
			var lat []time.Duration
			for first := true; ; first = false {
				if !first {
					select {
					case <-stop:
						out <- lat
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
				began := time.Now()
				cmd, _ := json.Marshal(sim.Command{Type: sim.StepCommand})
				c.WriteMessage(websocket.TextMessage, cmd)
				c.SetReadDeadline(time.Now().Add(30 * time.Second))
				if _, _, err := c.ReadMessage(); err != nil {
					out <- append(lat, 30*time.Second)
					return
				}
				lat = append(lat, time.Since(began))
			}
		}()
		return out
	}
	post := func(ctx context.Context, path string, body io.Reader) (int, int, time.Duration) {
		ctx, cancel := context.WithTimeout(ctx, time.Minute) // the old server never answered some
		defer cancel()
		began := time.Now()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+path, body)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, 0, time.Since(began)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, int(n), time.Since(began)
	}
	bleu := func(cand string, refs []string) []byte {
		b, _ := json.Marshal(map[string]any{"candidate": cand, "references": refs, "max_n": 8})
		return b
	}
	copies := make([]string, 2000)
	for i := range copies {
		copies[i] = strings.Repeat("a ", 400)
	}
	malformed := append([]byte(`{"kind":"lstm","x":[`), bytes.Repeat([]byte("[0],"), 5<<20)...) // 20 MiB, never closed

	attacks := []struct {
		name string
		run  func() string
	}{
		{"BLEU, 1 MB of \"a \" with max_n 8", func() string {
			code, n, took := post(context.Background(), "/api/v1/bleu", bytes.NewReader(bleu(strings.Repeat("a ", 500_000), []string{"a"})))
			return fmt.Sprintf("%d, %d B in %v", code, n, took.Round(time.Millisecond))
		}},
		{"BLEU, 3.6 MB", func() string {
			code, n, took := post(context.Background(), "/api/v1/bleu", bytes.NewReader(bleu(strings.Repeat("a ", 1_800_000), []string{strings.Repeat("a ", 100)})))
			return fmt.Sprintf("%d, %d B in %v", code, n, took.Round(time.Millisecond))
		}},
		{"BLEU, 400 words against 2,000 copies", func() string {
			code, n, took := post(context.Background(), "/api/v1/bleu", bytes.NewReader(bleu(strings.Repeat("a ", 400), copies)))
			return fmt.Sprintf("%d, %d B in %v", code, n, took.Round(time.Millisecond))
		}},
		{"/cell, four parallel 20 MiB malformed bodies", func() string {
			var wg sync.WaitGroup
			res := make([]string, 4)
			for i := range 4 {
				wg.Go(func() {
					code, _, took := post(context.Background(), "/api/v1/cell", bytes.NewReader(malformed))
					res[i] = fmt.Sprintf("%d in %v", code, took.Round(time.Millisecond))
				})
			}
			wg.Wait()
			return strings.Join(res, ", ")
		}},
		{"two abandoned exports of a long training, then a tiny /cell", func() string {
			var wg sync.WaitGroup
			for range 2 {
				wg.Go(func() {
					ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
					defer cancel()
					req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/lessons/seq2seq/plots/step-loss.svg?trained=1000", nil)
					if resp, err := http.DefaultClient.Do(req); err == nil {
						resp.Body.Close()
					}
				})
			}
			wg.Wait()
			code, _, took := post(context.Background(), "/api/v1/cell", strings.NewReader(`{"kind":"rnn","params":{"W_xh":[[1]],"W_hh":[[0.5]],"b_h":[0]},"x":[[1]]}`))
			return fmt.Sprintf("the /cell after them: %d in %v", code, took.Round(time.Millisecond))
		}},
		{"64 pages press Train on seq2seq (15 s)", func() string {
			var wg sync.WaitGroup
			stop := time.Now().Add(15 * time.Second)
			gaps := make([]time.Duration, 64)
			for i := range 64 {
				c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/lessons/seq2seq/ws", nil)
				if err != nil {
					t.Fatal(err)
				}
				c.ReadMessage()
				cmd, _ := json.Marshal(sim.Command{Type: sim.TrainCommand, Steps: 200})
				c.WriteMessage(websocket.TextMessage, cmd)
				wg.Go(func() {
					defer c.Close()
					last := time.Now()
					for {
						c.SetReadDeadline(stop)
						_, data, err := c.ReadMessage()
						if err != nil {
							break
						}
						if m, err := sim.DecodeMessage(data); err == nil && m.Header.Type == sim.TrainMessage {
							gaps[i] = max(gaps[i], time.Since(last))
							last = time.Now()
						}
					}
					gaps[i] = max(gaps[i], time.Since(last))
				})
			}
			wg.Wait()
			slices.Sort(gaps)
			return fmt.Sprintf("longest wait between two progress messages: median %v, worst %v", gaps[32].Round(time.Millisecond), gaps[63].Round(time.Millisecond))
		}},
		{"1,000 idle seq2seq sockets", func() string {
			var conns []*websocket.Conn
			refused := 0
			for range 1000 {
				c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/lessons/seq2seq/ws", nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, _, err := c.ReadMessage(); err != nil {
					refused++
				}
				conns = append(conns, c)
			}
			time.Sleep(time.Second)
			s := fmt.Sprintf("%d refused; RSS now %.0f MiB", refused, rss("VmRSS"))
			for _, c := range conns {
				c.Close()
			}
			return s
		}},
	}
	for _, a := range attacks {
		kill := start()
		time.Sleep(500 * time.Millisecond)
		before := rss("VmRSS")
		stop := make(chan struct{})
		lat := bystander(stop)
		result := a.run()
		close(stop)
		l := <-lat
		slices.Sort(l)
		peak := rss("VmHWM")
		kill()
		p := func(q int) time.Duration { return l[min(len(l)-1, len(l)*q/100)].Round(10 * time.Microsecond) }
		t.Logf("%s: %s\n\tpeak RSS %.0f MiB (+%.0f MiB over %.0f); bystander's steps p50 %v p99 %v max %v (%d steps)",
			a.name, result, peak, peak-before, before, p(50), p(99), l[len(l)-1].Round(10*time.Microsecond), len(l))
	}
}
