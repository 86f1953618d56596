// Command release builds Unroll's server for the machines instructors bring — macOS on
// Apple silicon and Intel, Windows, Linux on x86-64 and ARM — with the version and commit
// stamped in, each packed in a zip to download, and writes the zips' SHA-256 sums:
//
//	go run ./cmd/release -version v1.2.3   # dist/unroll-v1.2.3-darwin-arm64.zip (holding
//	                                       # unroll-v1.2.3-darwin-arm64/unroll), …, dist/SHA256SUMS
//	go run ./cmd/release -dry-run          # the same into a temporary folder, checked, then removed
//
// Each binary is built with CGO_ENABLED=0 and -trimpath, so it needs nothing on the
// machine it runs on. The version defaults to `git describe --tags --always`; the
// commit is `git rev-parse --short HEAD`, with "-dirty" when tracked files have changes.
// Then it checks that each file is an executable for its system and processor, that
// each zip holds it, that SHA256SUMS matches the zips, and starts every binary this
// machine can run (its own, and linux/arm64 under qemu-aarch64): -version, then a server
// that must answer and stop on an interrupt.
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// target is a system and processor the release has a binary for.
type target struct{ goos, goarch string }

// targets are the five builds of a release, the most common instructor's laptop first.
var targets = []target{
	{"darwin", "arm64"},  // Mac with Apple silicon
	{"darwin", "amd64"},  // Mac with an Intel processor
	{"windows", "amd64"}, // Windows on x86-64 (and on ARM, emulated)
	{"linux", "amd64"},
	{"linux", "arm64"},
}

func (t target) String() string { return t.goos + "/" + t.goarch }

// path is where the target's binary goes in the output folder, e.g.
// unroll-v1.2.3-darwin-arm64/unroll.
func (t target) path(version string) string {
	name := "unroll"
	if t.goos == "windows" {
		name += ".exe"
	}
	return filepath.Join("unroll-"+version+"-"+t.goos+"-"+t.goarch, name)
}

// archive is the file an instructor downloads for t: a zip of t.path's folder, e.g.
// unroll-v1.2.3-darwin-arm64.zip. A zip keeps the binary's executable mode (macOS's
// Archive Utility and unzip restore it) and opens with a double-click on every system.
func (t target) archive(version string) string {
	return "unroll-" + version + "-" + t.goos + "-" + t.goarch + ".zip"
}

// sumsFile lists each archive's SHA-256 in sha256sum's format.
const sumsFile = "SHA256SUMS"

// versionPattern keeps the version usable in a folder name and in -ldflags -X.
var versionPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

