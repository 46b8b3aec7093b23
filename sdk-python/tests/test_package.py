"""The package as it ships: an sdist built by setuptools' own build backend (the standard tooling
present without `wheel`), whose unpacked copy imports and runs."""

import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent
PACKAGE = "service-sdk-0.1.0/service_sdk/"
MODULES = [
    "__init__.py",
    "client.py",
    "errors.py",
    "py.typed",
    "server_sent_events.py",
    "transport.py",
]
BUILD = "from setuptools import build_meta; print(build_meta.build_sdist('../dist'))"
IMPORT = "import service_sdk; print(service_sdk.__file__, service_sdk.__version__)"


class ThePackage(unittest.TestCase):
    def test_builds_as_an_sdist_that_imports_from_its_unpacked_copy(self):
        with tempfile.TemporaryDirectory() as work:
            # Built from a copy: the build writes its egg-info beside the sources.
            copy = Path(work, "source")
            shutil.copytree(SOURCE, copy, ignore=shutil.ignore_patterns("tests", "__pycache__"))
            built = subprocess.run(
                [sys.executable, "-c", BUILD],
                cwd=copy,
                capture_output=True,
                text=True,
            )
            self.assertEqual(built.returncode, 0, built.stderr)
            name = built.stdout.strip().splitlines()[-1]
            self.assertEqual(name, "service-sdk-0.1.0.tar.gz")

            unpacked = Path(work, "unpacked")
            with tarfile.open(Path(work, "dist", name)) as sdist:
                shipped = sorted(
                    member.name.removeprefix(PACKAGE)
                    for member in sdist.getmembers()
                    if member.isfile() and member.name.startswith(PACKAGE)
                )
                self.assertEqual(shipped, MODULES)
                for module in MODULES:
                    target = Path(unpacked, "service_sdk", module)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(sdist.extractfile(PACKAGE + module).read())
                metadata = sdist.extractfile("service-sdk-0.1.0/PKG-INFO").read().decode()
            self.assertIn("Name: service-sdk\n", metadata)
            self.assertIn("Requires-Python: >=3.11\n", metadata)

            imported = subprocess.run(
                [sys.executable, "-c", IMPORT],
                cwd=work,
                env={"PYTHONPATH": str(unpacked)},
                capture_output=True,
                text=True,
            )
            self.assertEqual(imported.returncode, 0, imported.stderr)
            where, version = imported.stdout.split()
            self.assertTrue(where.startswith(str(unpacked)), where)
            self.assertEqual(version, "0.1.0")
