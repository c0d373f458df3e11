// Checks the cosignatures of watchcat's witness with filippo.io/torchwood, the code behind litewitness, and Go's
// note package: an implementation of C2SP tlog-cosignature that watchcat did not write. Reads one JSON request on
// stdin (the witness's name and Ed25519 seed, the log's verifier key, a cosigned checkpoint), writes one JSON answer
// on stdout: the witness's verifier key as torchwood writes it, the signatures note.Open verified with the log's
// key and the witness's, and the timestamp torchwood reads from each cosignature, and the checkpoint's extension
// lines as torchwood reads them.
package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"os"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
)

type request struct {
	WitnessName string `json:"witness_name"`
	WitnessSeed string `json:"witness_seed"`
	LogKey      string `json:"log_key"`
	Note        string `json:"note"`
}

type answer struct {
	Error       string   `json:"error"`
	WitnessKey  string   `json:"witness_key"`
	Verified    []string `json:"verified"`
	Timestamps  []int64  `json:"timestamps"`
	Unverified  int      `json:"unverified"`
	CheckpointN int64    `json:"checkpoint_size"`
	Extension   string   `json:"extension"`
}

func main() {
	var req request
	var out answer
	defer func() { json.NewEncoder(os.Stdout).Encode(out) }()
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		out.Error = err.Error()
		return
	}
	seed, err := base64.StdEncoding.DecodeString(req.WitnessSeed)
	if err != nil || len(seed) != ed25519.SeedSize {
		out.Error = "bad seed"
		return
	}
	signer, err := torchwood.NewCosignatureSigner(req.WitnessName, ed25519.NewKeyFromSeed(seed))
	if err != nil {
		out.Error = err.Error()
		return
	}
	out.WitnessKey = signer.Verifier().String()
	logVerifier, err := note.NewVerifier(req.LogKey)
	if err != nil {
		out.Error = err.Error()
		return
	}
	n, err := note.Open([]byte(req.Note), note.VerifierList(logVerifier, signer.Verifier()))
	if err != nil {
		out.Error = err.Error()
		return
	}
	checkpoint, err := torchwood.ParseCheckpoint(n.Text)
	if err != nil {
		out.Error = err.Error()
		return
	}
	out.CheckpointN = checkpoint.N
	out.Extension = checkpoint.Extension
	out.Unverified = len(n.UnverifiedSigs)
	for _, sig := range n.Sigs {
		out.Verified = append(out.Verified, sig.Name)
		if sig.Name == req.WitnessName {
			t, err := torchwood.CosignatureTimestamp(sig)
			if err != nil {
				out.Error = err.Error()
				return
			}
			out.Timestamps = append(out.Timestamps, t)
		}
	}
}
