"""Builds dmlslice's extension through the project's CMake (python/CMakeLists.txt,
option DMLS_PYTHON) and installs the module it makes.

    pip install --no-build-isolation ./python          # from the repository root
    pip wheel --no-build-isolation ./python -w dist

The library is compiled from this repository (the folder above this one) and
linked in statically; the CUDA backend is built where nvcc is found.
Environment: DMLSLICE_CUDA=ON|OFF|AUTO (default AUTO), DMLSLICE_BUILD_JOBS
(default: the CPU count), DMLSLICE_SOURCE (the repository, when this folder
was copied elsewhere).
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent


def source_root():
    root = Path(os.environ.get("DMLSLICE_SOURCE", HERE.parent)).resolve()
    if not (root / "include" / "dmlslice" / "dmlslice.h").is_file():
        sys.exit(f"dmlslice: no library sources at {root} (set DMLSLICE_SOURCE to the repository)")
    return root


def project_version():
    """The version's one home is the top-level CMakeLists.txt's project()."""
    text = (source_root() / "CMakeLists.txt").read_text()
    found = re.search(r"project\(dmlslice VERSION ([0-9]+\.[0-9]+\.[0-9]+)", text)
    if not found:
        sys.exit("dmlslice: no project(dmlslice VERSION ...) in the top-level CMakeLists.txt")
    return found.group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = Path(self.build_temp).resolve() / "cmake"
        build.mkdir(parents=True, exist_ok=True)
        cfg = [
            "cmake", "-S", str(source_root()), "-B", str(build),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DDMLS_PYTHON=ON", "-DDMLS_BUILD_TESTS=OFF", "-DDMLS_BUILD_TOOLS=OFF",
            f"-DDMLS_CUDA={os.environ.get('DMLSLICE_CUDA', 'AUTO')}",
            f"-DPython3_EXECUTABLE={sys.executable}",
        ]
        jobs = os.environ.get("DMLSLICE_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.run(cfg, check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "dmlslice_python", "-j", jobs],
                       check=True)
        built = build / "python" / "dmlslice" / "_dmlslice.abi3.so"
        dest = Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, dest)


setup(
    version=project_version(),
    ext_modules=[Extension("dmlslice._dmlslice", sources=[], py_limited_api=True)],
    cmdclass={"build_ext": CMakeBuild},
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
)
