#!/usr/bin/env bash
# Installs the Debian packages Flotilla needs to build and test. Idempotent: when everything is
# present it prints nothing and touches nothing.
set -euo pipefail

PACKAGES=(
  cmake ninja-build ccache g++ make pkg-config
  clang libclang-rt-14-dev            # libFuzzer and sanitizer runtimes
  clang-format-14                     # the pinned formatting, checked by `make test`
  libzstd-dev liblz4-dev libxxhash-dev
  libsnappy-dev zlib1g-dev libbrotli-dev  # Parquet codecs (zstd and lz4 above too)
  libsimdjson-dev                     # newline-delimited JSON
  libcurl4-openssl-dev                # HTTP(S) reads with range requests
  libssl-dev                          # md5/sha256 SQL functions (libcrypto)
  libflatbuffers-dev flatbuffers-compiler
  libprotobuf-dev protobuf-compiler   # plan fragments sent to workers
  libgrpc++-dev protobuf-compiler-grpc  # the Arrow Flight data plane between workers
  libfmt-dev libcli11-dev
  libre2-dev libutf8proc-dev          # regular expressions, Unicode normalisation
  libgumbo-dev                        # HTML parsing (html_to_text)
  libturbojpeg0-dev libpng-dev libwebp-dev  # image_decode / image_encode
  python3-pil                         # the image tests' independent decoder
  python3-torch python3-torchvision   # the image inference example and its tests
  libgtest-dev libgmock-dev libbenchmark-dev
  zstd lz4                            # reference codecs used by the interop tests
  python3                             # the HTTP range server of the HTTP read test
  python3-dev pybind11-dev            # the Python extension module
  python3-numpy python3-pandas python3-pytest
  python3-distributed                 # the Dask cluster backend of the distributed runner
  libjemalloc2                        # the malloc its local cluster's workers run with
  chromium                            # the dashboard's browser test (headless)
  python3-venv                        # virtual environments (with pip) to install the wheel into
  libedit-dev                         # line editing and history in the SQL shell
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js may come from Debian or elsewhere; only ask apt for it when no `node`/`npm` is on PATH.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