func main() {
	out := flag.String("out", "dist", "folder to write the zips (and the binaries they hold) and "+sumsFile+" to")
	version := flag.String("version", "", "the release's version, e.g. v1.2.3 (default: git describe --tags --always)")
	dryRun := flag.Bool("dry-run", false, "build into a temporary folder, check every binary and zip, start the binaries this machine can run, and remove it")
	flag.Parse()
	if err := run(*out, *version, *dryRun, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// run builds and packs every target into out (a temporary folder when dryRun), writes
// SHA256SUMS, prints one line per target (its system, zip, size and sum), checks the
// binaries, the zips and the sums, and starts each binary this machine can run.
func run(out, version string, dryRun bool, w io.Writer) error {
	commit, err := gitCommit()
	if err != nil {
		return err
	}
	if version == "" {
		version = commit
		if v, err := git("describe", "--tags", "--always"); err == nil {
			version = v
		}
	}
	if !versionPattern.MatchString(version) {
		return fmt.Errorf("version %q: use letters, digits and . _ + - only, e.g. v1.2.3", version)
	}
	if dryRun {
		if out, err = os.MkdirTemp("", "unroll-release-"); err != nil {
			return err
		}
		defer os.RemoveAll(out)
	}
	var sums strings.Builder
	for _, t := range targets {
		if err := build(out, t, version, commit); err != nil {
			return err
		}
		if err := pack(out, t, version); err != nil {
			return err
		}
		sum, size, err := hashFile(filepath.Join(out, t.archive(version)))
		if err != nil {
			return err
		}
		fmt.Fprintf(&sums, "%s  %s\n", sum, t.archive(version))
		fmt.Fprintf(w, "%-13s %-36s %5.1f MiB  %s\n", t, t.archive(version), float64(size)/(1<<20), sum)
	}
	if err := os.WriteFile(filepath.Join(out, sumsFile), []byte(sums.String()), 0o644); err != nil {
		return err
	}
	for _, t := range targets {
		if err := checkBinary(filepath.Join(out, t.path(version)), t, version, commit); err != nil {
			return err
		}
		if err := checkArchive(out, t, version); err != nil {
			return err
		}
	}
	if err := checkSums(out, len(targets)); err != nil {
		return err
	}
	started := 0
	for _, t := range targets {
		runner, ok := runnerFor(t)
		if !ok {
			fmt.Fprintf(w, "%s: format checked; not started (no %s here to run it)\n", filepath.ToSlash(t.path(version)), t)
			continue
		}
		bin := filepath.Join(out, t.path(version))
		line, err := command(runner, bin, "-version").Output()
		if err != nil {
			return fmt.Errorf("%s -version: %w", t.path(version), err)
		}
		if want := fmt.Sprintf("unroll %s (%s) %s ", version, commit, t); !strings.HasPrefix(string(line), want) {
			return fmt.Errorf("%s -version printed %q, want it to start with %q", t.path(version), line, want)
		}
		fmt.Fprintf(w, "%s -version: %s", filepath.ToSlash(t.path(version)), line)
		took, err := serveOnce(runner, bin, version)
		if err != nil {
			return fmt.Errorf("%s: %w", t.path(version), err)
		}
		via := ""
		if len(runner) > 0 {
			via = " under " + filepath.Base(runner[0])
		}
		fmt.Fprintf(w, "%s%s: served the home page and /api/v1/version after %v, stopped on an interrupt\n", filepath.ToSlash(t.path(version)), via, took.Round(time.Millisecond))
		started++
	}
	if started == 0 {
		return fmt.Errorf("no binary could be started on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	if dryRun {
		fmt.Fprintf(w, "dry run: %d archives and %s checked, then removed\n", len(targets), sumsFile)
	} else {
		fmt.Fprintf(w, "%d archives and %s checked, in %s\n", len(targets), sumsFile, out)
	}
	return nil
}

// build compiles cmd/server for t into out with the version and commit stamped in.
func build(out string, t target, version, commit string) error {
	ldflags := "-s -w -X main.version=" + version + " -X main.commit=" + commit
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags,
		"-o", filepath.Join(out, t.path(version)), "unroll/cmd/server")
	// GOAMD64=v1 and GOARM64=v8.0 whatever the builder's environment says: from v3 the
	// compiler fuses multiply-adds on amd64 too, and training would round differently
	// from the other amd64 servers (models.Fingerprint).
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.goos, "GOARCH="+t.goarch, "GOAMD64=v1", "GOARM64=v8.0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build for %s: %w\n%s", t, err, msg)
	}
	return nil
}

// gitCommit is the short hash of HEAD, with "-dirty" when tracked files have changes
// (untracked files, such as the output folder, do not count).
func gitCommit() (string, error) {
	commit, err := git("rev-parse", "--short", "HEAD")
	if err != nil {
		return "", err
	}
	changes, err := git("status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return "", err
	}
	if changes != "" {
		commit += "-dirty"
	}
	return commit, nil
}

