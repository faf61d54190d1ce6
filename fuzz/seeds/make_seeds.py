#!/usr/bin/env python3
"""Writes seed corpora for the fuzz targets from the test suite's inputs.

Every string literal of tests/*.rs that looks like a response (it holds a
fence, a tag or a brace) becomes a seed: for `chunks` and `bytes` behind
three bytes (configuration, cut seed), for `json_scan` the JSON between a
fence opener and closer behind one byte. For `dialects`, each model output
of tests/data/dialects/<dialect>/ behind two configuration bytes that pick
its dialect and an option set, and the string literals of the dialect
tests behind the bytes of each dialect they name. Run from fuzz/:
    python3 seeds/make_seeds.py
"""
import glob
import hashlib
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "..", "tests")

LIT = re.compile(r'r(#+)"(.*?)"\1|"((?:[^"\\]|\\.)*)"', re.S)


def unescape(s):
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        n = s[i + 1]
        if n == "u":
            j = s.index("}", i)
            out.append(chr(int(s[i + 3 : j], 16)))
            i = j + 1
            continue
        if n == "\n":  # line continuation
            i += 2
            while i < len(s) and s[i] in " \t\n":
                i += 1
            continue
        out.append({"n": "\n", "r": "\r", "t": "\t", "0": "\0", "\\": "\\", '"': '"', "'": "'"}.get(n, n))
        i += 2
    return "".join(out)


def literals():
    for path in sorted(glob.glob(os.path.join(TESTS, "*.rs"))):
        src = open(path, encoding="utf-8").read()
        for m in LIT.finditer(src):
            text = m.group(2) if m.group(1) else unescape(m.group(3))
            if any(k in text for k in ("```", "~~~", "<", "{", "[")) and len(text) >= 4:
                yield text


def write(target, data):
    d = os.path.join(HERE, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def builtin_dialects():
    """The built-in dialects in the order of `actionstream::dialect::BUILTIN`,
    read from its source so that a dialect added there gets seeds."""
    src = open(os.path.join(TESTS, "..", "src", "dialect", "builtin.rs"), encoding="utf-8").read()
    table = src[src.index("pub const BUILTIN"):]
    table = table[: table.index("];")]
    return re.findall(r'^\s*"([a-z0-9_]+)",', table, re.M)


DIALECTS = builtin_dialects()
# Option sets of the second configuration byte: none, argument deltas,
# reasoning open, deltas with calls in reasoning, a second dialect, a small
# block limit.
MODES = [0, 1, 2, 9, 5, 14]


def dialect_seeds():
    root = os.path.join(TESTS, "data", "dialects")
    for i, name in enumerate(DIALECTS):
        d = os.path.join(root, name)
        for f in sorted(glob.glob(os.path.join(d, "*.txt"))):
            raw = open(f, "rb").read()
            for mode in MODES:
                write("dialects", bytes([i, mode]) + raw)
    for path in sorted(glob.glob(os.path.join(TESTS, "dialect*.rs"))):
        src = open(path, encoding="utf-8").read()
        for m in LIT.finditer(src):
            text = m.group(2) if m.group(1) else unescape(m.group(3))
            if len(text) < 8 or not any(k in text for k in ("<", "[", "{")):
                continue
            for i, name in enumerate(DIALECTS):
                if name in text or i == len(text) % len(DIALECTS):
                    write("dialects", bytes([i, len(text) % 15]) + text.encode("utf-8"))


def protocol_seeds():
    # Each bundled response and dialect example behind the configuration
    # byte (its dialect, or 17: fences and tags) and a push size.
    examples = os.path.join(TESTS, "..", "examples", "responses")
    for f in sorted(glob.glob(os.path.join(examples, "*.md"))):
        write("protocols", bytes([len(DIALECTS), 6]) + open(f, "rb").read()[:4000])
    for i, name in enumerate(DIALECTS):
        f = os.path.join(examples, "dialects", name + ".txt")
        if os.path.exists(f):
            write("protocols", bytes([i, 3]) + open(f, "rb").read()[:4000])


def main():
    seen = set()
    for i, text in enumerate(literals()):
        if text in seen:
            continue
        seen.add(text)
        raw = text.encode("utf-8")
        for cfg in (0, 1, 2):
            write("chunks", bytes([cfg, i % 256, 7]) + raw)
        write("bytes", bytes([i % 5, i % 256, 3]) + raw)
        # Invalid UTF-8 inside: a cut character and a stray byte.
        write("bytes", bytes([0, 1, 9]) + raw[: len(raw) // 2] + b"\xe2\x82" + b"\xff" + raw[len(raw) // 2 :])
        for m in re.finditer(r"```[a-z_]*\n(.*?)\n```", text, re.S):
            write("json_scan", bytes([i % 256]) + m.group(1).encode("utf-8"))
        if text.lstrip().startswith(("{", "[")):
            write("json_scan", bytes([i % 256]) + raw)


if __name__ == "__main__":
    main()
    dialect_seeds()
    protocol_seeds()
