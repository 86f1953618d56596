package data

import "os"

// emulatedEnv is set to 1 by CI when it runs the test binaries under emulation
// (qemu-aarch64 for linux/arm64), which is about 5× slower than real hardware
// (lessons/machine_test.go has the rules for the machine a test runs on).
const emulatedEnv = "UNROLL_EMULATED"

// emulated reports whether the tests run under emulation (emulatedEnv=1).
func emulated() bool { return os.Getenv(emulatedEnv) == "1" }
