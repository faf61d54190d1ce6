#!/usr/bin/env bash
# Builds the npm package's WebAssembly core: the crate in js/crate for
# wasm32-unknown-unknown (release, its own target directory js/target), then
# wasm-bindgen's glue (`--target web`) into js/pkg, then wasm-opt -Oz where
# it is installed. Needs: `rustup target add wasm32-unknown-unknown` and
# `cargo install wasm-bindgen-cli --version <the version js/crate pins>`.
set -euo pipefail
cd "$(dirname "$0")"

pinned=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' crate/Cargo.toml)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$pinned" ]; then
  echo "wasm-bindgen-cli $pinned is needed (found '${have:-none}'):" >&2
  echo "  cargo install wasm-bindgen-cli --version $pinned" >&2
  exit 1
fi

cargo build --release --target wasm32-unknown-unknown \
  --manifest-path crate/Cargo.toml --target-dir target
rm -rf pkg
wasm-bindgen --target web --out-dir pkg --out-name actionstream_wasm \
  target/wasm32-unknown-unknown/release/actionstream_wasm.wasm
if command -v wasm-opt >/dev/null 2>&1; then
  wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
    pkg/actionstream_wasm_bg.wasm -o pkg/actionstream_wasm_bg.wasm
fi
wasm=pkg/actionstream_wasm_bg.wasm
echo "$wasm: $(wc -c <"$wasm") bytes, $(gzip -9c "$wasm" | wc -c) gzipped"
