// Checks watchcat's transparency log with Go's own tlog and note packages (golang.org/x/mod/sumdb), an
// implementation watchcat did not write. Reads one JSON request on stdin, writes one JSON answer on stdout.
//
// Go builds its own tree from the entries (tlog.StoredHashes), gives its roots and proofs for comparison, checks
// our proofs against its roots (tlog.CheckRecord, tlog.CheckTree) and opens our signed checkpoints (note.Open).
// Given a running service's URL, it also reads the hash tiles that service serves, as a client of the log does
// (tlog.TileHashReader, which checks every tile against the signed tree before using a hash of it).
package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type inclusion struct {
	Index int64    `json:"index"`
	Size  int64    `json:"size"`
	Proof []string `json:"proof"`
}

type consistency struct {
	From  int64    `json:"from"`
	To    int64    `json:"to"`
	Proof []string `json:"proof"`
}

type tile struct {
	Level int    `json:"level"`
	Index int64  `json:"index"`
	Width int    `json:"width"`
	Data  string `json:"data"`
}

type tileAnswer struct {
	Path   string `json:"path"`
	GoData string `json:"go_data"`
	Error  string `json:"error"`
}

type request struct {
	// A text for Go to sign with a key of its own, so that we can open Go's notes too.
	SignText    string        `json:"sign_text"`
	Tiles       []tile        `json:"tiles"`
	Entries     []string      `json:"entries"`
	Inclusion   []inclusion   `json:"inclusion"`
	Consistency []consistency `json:"consistency"`
	Notes       []string      `json:"notes"`
	VerifierKey string        `json:"verifier_key"`
	// Notes to open each with a key of its own (a co-signed note with each of its signers' keys).
	KeyedNotes []keyedNote `json:"keyed_notes"`
	// Signer keys (note.NewSigner's format) for Go to sign sign_text with, in this order.
	SignKeys []string `json:"sign_keys"`
	// A service whose tiles Go reads over HTTP, for the tree a checkpoint signed.
	Served *served `json:"served"`
}

// served names a running log: its base URL (tiles under /transparency/tile/), the signed tree, and the leaves to prove.
type served struct {
	URL     string  `json:"url"`
	Size    int64   `json:"size"`
	Root    string  `json:"root"`
	Indexes []int64 `json:"indexes"`
}

// servedAnswer is what Go made of the served tiles: the tree hash and a proof of each leaf, read through them, and
// the paths of the tiles it fetched; error says why it could not (a tile missing, or not of the signed tree).
type servedAnswer struct {
	Error  string     `json:"error"`
	Root   string     `json:"root"`
	Proofs [][]string `json:"proofs"`
	Paths  []string   `json:"paths"`
}

// httpTiles is a tlog.TileReader over a service's C2SP tlog-tiles paths (Go's own paths name the height: tile/8/).
type httpTiles struct {
	url   string
	paths []string
}

func (h *httpTiles) Height() int { return 8 }

func (h *httpTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	data := make([][]byte, len(tiles))
	for i, t := range tiles {
		path := strings.Replace(t.Path(), "tile/8/", "tile/", 1)
		h.paths = append(h.paths, path)
		response, err := http.Get(h.url + "/transparency/" + path)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(response.Body)
		response.Body.Close()
		if err != nil {
			return nil, err
		}
		if response.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: %d", path, response.StatusCode)
		}
		data[i] = body
	}
	return data, nil
}

func (h *httpTiles) SaveTiles(tiles []tlog.Tile, data [][]byte) {}

// readServed proves each leaf of the served tree through the tiles the service serves, checked by tlog.TileHashReader.
func readServed(s served) servedAnswer {
	root, err := tlog.ParseHash(s.Root)
	if err != nil {
		return servedAnswer{Error: "root: " + err.Error()}
	}
	tiles := &httpTiles{url: s.URL}
	reader := tlog.TileHashReader(tlog.Tree{N: s.Size, Hash: root}, tiles)
	answer := servedAnswer{Proofs: [][]string{}}
	th, err := tlog.TreeHash(s.Size, reader)
	if err != nil {
		return servedAnswer{Error: err.Error(), Paths: tiles.paths}
	}
	answer.Root = th.String()
	for _, index := range s.Indexes {
		proof, err := tlog.ProveRecord(s.Size, index, reader)
		if err != nil {
			return servedAnswer{Error: err.Error(), Paths: tiles.paths}
		}
		answer.Proofs = append(answer.Proofs, texts(proof))
	}
	answer.Paths = tiles.paths
	return answer
}

type keyedNote struct {
	Note        string `json:"note"`
	VerifierKey string `json:"verifier_key"`
}

type checked struct {
	Error   string   `json:"error"`
	GoProof []string `json:"go_proof"`
}

type opened struct {
	Error  string `json:"error"`
	Origin string `json:"origin"`
	Size   int64  `json:"size"`
	Root   string `json:"root"`
	// Signatures note.Open verified, and the ones it could not (by keys it was not given).
	Verified   int `json:"verified"`
	Unverified int `json:"unverified"`
	// Whether the checkpoint's root is the root Go computes for its size.
	RootMatches bool `json:"root_matches"`
}

