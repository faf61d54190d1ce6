#!/usr/bin/env bash
# Builds the npm package's WebAssembly core: the crate in js/crate for
# wasm32-unknown-unknown (release, its own target directory js/target), then
# wasm-bindgen's glue (`--target web`) into js/pkg, then wasm-opt -Oz: npm's
# `binaryen` (a js/ devDependency, pinned in js/package-lock.json: `npm ci`
# in js/ installs it), else one on the PATH, else none (the .wasm is then
# larger, not different). Needs: `rustup target add wasm32-unknown-unknown`
# and `cargo install wasm-bindgen-cli --version <the version js/crate pins>`.
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
wasm=pkg/actionstream_wasm_bg.wasm
echo "$wasm: $(wc -c <"$wasm") bytes, $(gzip -9c "$wasm" | wc -c) gzipped (before wasm-opt)"
wasm_opt=node_modules/.bin/wasm-opt
[ -x "$wasm_opt" ] || wasm_opt=$(command -v wasm-opt || true)
if [ -n "$wasm_opt" ]; then
  # The features rustc's wasm32-unknown-unknown target enables by default.
  "$wasm_opt" -Oz --strip-debug --strip-producers \
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$wasm" -o "$wasm"
  echo "$wasm: $(wc -c <"$wasm") bytes, $(gzip -9c "$wasm" | wc -c) gzipped ($("$wasm_opt" --version))"
else
  echo "no wasm-opt (cd js && npm ci installs binaryen's): the .wasm is not optimised further" >&2
fi
