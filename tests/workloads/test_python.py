"""Workloads: Python virtual environments with and without pip (pip installs a
wheel made here: no network), pytest. Each job runs bare and under
`paldron exec` (workload.py)."""

import base64
import hashlib
import zipfile

from workload import WorkloadTest, main

PY = ["python3", "python", "uname"]

PKG_INIT = 'def greet():\n    return "hello from a wheel"\n\n' \
           'def main():\n    print(greet())\n'


def make_wheel(path):
    """A minimal pure-Python wheel, zipped by hand (fixed dates: the same bytes
    every time): hello_pkg 0.1 with a console script `hello-pkg`."""
    files = {
        "hello_pkg/__init__.py": PKG_INIT,
        "hello_pkg-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: hello-pkg\nVersion: 0.1\n"
                                            "Summary: a workload wheel\n",
        "hello_pkg-0.1.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: paldron-workloads\n"
                                         "Root-Is-Purelib: true\nTag: py3-none-any\n",
        "hello_pkg-0.1.dist-info/entry_points.txt": "[console_scripts]\nhello-pkg = hello_pkg:main\n",
        "hello_pkg-0.1.dist-info/top_level.txt": "hello_pkg\n",
    }
    record = []
    for name, text in files.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (name, digest, len(data)))
    record.append("hello_pkg-0.1.dist-info/RECORD,,")
    files["hello_pkg-0.1.dist-info/RECORD"] = "\n".join(record) + "\n"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 2, 3, 4, 6))
            info.external_attr = 0o644 << 16
            z.writestr(info, text)


class PythonWorkload(WorkloadTest):
    def test_venv_without_pip(self):
        self.files({"app.py": "import sys\nprint(sys.prefix != sys.base_prefix)\n"})
        self.job("python3 -m venv --without-pip .venv\n"
                 ".venv/bin/python app.py > in-venv.txt\n"
                 ". .venv/bin/activate\n"
                 "python app.py > activated.txt\n"
                 "python3 -m venv --without-pip --clear .venv\n",
                 PY)

    def test_venv_with_pip_and_local_wheel(self):
        self.ws.mkdir("dist")
        make_wheel(self.p("dist/hello_pkg-0.1-py3-none-any.whl"))
        self.ws._own()
        ws = self.p()
        self.job("python3 -m venv .venv\n"
                 ".venv/bin/pip install --no-index dist/hello_pkg-0.1-py3-none-any.whl > pip.log\n"
                 ".venv/bin/hello-pkg > out.txt\n"
                 ".venv/bin/python -m pip list --format=freeze > freeze.txt\n"
                 ".venv/bin/pip uninstall -y -q hello-pkg\n"
                 ".venv/bin/pip install -q --no-index dist/hello_pkg-0.1-py3-none-any.whl\n",
                 PY + [ws + "/.venv/bin/pip", ws + "/.venv/bin/hello-pkg"],
                 timeout=300)

    def test_pytest(self):
        self.need("pytest")
        self.files({
            "pkg/__init__.py": "",
            "pkg/calc.py": "def add(a, b):\n    return a + b\n",
            "tests/conftest.py": "import sys, os\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n",
            "tests/test_calc.py":
                "import os, subprocess, sys\nimport pytest\nfrom pkg.calc import add\n\n"
                "@pytest.mark.parametrize('a,b,want', [(1, 2, 3), (2, 2, 4), (-1, 1, 0)])\n"
                "def test_add(a, b, want):\n    assert add(a, b) == want\n\n"
                "def test_tmp_path(tmp_path):\n    p = tmp_path / 'x.txt'\n    p.write_text('x')\n"
                "    assert p.read_text() == 'x'\n\n"
                "def test_monkeypatch(monkeypatch):\n    monkeypatch.setenv('WL', '1')\n"
                "    assert os.environ['WL'] == '1'\n\n"
                "def test_capsys(capsys):\n    print('hi')\n    assert capsys.readouterr().out == 'hi\\n'\n\n"
                "def test_subprocess():\n"
                "    out = subprocess.run([sys.executable, '-c', 'print(6*7)'], capture_output=True, text=True)\n"
                "    assert out.stdout == '42\\n'\n\n"
                "@pytest.mark.skip(reason='skipped on purpose')\ndef test_skipped():\n    pass\n",
        })
        self.job("python3 -m pytest -q tests\n"
                 "pytest -q -x -p no:cacheprovider tests\n"
                 "python3 -m pytest -q --junitxml=report.xml tests > /dev/null\n"
                 "echo passed > passed.txt\n",
                 PY + ["pytest"], volatile=("report.xml",))


if __name__ == "__main__":
    main()