type answer struct {
	Roots       []string     `json:"roots"`
	Inclusion   []checked    `json:"inclusion"`
	Consistency []checked    `json:"consistency"`
	Notes       []opened     `json:"notes"`
	Tiles       []tileAnswer `json:"tiles"`
	GoNote      string       `json:"go_note"`
	GoKey       string       `json:"go_verifier_key"`
	KeyedNotes  []opened     `json:"keyed_notes"`
	// sign_text signed by Go with sign_keys.
	GoSigned string        `json:"go_signed"`
	Served   *servedAnswer `json:"served"`
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func proofOf(texts []string) []tlog.Hash {
	hashes := make([]tlog.Hash, len(texts))
	for i, text := range texts {
		h, err := tlog.ParseHash(text)
		must(err)
		hashes[i] = h
	}
	return hashes
}

func texts(hashes []tlog.Hash) []string {
	out := make([]string, len(hashes))
	for i, h := range hashes {
		out[i] = h.String()
	}
	return out
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func main() {
	var req request
	must(json.NewDecoder(os.Stdin).Decode(&req))

	var stored []tlog.Hash
	reader := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, index := range indexes {
			out[i] = stored[index]
		}
		return out, nil
	})
	roots := []tlog.Hash{}
	for n, text := range req.Entries {
		entry, err := base64.StdEncoding.DecodeString(text)
		must(err)
		hashes, err := tlog.StoredHashes(int64(n), entry, reader)
		must(err)
		stored = append(stored, hashes...)
		root, err := tlog.TreeHash(int64(n+1), reader)
		must(err)
		roots = append(roots, root)
	}
	rootOf := func(size int64) tlog.Hash { return roots[size-1] }

	out := answer{Roots: texts(roots), Inclusion: []checked{}, Consistency: []checked{}, Notes: []opened{}, Tiles: []tileAnswer{}, KeyedNotes: []opened{}}
	for _, t := range req.Tiles {
		// Go writes the tile height into its paths (tile/8/L/N); C2SP tlog-tiles leaves it out.
		goTile := tlog.Tile{H: 8, L: t.Level, N: t.Index, W: t.Width}
		answer := tileAnswer{Path: goTile.Path()}
		if t.Data != "" {
			data, err := tlog.ReadTileData(goTile, reader)
			answer.GoData = base64.StdEncoding.EncodeToString(data)
			answer.Error = errorText(err)
		}
		out.Tiles = append(out.Tiles, answer)
	}
	for _, p := range req.Inclusion {
		entry, err := base64.StdEncoding.DecodeString(req.Entries[p.Index])
		must(err)
		goProof, err := tlog.ProveRecord(p.Size, p.Index, reader)
		must(err)
		err = tlog.CheckRecord(proofOf(p.Proof), p.Size, rootOf(p.Size), p.Index, tlog.RecordHash(entry))
		out.Inclusion = append(out.Inclusion, checked{Error: errorText(err), GoProof: texts(goProof)})
	}
	for _, p := range req.Consistency {
		goProof, err := tlog.ProveTree(p.To, p.From, reader)
		must(err)
		err = tlog.CheckTree(proofOf(p.Proof), p.To, rootOf(p.To), p.From, rootOf(p.From))
		out.Consistency = append(out.Consistency, checked{Error: errorText(err), GoProof: texts(goProof)})
	}
	for _, text := range req.Notes {
		out.Notes = append(out.Notes, open(text, req.VerifierKey, roots))
	}
	for _, k := range req.KeyedNotes {
		out.KeyedNotes = append(out.KeyedNotes, open(k.Note, k.VerifierKey, roots))
	}
	if len(req.SignKeys) > 0 {
		signers := []note.Signer{}
		for _, key := range req.SignKeys {
			signer, err := note.NewSigner(key)
			must(err)
			signers = append(signers, signer)
		}
		signed, err := note.Sign(&note.Note{Text: req.SignText}, signers...)
		must(err)
		out.GoSigned = string(signed)
	}
	if req.SignText != "" {
		skey, vkey, err := note.GenerateKey(rand.Reader, "go.example/watchcat/events")
		must(err)
		signer, err := note.NewSigner(skey)
		must(err)
		signed, err := note.Sign(&note.Note{Text: req.SignText}, signer)
		must(err)
		out.GoNote, out.GoKey = string(signed), vkey
	}
	if req.Served != nil {
		answer := readServed(*req.Served)
		out.Served = &answer
	}
	must(json.NewEncoder(os.Stdout).Encode(out))
}

// open checks a signed checkpoint with note.Open and reads its C2SP tlog-checkpoint body.
func open(text, key string, roots []tlog.Hash) opened {
	verifier, err := note.NewVerifier(key)
	if err != nil {
		return opened{Error: err.Error()}
	}
	n, err := note.Open([]byte(text), note.VerifierList(verifier))
	if err != nil {
		return opened{Error: err.Error()}
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		return opened{Error: "body is not origin, size, root, each ending in a newline"}
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return opened{Error: "size: " + err.Error()}
	}
	root, err := tlog.ParseHash(lines[2])
	if err != nil {
		return opened{Error: "root: " + err.Error()}
	}
	return opened{Origin: lines[0], Size: size, Root: root.String(), Verified: len(n.Sigs), Unverified: len(n.UnverifiedSigs), RootMatches: size > 0 && size <= int64(len(roots)) && roots[size-1] == root}
}