// git runs git with args and returns its output without surrounding space.
func git(args ...string) (string, error) {
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(exit.Stderr))
		}
		return "", fmt.Errorf("git %s (run the release inside Unroll's git checkout): %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// hashFile returns the SHA-256 of a file in hex and its size in bytes.
func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// checkBinary checks that path is a non-empty executable for t's system and processor,
// built without cgo and with -trimpath, with the version and commit stamped in.
func checkBinary(path string, t target, version, commit string) error {
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		return fmt.Errorf("%s: missing or empty (%v)", path, err)
	}
	if err := checkFormat(path, t); err != nil {
		return err
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if settings["GOOS"] != t.goos || settings["GOARCH"] != t.goarch || settings["CGO_ENABLED"] != "0" || settings["-trimpath"] != "true" {
		return fmt.Errorf("%s: built with %v, want GOOS=%s GOARCH=%s CGO_ENABLED=0 -trimpath", path, settings, t.goos, t.goarch)
	}
	// -trimpath keeps -ldflags out of the build information: look for the stamped
	// strings themselves.
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !bytes.Contains(b, []byte(version)) || !bytes.Contains(b, []byte(commit)) {
		return fmt.Errorf("%s: the version %q or the commit %q is not stamped in", path, version, commit)
	}
	return nil
}

// checkFormat checks that path is an executable in t's format (Mach-O, PE or ELF)
// for t's processor; a Mac binary for Apple silicon must also carry a code signature
// (Go's linker signs it ad hoc), or macOS kills it at launch.
func checkFormat(path string, t target) error {
	wrong := func(got string) error { return fmt.Errorf("%s: %s, want an executable for %s", path, got, t) }
	switch t.goos {
	case "darwin":
		f, err := macho.Open(path)
		if err != nil {
			return wrong("not Mach-O: " + err.Error())
		}
		defer f.Close()
		cpu := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[t.goarch]
		if f.Type != macho.TypeExec || f.Cpu != cpu {
			return wrong(fmt.Sprintf("Mach-O %v for %v", f.Type, f.Cpu))
		}
		if t.goarch == "arm64" && !hasCodeSignature(f) {
			return wrong("Mach-O without a code signature")
		}
	case "windows":
		f, err := pe.Open(path)
		if err != nil {
			return wrong("not PE: " + err.Error())
		}
		defer f.Close()
		machine := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[t.goarch]
		if f.Machine != machine || f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 {
			return wrong(fmt.Sprintf("PE for machine %#x, characteristics %#x", f.Machine, f.Characteristics))
		}
	case "linux":
		f, err := elf.Open(path)
		if err != nil {
			return wrong("not ELF: " + err.Error())
		}
		defer f.Close()
		machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[t.goarch]
		if (f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN) || f.Machine != machine || f.Class != elf.ELFCLASS64 { // ET_DYN: built as PIE
			return wrong(fmt.Sprintf("ELF %v %v for %v", f.Class, f.Type, f.Machine))
		}
	default:
		return wrong("a system this script does not know")
	}
	return nil
}

// hasCodeSignature reports whether a Mach-O file has an LC_CODE_SIGNATURE load command.
func hasCodeSignature(f *macho.File) bool {
	const lcCodeSignature = 0x1d
	for _, l := range f.Loads {
		if raw := l.Raw(); len(raw) >= 4 && f.ByteOrder.Uint32(raw) == lcCodeSignature {
			return true
		}
	}
	return false
}

// checkSums reads dir's SHA256SUMS and checks that it lists want files, each with its
// sum, as `sha256sum -c` would.
func checkSums(dir string, want int) error {
	f, err := os.Open(filepath.Join(dir, sumsFile))
	if err != nil {
		return err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			return fmt.Errorf("%s line %d: %q is not `<sha256>  <file>`", sumsFile, n+1, sc.Text())
		}
		got, _, err := hashFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return fmt.Errorf("%s: %w", sumsFile, err)
		}
		if got != sum {
			return fmt.Errorf("%s: %s has sum %s, the file lists %s", sumsFile, name, got, sum)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if n != want {
		return fmt.Errorf("%s lists %d files, want %d", sumsFile, n, want)
	}
	return nil
}

// runnerFor is the command prefix that starts t's binary on this machine: none for
// this machine's own target, qemu-aarch64 (Debian's qemu-user) for linux/arm64 on other
// Linux machines; ok is false for the systems this machine cannot run.
func runnerFor(t target) (prefix []string, ok bool) {
	if t.goos == runtime.GOOS && t.goarch == runtime.GOARCH {
		return nil, true
	}
	if t == (target{"linux", "arm64"}) && runtime.GOOS == "linux" {
		if qemu, err := exec.LookPath("qemu-aarch64"); err == nil {
			return []string{qemu}, true
		}
	}
	return nil, false
}

// command runs bin with args, through runner's prefix when it has one.
func command(runner []string, bin string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, runner...), bin), args...)
	return exec.Command(argv[0], argv[1:]...)
}

