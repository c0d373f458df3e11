// Reads a running watchcat's transparency log as a C2SP tlog-tiles client does, with code watchcat did not write:
// filippo.io/torchwood fetches the checkpoint and the tiles from ONE base URL (the public one; the admin one, with an
// audit key, for the entry bundles), golang.org/x/mod/sumdb/note opens the checkpoints with a verifier derived from
// the log key the test gave the service, and golang.org/x/mod/sumdb/tlog and github.com/transparency-dev/merkle
// check the proofs. Reads one JSON request on stdin, writes one JSON answer on stdout; what it could not do is named
// in the answer's errors, never hidden.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	"filippo.io/torchwood"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type request struct {
	// The log's base URL on the public port (checkpoint and hash tiles) and on the admin port (entries too).
	PublicBase string `json:"public_base"`
	AdminBase  string `json:"admin_base"`
	AuditKey   string `json:"audit_key"`
	// Where the public inclusion and consistency proofs are (`<proofs>/inclusion`, `<proofs>/consistency`).
	Proofs string `json:"proofs"`
	// The log key as note.NewSigner reads it: the verifier is derived from it, not taken from the service.
	SignerKey string `json:"signer_key"`
	// A checkpoint kept before the last append, and that append's event-store position.
	Earlier  string `json:"earlier"`
	Position int64  `json:"position"`
	// Leaves proved through the public tiles and by the public inclusion endpoint.
	Indexes []int64 `json:"indexes"`
}

// opened is a checkpoint note.Open verified, as torchwood.ParseCheckpoint read its text.
type opened struct {
	Error  string `json:"error"`
	Text   string `json:"text"`
	Origin string `json:"origin"`
	Size   int64  `json:"size"`
	Root   string `json:"root"`
}

// proved is a proof the service served for a leaf or between two trees, and what each library made of it.
type proved struct {
	Index    int64    `json:"index"`
	LeafHash string   `json:"leaf_hash"`
	Served   []string `json:"served"`
	// The proof tlog.ProveRecord reads from the public tiles (inclusion only).
	FromTiles []string `json:"from_tiles"`
	Merkle    string   `json:"merkle"`
	Tlog      string   `json:"tlog"`
	Error     string   `json:"error"`
}

type answer struct {
	Public  opened `json:"public"`
	Admin   opened `json:"admin"`
	Earlier opened `json:"earlier"`
	// The tree hash tlog reads through the public tiles, each tile checked against the checkpoint first.
	TileRoot  string `json:"tile_root"`
	TileError string `json:"tile_error"`
	// Every entry of the checkpoint's tree, read by torchwood's client from the admin base, each checked against
	// the tree through the admin base's tiles; and the root transparency-dev/merkle computes from them.
	Entries      []string `json:"entries"`
	EntriesError string   `json:"entries_error"`
	EntriesRoot  string   `json:"entries_root"`
	// The last entry as torchwood's Client.Entry reads it, with its proof.
	LastEntry string   `json:"last_entry"`
	Inclusion []proved `json:"inclusion"`
	// `position=` alone, against the latest checkpoint.
	ByPosition  proved `json:"by_position"`
	Consistency proved `json:"consistency"`
	// Every path fetched from each base.
	PublicPaths []string `json:"public_paths"`
	AdminPaths  []string `json:"admin_paths"`
}

// recorder is an http.RoundTripper that keeps the path of every request and adds the audit key when given one.
type recorder struct {
	key   string
	mu    sync.Mutex
	paths []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.paths = append(r.paths, req.URL.Path)
	r.mu.Unlock()
	if r.key != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+r.key)
	}
	return http.DefaultTransport.RoundTrip(req)
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func texts(hashes [][]byte) []string {
	out := make([]string, len(hashes))
	for i, h := range hashes {
		out[i] = base64.StdEncoding.EncodeToString(h)
	}
	return out
}

