"""pytest setup: the tomoraster CLI binary for the cross-checks with the C++ side
(TOMORASTER_CLI, set by tools/test.sh to build/apps/tomoraster)."""
import os
import shutil
import subprocess

import pytest

import tomoraster
from tomoraster._scene import to_toml


def pytest_configure(config):
    tomoraster.quiet()


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("TOMORASTER_CLI") or shutil.which("tomoraster")
    if not path or not os.path.exists(path):
        pytest.fail("the tomoraster CLI is needed for the CLI cross-checks: set TOMORASTER_CLI (tools/test.sh does)")
    return path


@pytest.fixture(scope="session")
def cli_run_scene(cli, tmp_path_factory):
    """run(scene dict, name): the CLI runs the scene into a fresh folder; (scene path, output folder)."""
    def run(scene, name):
        d = tmp_path_factory.mktemp(name)
        path = d / "scene.toml"
        path.write_text(to_toml(scene))
        subprocess.run([cli, "-q", "run", str(path), "-o", str(d / "out")], check=True, stdout=subprocess.DEVNULL)
        return path, d / "out"
    return run


def _gpu_missing():
    """Why the gpu-marked tests cannot run here, or None."""
    backends = tomoraster.info()["problems"]["glpet"]["backends"]
    if not backends.get("cuda", {}).get("available"):
        return "no CUDA device (or a module built without CUDA): run with -m gpu on the GPU machine"
    for name in ("cupy", "torch"):
        try:
            __import__(name)
            return None
        except ImportError:
            pass
    return "neither CuPy nor PyTorch is installed"


def pytest_collection_modifyitems(config, items):
    gpu_items = [item for item in items if "gpu" in item.keywords]
    why = _gpu_missing() if gpu_items else None
    for item in gpu_items if why else []:
        item.add_marker(pytest.mark.skip(reason=why))
