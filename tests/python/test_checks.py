"""Arguments checked as the CLI checks them: the same ranges and words for iterations and μ
(one C++ reader for both), unknown keywords, None and wrong types, empty arrays, the layouts of
fdk's stacks and glpet's counts, folders given as event files."""
import re
import subprocess

import numpy as np
import pytest

import tomoraster
from tomoraster import _checks

SMALL = {"glpet.voxels": [8, 8, 8], "glpet.voxel_mm": [4.0, 4.0, 4.0]}


def cli_error(cli, tmp_path, scene, key, value):
    r = subprocess.run([cli, "-q", "run", scene, "--set", f"{key}={value}", "-o", str(tmp_path / "o")],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    return r.stderr.strip().splitlines()[-1]


def after_source(message):
    """The message from "key '...'" on (the scene's source differs: a file, Python arguments)."""
    return message[message.index("key '"):]


@pytest.fixture(scope="module")
def glpet_small():
    return tomoraster.glpet.Projector("glpet_small.toml", backend="cpu", set=SMALL)


@pytest.fixture(scope="module")
def oat_small():
    return tomoraster.oat.Model("oat_default.toml", backend="cpu", grid=[8, 8, 8], voxel_mm=2.0, rings=4, views=8)


@pytest.fixture(scope="module")
def safir_small():
    return tomoraster.safir.Projector("safir_default.toml", backend="cpu", rings=4, crystals=32, image=[8, 8, 4])


@pytest.mark.parametrize("scene,key,value", [
    ("glpet_small.toml", "glpet.iterations", -1),
    ("oat_default.toml", "oat.pls.iterations", -1),
    ("oat_default.toml", "oat.pls.mu", -1.0),
    ("oat_default.toml", "oat.pls.mu", float("nan")),
    ("safir_default.toml", "safir.iterations", 0),
    ("strip_default.toml", "strip.iterations", -3),
])
def test_python_refuses_what_the_cli_refuses_in_its_words(cli, tmp_path, glpet_small, oat_small, safir_small,
                                                          scene, key, value):
    cli_message = cli_error(cli, tmp_path, scene, key, "nan" if value != value else value)
    if key.startswith("glpet"):
        y = np.ones(glpet_small.lor_count, np.float32)
        call = lambda: tomoraster.glpet.mlem(glpet_small, y, iterations=value)  # noqa: E731
    elif key == "oat.pls.iterations":
        call = lambda: tomoraster.oat.pls(oat_small, np.zeros(oat_small.data_shape), iterations=value)  # noqa: E731
    elif key == "oat.pls.mu":
        call = lambda: tomoraster.oat.pls(oat_small, np.zeros(oat_small.data_shape), iterations=1, mu=value)  # noqa: E731
    elif key.startswith("safir"):
        ev = np.array([[0, 16], [1, 17]], np.uint32)
        call = lambda: tomoraster.safir.mlem(safir_small, ev, iterations=value)  # noqa: E731
    else:
        s = tomoraster.strip.Projector("strip_default.toml", backend="cpu")
        ev = np.zeros((4, 3), np.float32)
        call = lambda: tomoraster.strip.mlem(s, ev, iterations=value)  # noqa: E731
    with pytest.raises(ValueError) as e:
        call()
    assert after_source(str(e.value)) == after_source(cli_message)


def test_measured_data_must_be_finite_and_not_negative(glpet_small, oat_small, safir_small):
    y = np.ones(glpet_small.lor_count, np.float32)
    y[3] = -1
    with pytest.raises(ValueError, match=r"glpet.mlem: y\[3\] = -1: counts must be finite and >= 0"):
        tomoraster.glpet.mlem(glpet_small, y, iterations=1)
    y[3] = np.nan
    with pytest.raises(ValueError, match=r"y\[3\] = nan"):
        tomoraster.glpet.mlem(glpet_small, y, iterations=1)
    u = np.zeros(oat_small.data_shape)
    u[0, 2] = np.nan
    with pytest.raises(ValueError, match=r"oat.pls: u\[2\] = nan is not finite"):
        tomoraster.oat.pls(oat_small, u, iterations=1)
    with pytest.raises(ValueError, match="randoms_per_lor must be finite and >= 0, got nan"):
        tomoraster.safir.mlem(safir_small, np.array([[0, 16]], np.uint32), iterations=1, randoms_per_lor=np.nan)


def test_a_typo_in_a_keyword_is_a_type_error_with_the_closest_key():
    with pytest.raises(TypeError, match=r"oat: unknown keyword 'grdi' \(did you mean 'grid'\?\)"):
        tomoraster.oat.Model(grdi=[8, 8, 8])
    with pytest.raises(TypeError, match=r"unknown keyword 'pls.iteratons' \(did you mean 'pls.iterations'\?\)"):
        tomoraster.oat.Fbp(pls={"iteratons": 3})
    with pytest.raises(TypeError, match=r"strip: unknown keyword 'pixel_sise' \(did you mean 'pixel_size'\?\)"):
        tomoraster.strip.Projector(pixel_sise=4)
    with pytest.raises(TypeError, match=r"glpet: unknown keyword 'voxls' \(did you mean 'voxels'\?\)"):
        tomoraster.glpet.Projector("glpet_small.toml", voxls=[8, 8, 8])


def test_glpet_projector_takes_toml_keywords(glpet_small):
    p = tomoraster.glpet.Projector("glpet_small.toml", backend="cpu", voxels=[8, 8, 8], voxel_mm=[4.0] * 3)
    assert p.image_shape == glpet_small.image_shape == (8, 8, 8)
    x = np.random.default_rng(1).random(p.image_shape, dtype=np.float32)
    np.testing.assert_array_equal(p.forward(x), glpet_small.forward(x))
    assert "glpet.Projector(backend='cpu'" in repr(p)
    default = tomoraster.glpet.Projector(backend="cpu", voxels=[8, 8, 8])  # None: the embedded default scene
    assert default.image_shape == (8, 8, 8)


def test_none_and_wrong_types_are_named(tmp_path):
    with pytest.raises(TypeError, match=r"msr: a path \(str or os.PathLike\) is needed, got NoneType"):
        tomoraster.musr.Fit(None)
    with pytest.raises(TypeError, match="path: a path"):
        tomoraster.read_nifti(None)
    with pytest.raises(TypeError, match=r"set: a dict \{key: value\} is needed .*got list"):
        tomoraster.run("strip_default.toml", set=["strip.iterations=2"], out=str(tmp_path / "o"))
    with pytest.raises(TypeError, match="scene: a path, an embedded scene's name, a dict or None is needed, got int"):
        tomoraster.strip.Projector(3)


def test_empty_arrays_say_empty(glpet_small):
    with pytest.raises(ValueError, match=r"events: is empty \(shape \(0, 3\)\)"):
        tomoraster.strip.Projector("strip_default.toml", backend="cpu").set_events(np.zeros((0, 3), np.float32))
    with pytest.raises(ValueError, match=r"events: is empty \(shape \(0, 2\)\)"):
        tomoraster.safir.Projector("safir_default.toml", backend="cpu", image=[8, 8, 4]).set_events(
            np.zeros((0, 2), np.uint32))


def test_a_folder_is_not_an_event_file(tmp_path):
    with pytest.raises(ValueError, match="events file is a folder"):
        tomoraster.strip.read_events(tmp_path)


def test_cuda_on_a_build_without_it_says_so():
    if "cuda" in tomoraster.info()["problems"]["strip"]["backends"]:
        pytest.skip("this build has CUDA: the backend exists (the error would be about the device)")
    with pytest.raises(tomoraster.UnavailableError, match="built without CUDA"):
        tomoraster.strip.Projector("strip_default.toml", backend="cuda")


def test_existing_output_folder_names_force_true(tmp_path):
    args = dict(set={"strip.events": 2000, "strip.iterations": 1, "strip.save_iterations": []}, backend="cpu", out=str(tmp_path / "o"), load=False)
    tomoraster.run("strip_default.toml", **args)
    with pytest.raises(ValueError, match="exists; pass force=True to write into it"):
        tomoraster.run("strip_default.toml", **args)
    assert tomoraster.run("strip_default.toml", force=True, **args)["problem"] == "strip"


def circular(n, rows=16, cols=20):
    mats = []
    for a in np.linspace(0, 2 * np.pi, n, endpoint=False):
        c, s = np.cos(a), np.sin(a)
        R = np.array([[-s, c, 0.0], [0.0, 0.0, 1.0], [c, s, 0.0]])
        K = np.array([[800.0, 0, (cols - 1) / 2], [0, 800.0, (rows - 1) / 2], [0, 0, 1]])
        mats.append(K @ np.hstack([R, [[0.0], [0.0], [400.0]]]))
    return np.array(mats)


def test_fdk_refuses_astra_layout_and_nan_matrices():
    mats = circular(16)
    ours = np.ones((16, 8, 20), np.float32)  # (N, rows, cols)
    astra = np.ascontiguousarray(ours.transpose(1, 0, 2))  # (rows, N, cols): 8 divides 16, chunks "fit"
    with pytest.raises(ValueError, match=r"matrices: shape \(16, 3, 4\) for projections of shape \(8, 16, 20\), which is "
                                         r"\(N, rows, cols\) = 8 projections.*ASTRA's \(rows, N, cols\) layout: "
                                         r"numpy.moveaxis"):
        tomoraster.fdk.fdk(astra, mats, [8] * 3, [2.0] * 3, backend="cpu", chunk=8)
    bp = tomoraster.fdk.Backprojector([8] * 3, [2.0] * 3, backend="cpu")
    with pytest.raises(ValueError, match="matrices: shape"):
        bp.backproject(astra, mats)
    bad = mats.copy()
    bad[5, 1, 2] = np.nan
    with pytest.raises(ValueError, match="matrices: matrix 5, row 1, column 2 is not finite"):
        bp.backproject(ours, bad)
    assert "volume_shape=(8, 8, 8)" in repr(bp)


def test_glpet_takes_the_cli_counts_npy_layout(cli, tmp_path, glpet_small):
    sets = [f"--set={k}={v}" for k, v in SMALL.items()] + ["--set=glpet.iterations=1",
                                                           '--set=glpet.data.write=["counts.npy","counts.nii"]']
    sets = [s.replace(" ", "") for s in sets]
    subprocess.run([cli, "-q", "run", "glpet_small.toml", "--backend", "cpu", *sets, "-o", str(tmp_path / "g")],
                   check=True, capture_output=True)
    five = np.load(tmp_path / "g" / "counts.npy")
    flat = tomoraster.read_nifti(tmp_path / "g" / "counts.nii")[0].ravel()  # the atlases, u fastest: LOR order
    assert five.ndim == 5 and five.sum() > 0
    np.testing.assert_array_equal(glpet_small.lors(five), flat)
    np.testing.assert_array_equal(glpet_small.back(five), glpet_small.back(np.ascontiguousarray(flat)))
    x5 = tomoraster.glpet.mlem(glpet_small, five, iterations=2)
    x1 = tomoraster.glpet.mlem(glpet_small, flat, iterations=2)
    np.testing.assert_array_equal(x5, x1)
    with pytest.raises(ValueError, match=re.escape(f"y: shape {five.shape[:2] + (-1,)}"[:-4])):
        glpet_small.back(five.reshape(five.shape[0], five.shape[1], -1))


def test_run_with_fewer_iterations_than_the_scene_saves(tmp_path):
    """The scene's save_iterations past the iterations set are dropped (the CLI's --set alike)."""
    rep = tomoraster.run("strip_default.toml", backend="cpu", out=str(tmp_path / "o"),
                         set={"strip.events": 2000, "strip.iterations": 2})
    assert rep["problem"] == "strip" and "rho" in rep["volumes"]
    assert [n for n in rep["outputs"] if n.startswith("rho_prime_iter") and n.endswith(".nii")] == ["rho_prime_iter001.nii"]


def test_the_cuda_backend_missing_from_the_build_is_said_so():
    """The registry of a build without CUDA does not know the name: Python says why."""
    def registry(*_):
        raise ValueError("unknown backend 'cuda' (this problem has: cpu, gl-compute, auto)")
    with pytest.raises(tomoraster.UnavailableError, match="backend 'cuda': this tomoraster was built without CUDA"):
        _checks.call(registry)
    def other(*_):
        raise ValueError("unknown backend 'cdua' (this problem has: cpu, auto)")
    with pytest.raises(ValueError, match="unknown backend 'cdua'"):
        _checks.call(other)
