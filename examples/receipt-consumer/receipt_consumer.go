// Package receiptconsumer is an example Neo N3 contract that accepts a result only with a valid
// Neoflow execution receipt (docs/security.md, "Receipts"): signed by the registered receipt key,
// of the pinned code, on this network, completed, for exactly this result, and never seen before.
// It is deployed with [publicKey (33 bytes, compressed), codeHash (32 bytes), networkMagic] as its
// data: GET /v1/receipt-keys gives the key, `neoflow fn hash` the code hash.
package receiptconsumer

import (
	"github.com/nspcc-dev/neo-go/pkg/interop"
	"github.com/nspcc-dev/neo-go/pkg/interop/native/crypto"
	"github.com/nspcc-dev/neo-go/pkg/interop/runtime"
	"github.com/nspcc-dev/neo-go/pkg/interop/storage"
)

// The receipt's fixed layout (src/receipts/receipt-preimage.ts).
const (
	preimageLength  = 394
	tagEnd          = 19
	magicAt         = 19
	executionIdAt   = 23
	codeHashAt      = 87
	statusAt        = 183
	outcomeHashAt   = 184
	publicKeyAt     = 328
	publicKeyLength = 33
	statusCompleted = 1
)

const (
	keyKey   = "k"
	codeKey  = "c"
	magicKey = "m"
	// Followed by an execution id's hash: the executions whose results were accepted.
	seenPrefix = "x"
	resultKey  = "r"
)

func _deploy(data any, isUpdate bool) {
	if isUpdate {
		return
	}
	args := data.([]any)
	publicKey := args[0].([]byte)
	codeHash := args[1].([]byte)
	if len(publicKey) != publicKeyLength || len(codeHash) != 32 {
		panic("deploy data: [publicKey (33 bytes), codeHash (32 bytes), networkMagic]")
	}
	ctx := storage.GetContext()
	storage.Put(ctx, keyKey, publicKey)
	storage.Put(ctx, codeKey, codeHash)
	storage.Put(ctx, magicKey, args[2].(int))
}

// Fulfil accepts result when receipt's preimage and signature prove it: it stores the result and
// emits Fulfilled, or aborts naming the check that failed.
func Fulfil(preimage []byte, signature []byte, result []byte) {
	if len(preimage) != preimageLength {
		panic("not a receipt: wrong length")
	}
	if string(preimage[:tagEnd]) != "neoflow/receipt/v1\x00" {
		panic("not a receipt: wrong tag")
	}
	ctx := storage.GetContext()
	publicKey := storage.Get(ctx, keyKey).([]byte)
	if string(preimage[publicKeyAt:publicKeyAt+publicKeyLength]) != string(publicKey) {
		panic("signed by another key")
	}
	if !crypto.VerifyWithECDsa(preimage, interop.PublicKey(publicKey), interop.Signature(signature), crypto.Secp256r1Sha256) {
		panic("bad signature")
	}
	if magicOf(preimage) != storage.Get(ctx, magicKey).(int) {
		panic("another network")
	}
	if string(preimage[codeHashAt:codeHashAt+32]) != string(storage.Get(ctx, codeKey).([]byte)) {
		panic("other code")
	}
	if int(preimage[statusAt]) != statusCompleted {
		panic("the execution did not complete")
	}
	if string(preimage[outcomeHashAt:outcomeHashAt+32]) != string(crypto.Sha256(result)) {
		panic("the result is not the receipt's")
	}
	executionId := preimage[executionIdAt : executionIdAt+32]
	seen := append([]byte(seenPrefix), executionId...)
	if storage.Get(ctx, seen) != nil {
		panic("replayed: this execution's result was accepted already")
	}
	storage.Put(ctx, seen, 1)
	storage.Put(ctx, resultKey, result)
	runtime.Notify("Fulfilled", executionId, result)
}

// Result is the last result accepted.
func Result() []byte {
	return storage.Get(storage.GetReadOnlyContext(), resultKey).([]byte)
}

// magicOf reads the receipt's network magic, a little-endian u32.
func magicOf(preimage []byte) int {
	return int(preimage[magicAt]) + int(preimage[magicAt+1])<<8 + int(preimage[magicAt+2])<<16 + int(preimage[magicAt+3])<<24
}