// startTimeout bounds a binary's start under emulation (natively it takes about a
// second; qemu is about 5x slower) and its stop after an interrupt.
const startTimeout = 60 * time.Second

// serveOnce starts bin as a server on a free loopback port, waits for its "serving
// Unroll" log line, fetches the home page and /api/v1/version (which must name version),
// then interrupts it as Ctrl-C would and waits for a clean exit. It returns how long
// the server took to be ready.
func serveOnce(runner []string, bin, version string) (time.Duration, error) {
	cmd := command(runner, bin, "-addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	exited := make(chan error, 1)
	urls := make(chan string, 1)
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if m := servingURL.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		exited <- cmd.Wait()
	}()
	stop := func() { _ = cmd.Process.Kill(); <-exited }
	var url string
	select {
	case url = <-urls:
	case err := <-exited:
		return 0, fmt.Errorf("exited before serving (%v):\n%s", err, log.String())
	case <-time.After(startTimeout):
		stop()
		return 0, fmt.Errorf("not serving after %v:\n%s", startTimeout, log.String())
	}
	took := time.Since(start)
	client := &http.Client{Timeout: startTimeout}
	for _, path := range []string{"", "api/v1/version"} {
		resp, err := client.Get(url + path)
		if err != nil {
			stop()
			return 0, fmt.Errorf("GET /%s: %w", path, err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || (path != "" && !bytes.Contains(body, []byte(`"`+version+`"`))) {
			stop()
			return 0, fmt.Errorf("GET /%s: %s %.200s", path, resp.Status, body)
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil { // not on Windows: there, the server is killed
		stop()
		return took, nil
	}
	select {
	case err := <-exited:
		if err != nil {
			return 0, fmt.Errorf("after an interrupt: %v\n%s", err, log.String())
		}
	case <-time.After(startTimeout):
		stop()
		return 0, fmt.Errorf("still running %v after an interrupt", startTimeout)
	}
	return took, nil
}

// servingURL finds the address in the server's first log line,
// `... msg="serving Unroll" ... url=http://127.0.0.1:PORT/ ...`.
var servingURL = regexp.MustCompile(`msg="serving Unroll".* url=(http://\S+/)`)

// pack writes t's archive into out: the binary at t.path, executable (0755).
func pack(out string, t target, version string) error {
	bin, err := os.ReadFile(filepath.Join(out, t.path(version)))
	if err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(out, t.archive(version)))
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	h := &zip.FileHeader{Name: filepath.ToSlash(t.path(version)), Method: zip.Deflate, Modified: time.Now()}
	h.SetMode(0o755)
	entry, err := zw.CreateHeader(h)
	if err == nil {
		_, err = entry.Write(bin)
	}
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkArchive checks that t's archive holds exactly t's binary, executable, byte for
// byte.
func checkArchive(out string, t target, version string) error {
	name := t.archive(version)
	zr, err := zip.OpenReader(filepath.Join(out, name))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer zr.Close()
	if len(zr.File) != 1 || zr.File[0].Name != filepath.ToSlash(t.path(version)) || zr.File[0].Mode()&0o111 == 0 {
		return fmt.Errorf("%s: want only %s, executable", name, filepath.ToSlash(t.path(version)))
	}
	rc, err := zr.File[0].Open()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	packed, err := io.ReadAll(rc)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	built, err := os.ReadFile(filepath.Join(out, t.path(version)))
	if err != nil {
		return err
	}
	if !bytes.Equal(packed, built) {
		return fmt.Errorf("%s: the packed binary differs from the built one", name)
	}
	return nil
}