// open verifies a checkpoint note with the verifier and reads its text as a C2SP tlog-checkpoint.
func open(text []byte, verifier note.Verifier) (opened, *torchwood.Checkpoint) {
	n, err := note.Open(text, note.VerifierList(verifier))
	if err != nil {
		return opened{Error: "note.Open: " + err.Error(), Text: string(text)}, nil
	}
	c, err := torchwood.ParseCheckpoint(n.Text)
	if err != nil {
		return opened{Error: "ParseCheckpoint: " + err.Error(), Text: string(text)}, nil
	}
	return opened{Text: string(text), Origin: c.Origin, Size: c.N, Root: c.Hash.String()}, &c
}

// served is a proof answer of the public API: {tree_size, root, leaf_index?, leaf_hash?, proof}.
type served struct {
	TreeSize  int64    `json:"tree_size"`
	Root      string   `json:"root"`
	LeafIndex int64    `json:"leaf_index"`
	LeafHash  string   `json:"leaf_hash"`
	Proof     []string `json:"proof"`
}

func fetchProof(ctx context.Context, address string) (served, [][]byte, error) {
	var s served
	req, err := http.NewRequestWithContext(ctx, "GET", address, nil)
	if err != nil {
		return s, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return s, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return s, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return s, nil, fmt.Errorf("%s: %d %s", address, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &s); err != nil {
		return s, nil, err
	}
	hashes := make([][]byte, len(s.Proof))
	for i, text := range s.Proof {
		if hashes[i], err = base64.StdEncoding.DecodeString(text); err != nil {
			return s, nil, err
		}
	}
	return s, hashes, nil
}

func toTlog(hashes [][]byte) []tlog.Hash {
	out := make([]tlog.Hash, len(hashes))
	for i, h := range hashes {
		copy(out[i][:], h)
	}
	return out
}

// checkInclusion fetches the served inclusion proof at `query` and checks it for leaf `entry` of the tree with both
// libraries; `reader`, when given, is the public tiles' hash reader whose own proof is kept for comparison.
func checkInclusion(ctx context.Context, proofs, query string, tree tlog.Tree, index int64, entry []byte, reader tlog.HashReader) proved {
	leaf := rfc6962.DefaultHasher.HashLeaf(entry)
	p := proved{Index: index, LeafHash: base64.StdEncoding.EncodeToString(leaf)}
	s, hashes, err := fetchProof(ctx, proofs+"/inclusion?"+query)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	p.Served = s.Proof
	if s.LeafIndex != index || s.TreeSize != tree.N {
		p.Error = fmt.Sprintf("served a proof of leaf %d in a tree of %d, not of leaf %d in %d", s.LeafIndex, s.TreeSize, index, tree.N)
		return p
	}
	p.Merkle = errorText(proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(index), uint64(tree.N), leaf, hashes, tree.Hash[:]))
	p.Tlog = errorText(tlog.CheckRecord(toTlog(hashes), tree.N, tree.Hash, index, tlog.RecordHash(entry)))
	if reader != nil {
		own, err := tlog.ProveRecord(tree.N, index, reader)
		if err != nil {
			p.Error = "ProveRecord through the tiles: " + err.Error()
			return p
		}
		for _, h := range own {
			p.FromTiles = append(p.FromTiles, base64.StdEncoding.EncodeToString(h[:]))
		}
	}
	return p
}

