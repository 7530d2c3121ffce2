"""oat's model and reconstructions from Python: FBP and PLS equal the CLI on the same scene, the
adjoint identity of H, gl-compute against cpu, keyword geometry, bad arrays."""
import numpy as np
import pytest

import tomoraster

OAT = {"grid": [14, 14, 14], "voxel_mm": 1.0, "rings": 6, "views": 12, "radius_mm": 25.0,
       "pls": {"iterations": 3}}
SCENE = {"problem": "oat", "backend": "cpu", "oat": OAT}


@pytest.fixture(scope="module")
def cli_run(cli_run_scene):
    return cli_run_scene(SCENE, "oat")


@pytest.fixture(scope="module")
def model(cli_run):
    return tomoraster.oat.Model(cli_run[0], backend="cpu")


def test_fbp_and_pls_equal_the_cli(cli_run, model):
    scene, out = cli_run
    u, phantom, positions = tomoraster.oat.acquire(scene)
    assert u.shape == model.data_shape == (72, u.shape[1]) and positions.shape == (72, 3)
    assert phantom.shape == model.image_shape == (14, 14, 14)
    for name, img in (("fbp", tomoraster.oat.fbp(u, scene, backend="cpu")),
                      ("pls", tomoraster.oat.pls(model, u))):
        ref, _, _ = tomoraster.read_nifti(str(out / (name + ".nii")))
        np.testing.assert_allclose(img, ref, rtol=1e-5, atol=1e-6 * float(np.abs(ref).max()), err_msg=name)


def test_pls_callback_sees_each_iteration(cli_run, model):
    u, _, _ = tomoraster.oat.acquire(cli_run[0])
    seen = []
    tomoraster.oat.pls(model, u, iterations=2, callback=lambda it, obj, res: seen.append((it, obj)))
    assert [it for it, _ in seen] == [1, 2] and seen[1][1] <= seen[0][1]


def test_adjoint_identity(model):
    rng = np.random.default_rng(6)
    a = rng.random(model.image_shape)
    u = rng.random(model.data_shape)
    lhs = float(np.sum(model.forward(a) * u))
    rhs = float(np.sum(a * model.adjoint(u)))
    assert abs(lhs - rhs) <= 1e-12 * abs(lhs)  # the cpu model is an exact transpose (docs/oat.md)


def test_gl_compute_equals_cpu(model):
    gl = tomoraster.oat.Model(backend="gl-compute", **OAT)
    a = np.random.default_rng(7).random(model.image_shape)
    ref = model.forward(a)
    assert np.linalg.norm(gl.forward(a) - ref) <= 1e-4 * np.linalg.norm(ref)  # exact fp32 paths (oat crosscheck)


def test_reproducible_key():
    """oat.model.reproducible through set=: cpu sums in a fixed order anyway (the same numbers);
    gl-compute's transpose adds floats in a varying order, so it refuses the key at once."""
    rep = tomoraster.oat.Model(backend="cpu", set={"oat.model.reproducible": True}, **OAT)
    default = tomoraster.oat.Model(backend="cpu", **OAT)
    u = np.random.default_rng(8).random(default.data_shape)
    first = rep.adjoint(u)
    np.testing.assert_array_equal(rep.adjoint(u), first)
    np.testing.assert_array_equal(default.adjoint(u), first)
    with pytest.raises(ValueError, match="oat.model.reproducible: gl-compute"):
        tomoraster.oat.Model(backend="gl-compute", set={"oat.model.reproducible": True}, **OAT)


def test_bad_arrays_raise(model):
    with pytest.raises(TypeError, match="alpha: dtype must be float64"):
        model.forward(np.zeros(model.image_shape, dtype=np.float32))
    with pytest.raises(ValueError, match="u: shape"):
        model.adjoint(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="out: only with CUDA arrays"):  # NumPy results come back new
        model.forward(np.zeros(model.image_shape), out=np.empty(model.data_shape, dtype=np.float32))
    with pytest.raises(ValueError, match="oat.grid"):
        tomoraster.oat.Model(backend="cpu", grid=[0, 4, 4])
