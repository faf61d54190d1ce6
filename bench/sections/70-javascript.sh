#!/usr/bin/env bash
# The npm package (js/) against @ai-sdk-tool/parser, the AI SDK middleware
# that reads tool calls from text, on its hermes and qwen3_coder protocols:
# bench/js/bench.mjs. Prints a Markdown section.
#
# Builds the package (js/build.sh), installs the AI SDK and the peer pinned
# by bench/js/package-lock.json into bench/js/node_modules (gitignored), and
# asks the registry for the peer's newest published version: when it is not
# the pinned one, installs it into bench/js/newest (gitignored) and measures
# it beside. PEER_NEWEST=<version> names another version instead. QUICK=1:
# one run a figure, 50 seeds, the peer stopped after 5 s of CPU time (10 s otherwise).
set -euo pipefail
cd "$(dirname "$0")/../.."

left_out() {
    echo "## JavaScript: the npm package against \`@ai-sdk-tool/parser\`"
    echo
    echo "Left out: $1"
    echo
    exit 0
}

command -v node >/dev/null 2>&1 || left_out "no \`node\` on this machine."
case "$(node --version)" in
    v20.*) ;;
    *) echo "70-javascript: Node $(node --version); the figures are meant for Node 20" >&2 ;;
esac

echo "== js/build.sh" >&2
built=$(js/build.sh) || left_out "\`js/build.sh\` failed (it needs the wasm32-unknown-unknown target and wasm-bindgen-cli; see docs/javascript.md)."
echo "$built" >&2
# Its last line: the module's size, and whether wasm-opt ran (js/'s own
# npm packages bring it; this section does not install them).
JS_MODULE_NOTE=$(echo "$built" | tail -n 1)
export JS_MODULE_NOTE

# The pinned packages, installed again only when the lock file changed.
lock=$(sha256sum bench/js/package-lock.json | cut -d' ' -f1)
if [ "$(cat bench/js/node_modules/.installed-lock 2>/dev/null)" != "$lock" ]; then
    (cd bench/js && npm ci --no-audit --no-fund --loglevel=error) >&2 ||
        left_out "\`npm ci\` in bench/js failed."
    echo "$lock" > bench/js/node_modules/.installed-lock
fi

pinned=$(node -p 'require("./bench/js/node_modules/@ai-sdk-tool/parser/package.json").version')
newest=${PEER_NEWEST:-$(timeout 60 npm view @ai-sdk-tool/parser version 2>/dev/null || true)}
unset PEER_NEWEST_VERSION PEER_NEWEST_ENTRY
if [ -z "$newest" ]; then
    export PEER_NEWEST_NOTE="the registry did not answer for its newest version"
elif [ "$newest" = "$pinned" ]; then
    export PEER_NEWEST_NOTE="$pinned is also its newest published version (\`npm view @ai-sdk-tool/parser version\`, at the run)"
else
    dir=bench/js/newest
    if [ "$(node -p "try { require('./$dir/node_modules/@ai-sdk-tool/parser/package.json').version } catch { '' }")" != "$newest" ]; then
        rm -rf "$dir"
        mkdir -p "$dir"
        echo '{"private": true}' > "$dir/package.json"
        (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "@ai-sdk-tool/parser@$newest") >&2 || true
    fi
    if [ -f "$dir/node_modules/@ai-sdk-tool/parser/dist/index.js" ]; then
        export PEER_NEWEST_VERSION=$newest
        export PEER_NEWEST_ENTRY="file://$PWD/$dir/node_modules/@ai-sdk-tool/parser/dist/index.js"
        export PEER_NEWEST_NOTE="$newest is its newest published version (\`npm view\`, at the run)"
    else
        export PEER_NEWEST_NOTE="its newest published version, $newest, did not install"
    fi
fi

node bench/js/bench.mjs
