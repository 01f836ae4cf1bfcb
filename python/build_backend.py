"""The package's build backend (PEP 517), in the package's own folder, so
that `pip install ./python` needs nothing but CPython 3.11+, CMake and a C
compiler: no setuptools, no wheel package, no network.

    pip install ./python                      # from the repository root
    pip wheel ./python -w dist                # a wheel (cp311-abi3)

It runs the project's CMake (python/CMakeLists.txt, option DMLS_PYTHON;
tests and tools off), which links the static library into the extension,
and zips the extension with the package's Python files into a wheel.
Environment: DMLSLICE_CUDA=ON|OFF|AUTO (default AUTO: the CUDA backend where
nvcc is found), DMLSLICE_BUILD_JOBS (default: the CPU count),
DMLSLICE_SOURCE (the repository, when this folder was copied elsewhere),
DMLSLICE_BUILD_DIR (CMake's build folder; default <repository>/build-wheel),
DMLSLICE_EXTENSION (an extension already built: packaged as it is).
"""
import base64
import hashlib
import os
import re
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE_FILES = ["__init__.py", "__init__.pyi", "_errors.py", "_kinds.py", "dask.py", "py.typed"]
EXTENSION = "_dmlslice.abi3.so"


def _source_root():
    root = Path(os.environ.get("DMLSLICE_SOURCE", HERE.parent)).resolve()
    if not (root / "include" / "dmlslice" / "dmlslice.h").is_file():
        sys.exit(f"dmlslice: no library sources at {root} (set DMLSLICE_SOURCE to the repository)")
    return root


def _version():
    """The version's one home is the top-level CMakeLists.txt's project()."""
    text = (_source_root() / "CMakeLists.txt").read_text()
    found = re.search(r"project\(dmlslice VERSION ([0-9]+\.[0-9]+\.[0-9]+)", text)
    if not found:
        sys.exit("dmlslice: no project(dmlslice VERSION ...) in the top-level CMakeLists.txt")
    return found.group(1)


def _extension():
    """The extension, built by the project's CMake (or DMLSLICE_EXTENSION)."""
    given = os.environ.get("DMLSLICE_EXTENSION")
    if given:
        return Path(given)
    root = _source_root()
    build = Path(os.environ.get("DMLSLICE_BUILD_DIR", root / "build-wheel")).resolve()
    subprocess.run(["cmake", "-S", str(root), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                    "-DDMLS_PYTHON=ON", "-DDMLS_BUILD_TESTS=OFF", "-DDMLS_BUILD_TOOLS=OFF",
                    f"-DDMLS_CUDA={os.environ.get('DMLSLICE_CUDA', 'AUTO')}",
                    f"-DPython3_EXECUTABLE={sys.executable}"], check=True, stdout=sys.stderr)
    jobs = os.environ.get("DMLSLICE_BUILD_JOBS", str(os.cpu_count() or 1))
    subprocess.run(["cmake", "--build", str(build), "--target", "dmlslice_python", "-j", jobs],
                   check=True, stdout=sys.stderr)
    return build / "python" / "dmlslice" / EXTENSION


def _tag():
    """cp311-abi3-<platform>: the stable ABI of 3.11 serves every later CPython."""
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"cp311-abi3-{platform}"


def _metadata(version):
    """Core metadata from pyproject.toml's [project] table."""
    with open(HERE / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    lines = [f"Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {version}",
             f"Summary: {project['description']}", f"Requires-Python: {project['requires-python']}"]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    lines += ["Description-Content-Type: text/markdown", "", (HERE / project["readme"]).read_text()]
    return "\n".join(lines)


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version, tag = _version(), _tag()
    files = {f"dmlslice/{f}": (HERE / "dmlslice" / f).read_bytes() for f in PACKAGE_FILES}
    files[f"dmlslice/{EXTENSION}"] = _extension().read_bytes()
    info = f"dmlslice-{version}.dist-info"  # the name is pyproject.toml's
    files[f"{info}/METADATA"] = _metadata(version).encode()
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: dmlslice build_backend\n"
                              f"Root-Is-Purelib: false\nTag: {tag}\n").encode()
    record = [_record_line(name, data) for name, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    name = f"dmlslice-{version}-{tag}.whl"
    with zipfile.ZipFile(Path(wheel_directory) / name, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            entry = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
    return name
