module watchcat.test/interop/cosignature

go 1.26.0

require (
	filippo.io/torchwood v0.6.1
	golang.org/x/mod v0.24.0
)

require (
	golang.org/x/crypto v0.38.0 // indirect
	golang.org/x/sync v0.14.0 // indirect
)
