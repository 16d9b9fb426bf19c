package codextest

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// Picture is a small PNG whose pixels depend on seed, for a test that checks
// a prompt's picture reaches the model byte for byte: two seeds never give
// the same bytes, so a swapped or re-encoded picture does not compare equal.
func Picture(t testing.TB, seed uint8) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	for i := range img.Pix {
		img.Pix[i] = seed + uint8(i*7)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// WritePicture writes Picture(seed) to path, creating its directory, and
// returns the bytes.
func WritePicture(t testing.TB, path string, seed uint8) []byte {
	t.Helper()
	b := Picture(t, seed)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}
