"""tomoraster.oat.pls with the TV penalty and the bound: equal to the CLI's run of the same
scene and keys, α ≥ 0 with nonnegative=True, and the CLI's words for bad keywords."""
import numpy as np
import pytest

import tomoraster

OAT = {"grid": [12, 12, 12], "voxel_mm": 1.0, "rings": 4, "views": 8, "radius_mm": 25.0,
       "pls": {"iterations": 4, "mu": 0.1, "regulariser": "tv", "nonnegative": True}}
SCENE = {"problem": "oat", "backend": "cpu", "oat": OAT}


@pytest.fixture(scope="module")
def tv_run(cli_run_scene):
    return cli_run_scene(SCENE, "oat_tv")


@pytest.fixture(scope="module")
def model(tv_run):
    return tomoraster.oat.Model(tv_run[0], backend="cpu")


def test_tv_pls_from_the_scene_equals_the_cli(tv_run, model):
    scene, out = tv_run
    u, _, _ = tomoraster.oat.acquire(scene)
    img = tomoraster.oat.pls(model, u)
    ref, _, _ = tomoraster.read_nifti(str(out / "pls.nii"))
    np.testing.assert_allclose(img, ref, rtol=1e-5, atol=1e-6 * float(np.abs(ref).max()))
    assert img.min() >= 0.0


def test_keywords_choose_the_penalty_and_the_bound(tv_run, model):
    u, _, _ = tomoraster.oat.acquire(tv_run[0])
    quadratic = tomoraster.oat.pls(model, u, regulariser="quadratic", nonnegative=False, mu=0.0)
    assert quadratic.min() < 0.0  # unbounded CG rings below zero on 4 x 8 transducers
    bounded = tomoraster.oat.pls(model, u, regulariser="quadratic", nonnegative=True, mu=0.0)
    assert bounded.min() >= 0.0
    objectives = []
    tomoraster.oat.pls(model, u, regulariser="tv", mu=0.1, callback=lambda it, obj, res: objectives.append(obj))
    assert len(objectives) == 4 and all(b <= a for a, b in zip(objectives, objectives[1:]))


@pytest.mark.parametrize("kwargs,words", [
    ({"regulariser": "l1"}, "oat.pls.regulariser"),
    ({"mu": -1.0}, "oat.pls.mu"),
])
def test_bad_keywords_are_refused_in_the_clis_words(tv_run, model, kwargs, words):
    u, _, _ = tomoraster.oat.acquire(tv_run[0])
    with pytest.raises(ValueError) as e:
        tomoraster.oat.pls(model, u, **kwargs)
    assert words in str(e.value)
