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
        assert {"dmlslice/__init__.py", "dmlslice/_errors.py", "dmlslice/_kinds.py", "dmlslice/py.typed",
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
