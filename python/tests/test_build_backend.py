"""python/build_backend.py: the wheel pip builds from ./python, made by an
interpreter without site-packages (so no setuptools and no wheel package),
its RECORD, tag and metadata checked, and installed files that import."""
import base64
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import dmlslice

PYTHON_DIR = Path(__file__).resolve().parents[1]


def build(tmp_path):
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import build_backend as b; "
            "assert b.get_requires_for_build_wheel() == []; print(b.build_wheel(sys.argv[2]))")
    ext = Path(dmlslice._dmlslice.__file__)
    env = dict(os.environ, DMLSLICE_EXTENSION=str(ext))
    # -I -S: no site-packages, no environment: only the standard library.
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(PYTHON_DIR), str(tmp_path)],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return tmp_path / out.stdout.strip()


def test_wheel_without_setuptools(tmp_path):
    whl = build(tmp_path)
    prefix = f"dmlslice-{dmlslice.__version__}-"
    assert whl.name.startswith(prefix + "cp311-abi3-") and whl.suffix == ".whl"
    tag = whl.name[len(prefix):-len(".whl")]
    with zipfile.ZipFile(whl) as z:
        names = set(z.namelist())
        info = f"dmlslice-{dmlslice.__version__}.dist-info"
        assert {"dmlslice/__init__.py", "dmlslice/_errors.py", "dmlslice/_kinds.py", "dmlslice/dask.py", "dmlslice/py.typed",
                "dmlslice/__init__.pyi", "dmlslice/_dmlslice.abi3.so", f"{info}/METADATA", f"{info}/WHEEL",
                f"{info}/RECORD"} == names
        record = z.read(f"{info}/RECORD").decode().splitlines()
        assert f"{info}/RECORD,," in record
        for line in record:
            name, digest, size = line.rsplit(",", 2)
            if name.endswith("RECORD"):
                continue
            data = z.read(name)
            want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert digest == f"sha256={want}" and int(size) == len(data), name
        wheel = z.read(f"{info}/WHEEL").decode()
        assert "Root-Is-Purelib: false" in wheel and f"Tag: {tag}\n" in wheel
        meta = z.read(f"{info}/METADATA").decode()
        assert f"Version: {dmlslice.__version__}\n" in meta and "Requires-Dist: numpy" in meta
        assert "Requires-Python: >=3.11" in meta
        z.extractall(tmp_path / "site")
    code = "import dmlslice, numpy as np; print(dmlslice.index(np.arange(4), '[::-1]').tolist())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(tmp_path / "site")))
    assert r.returncode == 0 and r.stdout.strip() == "[3, 2, 1, 0]", r.stderr


def test_pip_wheel_offline_as_documented(tmp_path):
    """python/README.md's `pip wheel --no-deps ./python -w dist`, with no index at all (offline):
    pip's isolated build needs nothing (requires = []), and --no-deps leaves NumPy to the user."""
    pip = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
    if pip.returncode != 0:
        pytest.skip("this interpreter has no pip")
    readme = (PYTHON_DIR / "README.md").read_text()
    assert "pip wheel --no-deps ./python -w dist" in readme
    env = dict(os.environ, DMLSLICE_EXTENSION=str(Path(dmlslice._dmlslice.__file__)), PIP_NO_INDEX="1",
               PIP_FIND_LINKS="", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "./python", "-w", str(tmp_path / "dist")],
                       cwd=PYTHON_DIR.parent, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    wheels = list((tmp_path / "dist").glob(f"dmlslice-{dmlslice.__version__}-cp311-abi3-*.whl"))
    assert len(wheels) == 1, list((tmp_path / "dist").iterdir())
