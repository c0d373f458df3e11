// Checks watchcat's serial index (shared/read-model/transparency/prefix-tree.ts) with filippo.io/torchwood's prefix package, a
// Merkle prefix tree written elsewhere (test/interop/prefix-interop.test.ts), SHA-256 its hash function. Reads one
// JSON request on stdin: the entries in the order watchcat set them (a key set again takes its new value), and
// watchcat's proofs. Writes on stdout the root torchwood's own tree of those entries has, and for each proof what
// torchwood's VerifyMembershipProof (value given) or VerifyNonMembershipProof (no value) says of it under the root
// the request names ("" when it verifies).
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"

	"filippo.io/torchwood/prefix"
)

type proofNode struct {
	Bits  uint32 `json:"bits"`
	Label string `json:"label"`
	Hash  string `json:"hash"`
}

type proof struct {
	Key   string      `json:"key"`
	Value string      `json:"value"`
	Nodes []proofNode `json:"nodes"`
}

type request struct {
	Entries [][2]string `json:"entries"`
	Root    string      `json:"root"`
	Proofs  []proof     `json:"proofs"`
}

type answer struct {
	Error    string   `json:"error"`
	Root     string   `json:"root"`
	Verified []string `json:"verified"`
}

func bytes32(text string) ([32]byte, error) {
	var out [32]byte
	b, err := hex.DecodeString(text)
	if err != nil || len(b) != 32 {
		return out, fmt.Errorf("not 32 bytes of hex: %q", text)
	}
	copy(out[:], b)
	return out, nil
}

func verify(root [32]byte, p proof) error {
	key, err := bytes32(p.Key)
	if err != nil {
		return err
	}
	nodes := make([]prefix.ProofNode, 0, len(p.Nodes))
	for _, n := range p.Nodes {
		label, err := hex.DecodeString(n.Label)
		if err != nil {
			return err
		}
		if n.Bits == 0 {
			// The empty node: the only 0-bit label a proof holds (a root is never a sibling).
			label = prefix.EmptyNodeLabel.Bytes()
		}
		l, err := prefix.NewLabel(n.Bits, label)
		if err != nil {
			return err
		}
		h, err := bytes32(n.Hash)
		if err != nil {
			return err
		}
		nodes = append(nodes, prefix.ProofNode{Label: l, Hash: h})
	}
	if p.Value == "" {
		return prefix.VerifyNonMembershipProof(sha256.Sum256, key, nodes, root)
	}
	value, err := bytes32(p.Value)
	if err != nil {
		return err
	}
	return prefix.VerifyMembershipProof(sha256.Sum256, key, value, nodes, root)
}

func run(req request) (answer, error) {
	ctx := context.Background()
	store := prefix.NewMemoryStorage()
	if err := prefix.InitStorage(ctx, sha256.Sum256, store); err != nil {
		return answer{}, err
	}
	tree := prefix.NewTree(sha256.Sum256, store)
	for _, entry := range req.Entries {
		key, err := bytes32(entry[0])
		if err != nil {
			return answer{}, err
		}
		value, err := bytes32(entry[1])
		if err != nil {
			return answer{}, err
		}
		if err := tree.Insert(ctx, key, value); err != nil {
			return answer{}, err
		}
	}
	rootHash, err := tree.RootHash(ctx)
	if err != nil {
		return answer{}, err
	}
	root, err := bytes32(req.Root)
	if err != nil {
		return answer{}, err
	}
	verified := make([]string, 0, len(req.Proofs))
	for _, p := range req.Proofs {
		if err := verify(root, p); err != nil {
			verified = append(verified, err.Error())
		} else {
			verified = append(verified, "")
		}
	}
	return answer{Root: hex.EncodeToString(rootHash[:]), Verified: verified}, nil
}

func main() {
	var req request
	var out answer
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		out.Error = err.Error()
	} else if out, err = run(req); err != nil {
		out.Error = err.Error()
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