func run(req request) (out answer) {
	out = answer{Inclusion: []proved{}, Entries: []string{}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	verifier, err := torchwood.NewVerifierFromSigner(req.SignerKey)
	if err != nil {
		out.Public.Error = "verifier: " + err.Error()
		return out
	}
	publicHTTP, adminHTTP := &recorder{}, &recorder{key: req.AuditKey}
	// Named result: the paths are written into the answer after every return.
	defer func() { out.PublicPaths, out.AdminPaths = publicHTTP.paths, adminHTTP.paths }()
	fetcher := func(base string, rt http.RoundTripper) *torchwood.TileFetcher {
		f, err := torchwood.NewTileFetcher(base, torchwood.WithHTTPClient(&http.Client{Transport: rt, Timeout: 20 * time.Second}))
		if err != nil {
			panic(err)
		}
		return f
	}
	public, admin := fetcher(req.PublicBase, publicHTTP), fetcher(req.AdminBase, adminHTTP)

	// The checkpoint at each base, as a tlog-tiles client reads it: `<base>/checkpoint`.
	var checkpoint *torchwood.Checkpoint
	if text, err := public.ReadEndpoint(ctx, "checkpoint"); err != nil {
		out.Public.Error = err.Error()
	} else {
		out.Public, checkpoint = open(text, verifier)
	}
	if text, err := admin.ReadEndpoint(ctx, "checkpoint"); err != nil {
		out.Admin.Error = err.Error()
	} else {
		out.Admin, _ = open(text, verifier)
	}
	var earlier *torchwood.Checkpoint
	out.Earlier, earlier = open([]byte(req.Earlier), verifier)
	if checkpoint == nil {
		return out
	}
	tree := checkpoint.Tree

	// The tree through the public tiles alone.
	reader := torchwood.TileHashReaderWithContext(ctx, tree, public)
	if root, err := tlog.TreeHash(tree.N, reader); err != nil {
		out.TileError = err.Error()
	} else {
		out.TileRoot = root.String()
	}

	// Every entry from the admin base, checked by torchwood against the tree; the root merkle computes from them.
	client, err := torchwood.NewClient(admin, torchwood.WithTimeout(30*time.Second))
	if err != nil {
		out.EntriesError = err.Error()
		return out
	}
	entries := [][]byte{}
	// Entries leaves a partial last bundle for a later call: a client reading the whole tree asks again from there.
	for int64(len(entries)) < tree.N {
		before := len(entries)
		for _, entry := range client.Entries(ctx, tree, int64(len(entries))) {
			entries = append(entries, entry)
		}
		if err := client.Err(); err != nil {
			out.EntriesError = err.Error()
			break
		}
		if len(entries) == before {
			out.EntriesError = fmt.Sprintf("no entry past %d of a tree of %d", before, tree.N)
			break
		}
	}
	rf := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	r := rf.NewEmptyRange(0)
	for _, entry := range entries {
		out.Entries = append(out.Entries, base64.StdEncoding.EncodeToString(entry))
		if err := r.Append(rfc6962.DefaultHasher.HashLeaf(entry), nil); err != nil {
			panic(err)
		}
	}
	if root, err := r.GetRootHash(nil); err == nil && len(entries) > 0 {
		out.EntriesRoot = base64.StdEncoding.EncodeToString(root)
	}
	if last, _, err := client.Entry(ctx, tree, tree.N-1); err != nil {
		out.EntriesError += " Entry: " + err.Error()
	} else {
		out.LastEntry = base64.StdEncoding.EncodeToString(last)
	}
	if int64(len(entries)) != tree.N {
		return out
	}

	for _, index := range req.Indexes {
		query := url.Values{"index": {fmt.Sprint(index)}, "tree_size": {fmt.Sprint(tree.N)}}.Encode()
		out.Inclusion = append(out.Inclusion, checkInclusion(ctx, req.Proofs, query, tree, index, entries[index], reader))
	}
	out.ByPosition = checkInclusion(ctx, req.Proofs, url.Values{"position": {fmt.Sprint(req.Position)}}.Encode(), tree, tree.N-1, entries[tree.N-1], nil)

	if earlier != nil {
		c := proved{Index: earlier.N}
		query := url.Values{"from": {fmt.Sprint(earlier.N)}, "to": {fmt.Sprint(tree.N)}}.Encode()
		if s, hashes, err := fetchProof(ctx, req.Proofs+"/consistency?"+query); err != nil {
			c.Error = err.Error()
		} else {
			c.Served = s.Proof
			c.Merkle = errorText(proof.VerifyConsistency(rfc6962.DefaultHasher, uint64(earlier.N), uint64(tree.N), hashes, earlier.Hash[:], tree.Hash[:]))
			c.Tlog = errorText(tlog.CheckTree(toTlog(hashes), tree.N, tree.Hash, earlier.N, earlier.Hash))
		}
		out.Consistency = c
	}
	return out
}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		panic(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(run(req)); err != nil {
		panic(err)
	}
}
