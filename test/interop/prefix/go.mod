module watchcat.test/interop/prefix

go 1.26.0

require filippo.io/torchwood v0.6.1
