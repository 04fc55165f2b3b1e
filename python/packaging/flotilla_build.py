"""The Python package as a wheel: the PEP 517 build backend named by pyproject.toml (so
`pip install .` needs nothing from a package index), and the program behind `make wheel`.

The extension module comes from the project's own CMake build (target `_flotilla`), the
package's modules from python/flotilla/. A configured build directory is reused when
FLOTILLA_BUILD_DIR (or pip's `--config-settings build-dir=DIR`) names one; otherwise the wheel
has a release build of its own in build-wheel/, without tests and benchmarks. Either way only
the extension's target is built (nothing when it is up to date). The wheel holds a copy of the
extension with its debug information stripped; the build's own file is left as it is.

    /usr/bin/python3 python/packaging/flotilla_build.py --build-dir build --out dist
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import tomllib
import zipfile
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2]
PACKAGE = "flotilla"
EXTENSION_TARGET = "_flotilla"
OWN_BUILD_DIR = SOURCE / "build-wheel"
OWN_BUILD_OPTIONS = ["-DCMAKE_BUILD_TYPE=Release", "-DFLOTILLA_TESTS=OFF", "-DFLOTILLA_BENCH=OFF"]
# The [project] keys written into the metadata; any other is refused rather than dropped.
PROJECT_KEYS = {"name", "dynamic", "description", "requires-python", "dependencies",
                "optional-dependencies", "scripts"}
# What a source distribution holds: enough to build the wheel (the tests are not configured).
SDIST_CONTENTS = ["pyproject.toml", "CMakeLists.txt", "README.md", "src", "python/ext",
                  "python/flotilla", "python/packaging"]
# The Debian package of each program the build runs.
PROGRAMS = {"cmake": "cmake", "ninja": "ninja-build", "strip": "binutils"}


class BuildError(Exception):
    """A wheel that cannot be built; the message says what to do."""


# --- PEP 517 hooks ---------------------------------------------------------------------------

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    project = _project()
    build_dir = _build_directory(config_settings)
    _build_extension(build_dir)
    extension = _extension(build_dir)
    files = [(f"{PACKAGE}/{p.name}", p) for p in sorted((SOURCE / "python" / PACKAGE).glob("*.py"))]
    with tempfile.TemporaryDirectory(prefix="flotilla-wheel-") as scratch:
        stripped = _stripped_copy(extension, Path(scratch))
        files.append((f"{PACKAGE}/{extension.name}", stripped))
        wheel = _write_wheel(Path(wheel_directory), project, files)
        print(f"{wheel}: {extension.name} is {_mib(extension)} in {build_dir}, "
              f"{_mib(stripped)} in the wheel (strip --strip-debug)", file=sys.stderr)
    return wheel.name


def build_sdist(sdist_directory, config_settings=None) -> str:
    project = _project()
    base = f"{_file_name(project['name'])}-{project['version']}"
    sdist = Path(sdist_directory) / f"{base}.tar.gz"
    mtime = _timestamp()

    def entry(info):  # no caches; no owner or time of this checkout
        if "__pycache__" in info.name.split("/"):
            return None
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = mtime
        return info

    with tarfile.open(sdist, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for item in SDIST_CONTENTS:
            tar.add(SOURCE / item, f"{base}/{item}", filter=entry)
        pkg_info = _metadata(project).encode()
        info = entry(tarfile.TarInfo(f"{base}/PKG-INFO"))
        info.size = len(pkg_info)
        tar.addfile(info, io.BytesIO(pkg_info))
    return sdist.name


# --- The project's metadata ------------------------------------------------------------------

def _project() -> dict:
    with open(SOURCE / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    unknown = sorted(set(project) - PROJECT_KEYS)
    if unknown:
        raise BuildError(f"pyproject.toml: [project] {', '.join(unknown)}: not written into the "
                         f"metadata by {Path(__file__).name}; teach it there")
    init = SOURCE / "python" / PACKAGE / "__init__.py"
    version = re.search(r'^__version__ = "([^"]+)"$', init.read_text(), re.MULTILINE)
    if not version:
        raise BuildError(f'{init} has no line `__version__ = "..."`, the package\'s version')
    return {**project, "version": version.group(1)}


def _metadata(project: dict) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    for extra, requirements in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for r in requirements:
            requirement, _, marker = r.partition(";")
            condition = f'extra == "{extra}"'
            if marker.strip():
                condition = f"({marker.strip()}) and {condition}"
            lines.append(f"Requires-Dist: {requirement.strip()}; {condition}")
    return "\n".join(lines) + "\n"


def _file_name(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _tag() -> str:
    """The wheel's tag: this interpreter's, which the extension was checked to be built for."""
    if sys.implementation.name != "cpython":
        raise BuildError(f"{sys.executable} is not CPython: the extension module is built for "
                         "/usr/bin/python3")
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{python}-{python}-{platform}"


# --- The extension module --------------------------------------------------------------------

def _build_directory(config_settings) -> Path:
    named = (config_settings or {}).get("build-dir") or os.environ.get("FLOTILLA_BUILD_DIR")
    if named:
        build_dir = Path(named).resolve()
        if not (build_dir / "build.ninja").is_file():
            raise BuildError(f"{build_dir} is not a configured build directory (no build.ninja): "
                             "run `make build` first, or name no build directory for a release "
                             f"build of the wheel's own in {OWN_BUILD_DIR}")
        return build_dir
    if not (OWN_BUILD_DIR / "build.ninja").is_file():
        _require("cmake")
        _require("ninja")
        _run(["cmake", "-S", str(SOURCE), "-B", str(OWN_BUILD_DIR), "-G", "Ninja",
              *OWN_BUILD_OPTIONS])
    return OWN_BUILD_DIR


def _build_extension(build_dir: Path) -> None:
    _require("ninja")
    known = subprocess.run(["ninja", "-C", str(build_dir), "-t", "query", EXTENSION_TARGET],
                           capture_output=True)
    if known.returncode != 0:
        raise BuildError(f"{build_dir} has no target {EXTENSION_TARGET}: it is configured without "
                         "the Python extension module (FLOTILLA_PYTHON=OFF, or a sanitizer or "
                         "fuzzing build)")
    _run(["ninja", "-C", str(build_dir), EXTENSION_TARGET])


def _extension(build_dir: Path) -> Path:
    directory = build_dir / "python" / PACKAGE
    wanted = directory / (EXTENSION_TARGET + sysconfig.get_config_var("EXT_SUFFIX"))
    if wanted.is_file():
        return wanted
    built = ", ".join(p.name for p in directory.glob(EXTENSION_TARGET + ".*")) or "nothing"
    raise BuildError(f"{directory} holds {built}, not {wanted.name}, the extension "
                     f"{sys.executable} loads: the build is for /usr/bin/python3, so build the "
                     "wheel with it (or in a virtual environment made from it)")


def _stripped_copy(extension: Path, directory: Path) -> Path:
    _require("strip")
    copy = directory / extension.name
    shutil.copy(extension, copy)
    _run(["strip", "--strip-debug", str(copy)])
    return copy


def _require(program: str) -> None:
    if shutil.which(program) is None:
        raise BuildError(f"{program} was not found on PATH: the Python package is built with CMake "
                         f"and Ninja (Debian package {PROGRAMS[program]}; scripts/install-deps.sh "
                         "installs everything the build needs)")


def _run(command: list[str]) -> None:
    """Runs a step of the build, its output on stderr (the program's stdout is the wheel's path)."""
    try:
        subprocess.run(command, check=True, stdout=sys.stderr)
    except subprocess.CalledProcessError as e:
        raise BuildError(f"`{' '.join(command)}` failed with exit status {e.returncode} "
                         "(its output is above)") from None


# --- The wheel file --------------------------------------------------------------------------

def _write_wheel(wheel_directory: Path, project: dict, files: list[tuple[str, Path]]) -> Path:
    """A wheel of `files` (name inside the wheel, file to copy) and the .dist-info directory,
    written under a temporary name and renamed when complete."""
    base = f"{_file_name(project['name'])}-{project['version']}"
    dist_info = f"{base}.dist-info"
    tag = _tag()
    wheel = wheel_directory / f"{base}-{tag}.whl"
    generated = {
        f"{dist_info}/METADATA": _metadata(project),
        f"{dist_info}/WHEEL": ("Wheel-Version: 1.0\nGenerator: flotilla_build\n"
                               f"Root-Is-Purelib: false\nTag: {tag}\n"),
    }
    scripts = project.get("scripts", {})
    if scripts:
        generated[f"{dist_info}/entry_points.txt"] = "[console_scripts]\n" + "".join(
            f"{name} = {target}\n" for name, target in scripts.items())
    record = []
    partial = wheel.with_name(wheel.name + ".part")
    try:
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
            for name, path in files:
                data = path.read_bytes()
                _add(z, name, data, executable=os.access(path, os.X_OK))
                record.append(_record_line(name, data))
            for name, text in generated.items():
                _add(z, name, text.encode(), executable=False)
                record.append(_record_line(name, text.encode()))
            record.append(f"{dist_info}/RECORD,,")
            _add(z, f"{dist_info}/RECORD", "".join(f"{r}\n" for r in record).encode(),
                 executable=False)
        os.replace(partial, wheel)
    finally:
        partial.unlink(missing_ok=True)
    return wheel


def _add(z: zipfile.ZipFile, name: str, data: bytes, executable: bool) -> None:
    info = zipfile.ZipInfo(name, date_time=time.gmtime(_timestamp())[:6])
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _timestamp() -> int:
    """SOURCE_DATE_EPOCH when set, else 1980-01-01 (the earliest a zip file can hold): the same
    sources give the same files."""
    return max(int(os.environ.get("SOURCE_DATE_EPOCH", 0)), 315532800)


def _mib(path: Path) -> str:
    return f"{path.stat().st_size / 2**20:.1f} MiB"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="flotilla_build.py",
                                description="Writes the Python package's wheel (`make wheel`).")
    p.add_argument("--build-dir", help="a configured build directory to reuse (default: "
                   "FLOTILLA_BUILD_DIR, else a release build in build-wheel/)")
    p.add_argument("--out", default="dist", help="the directory the wheel is written to")
    a = p.parse_args(argv)
    Path(a.out).mkdir(parents=True, exist_ok=True)
    try:
        name = build_wheel(a.out, {"build-dir": a.build_dir} if a.build_dir else None)
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(Path(a.out) / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
