#!/usr/bin/env python3
"""Fails when a source file includes a header of a layer above its own (src/flotilla/LAYERS).

Usage: check_layers.py [SOURCE_ROOT]   (default: the repository this script is in)
Prints each offending include as file:line: what it includes and which layers they are in.
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), ".."))
SRC = os.path.join(ROOT, "src", "flotilla")
INCLUDE = re.compile(r'^\s*#\s*include\s+"flotilla/([^"]+)"')


def read_layers():
    layers = []  # (rank, name, [paths])
    with open(os.path.join(SRC, "LAYERS")) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                layers.append((len(layers), line[0], line[1:]))
    return layers


def layer_of(path, layers):
    """The (rank, name) of the layer whose path is the longest prefix of `path`."""
    best = None
    for rank, name, paths in layers:
        for p in paths:
            if path == p or path.startswith(p + "/") or path.startswith(p + "."):
                if best is None or len(p) > best[0]:
                    best = (len(p), rank, name)
    return None if best is None else best[1:]


def is_test(path, text):
    return path.endswith("_test.cc") or "#include <gtest/gtest.h>" in text


def main():
    layers = read_layers()
    errors = []
    for dirpath, _, files in os.walk(SRC):
        for name in sorted(files):
            if not name.endswith((".h", ".cc")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), SRC)
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                text = f.read()
            if is_test(rel, text):
                continue
            own = layer_of(rel, layers)
            if own is None:
                errors.append(f"{rel}: in no layer of src/flotilla/LAYERS")
                continue
            for number, line in enumerate(text.split("\n"), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = layer_of(m.group(1), layers)
                if target is not None and target[0] > own[0]:
                    errors.append(f"src/flotilla/{rel}:{number}: includes flotilla/{m.group(1)}"
                                  f" (layer {target[1]}) from layer {own[1]}, which is below it")
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} include(s) against the layering of src/flotilla/LAYERS")
        return 1
    print(f"layers: {len(layers)} layers, every include points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
