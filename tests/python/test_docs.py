"""The docs' Python snippets and the examples run as written, on the install under test.

Every ```python block of docs/*.md runs, page by page, in order in one namespace inside a fresh
folder (a snippet may use the names of the ones before it on its page), and twice, so that a
snippet that only works once (an output folder left by the first run) fails here. A block whose
first line is "# GPU only" needs a CUDA device and CuPy: it is skipped without them; every other
block must run on a CPU-only install. examples/*.py run as scripts; their printed numbers are
checked where they say something.
"""
import os
import pathlib
import re
import runpy
import sys

import pytest

import tomoraster

ROOT = pathlib.Path(__file__).resolve().parents[2]
GPU_MARK = "# GPU only"


def python_blocks(page: pathlib.Path):
    return re.findall(r"^```python\n(.*?)^```", page.read_text(), flags=re.S | re.M)


def gpu_missing():
    if not tomoraster.info()["problems"]["glpet"]["backends"].get("cuda", {}).get("available"):
        return "no CUDA device or a build without CUDA"
    try:
        __import__("cupy")
    except ImportError:
        return "CuPy is not installed"
    return None


PAGES = sorted(p for p in (ROOT / "docs").glob("*.md") if python_blocks(p))


def test_the_python_page_has_snippets_for_a_cpu_user():
    blocks = python_blocks(ROOT / "docs" / "python.md")
    assert len([b for b in blocks if not b.startswith(GPU_MARK)]) >= 2
    assert ROOT / "docs" / "python.md" in PAGES


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_docs_snippets_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(page)
    why = gpu_missing()
    ran = 0
    for attempt in range(2):  # twice: the second run finds the first's outputs
        namespace = {"__name__": "__docs__"}
        for i, block in enumerate(blocks):
            if block.startswith(GPU_MARK) and why:
                continue
            try:
                exec(compile(block, f"{page.name} python block {i + 1}", "exec"), namespace)
            except Exception as e:  # name the block and the run in the failure
                pytest.fail(f"{page.name} python block {i + 1} (run {attempt + 1}) raised {type(e).__name__}: {e}")
            ran += 1
    assert ran >= 2


def run_example(name, capsys, monkeypatch, tmp_path, *args):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [name, *args])
    runpy.run_path(str(ROOT / "examples" / name), run_name="__main__")
    return capsys.readouterr().out


def test_example_fdk_own_stack_reconstructs_the_ball(capsys, monkeypatch, tmp_path):
    out = run_example("fdk_own_stack.py", capsys, monkeypatch, tmp_path)
    centre = float(re.search(r"centre ([-0-9.e]+)", out).group(1))
    outside = float(re.search(r"outside the ball ([-0-9.e]+)", out).group(1))
    mu = float(re.search(r"true ([-0-9.e]+)", out).group(1))
    assert abs(centre - mu) <= 0.05 * mu, out
    assert abs(outside) <= 0.05 * mu, out


def test_example_reconstruct_scene_writes_its_mip(capsys, monkeypatch, tmp_path):
    pytest.importorskip("matplotlib", reason="the examples extra (pip install .[examples]) brings matplotlib")
    out = run_example("reconstruct_scene.py", capsys, monkeypatch, tmp_path, "strip_default.toml", "--backend", "cpu",
                      "--set", "strip.events=20000", "--set", "strip.iterations=2")
    png = tmp_path / "out" / "python-example" / "mip_matplotlib.png"
    assert png.is_file() and png.stat().st_size > 1000, out
    assert "strip on cpu" in out


def test_example_gpu_arrays_needs_a_gpu(capsys, monkeypatch, tmp_path):
    why = gpu_missing()
    if why:
        pytest.skip(why)
    run_example("gpu_arrays.py", capsys, monkeypatch, tmp_path)
