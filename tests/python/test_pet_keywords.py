"""The PET reconstruction layer from Python: glpet.reconstruct, safir.reconstruct and
strip.reconstruct take the scene keys of docs/pet.md as keywords and give the image the CLI's
run of the same scene gives (OSEM, MAP-RDP, the correction terms); a keyword that changes the
run changes the Python result the same way; bad values raise the CLI's words."""
import numpy as np
import pytest

import tomoraster

SAFIR = {"rings": 8, "crystals": 64, "image": [16, 16, 8], "voxel_mm": 1.0, "events": 20000, "iterations": 3,
         "randoms_fraction": 0.1,
         "phantom": {"cylinder_radius_mm": 8.0, "cylinder_length_mm": 8.0, "mu_per_mm": 0.0, "background": 1.0,
                     "derenzo": False, "hot_spot_activity": 4.0, "hot_spot_mm": [3.0, -2.0, 0.0]}}
STRIP = {"events": 20000, "iterations": 3, "write_events": True, "R": 100.0, "L": 200.0, "pixel_size": 5.0}
GLPET = {"voxels": [6, 6, 4], "voxel_mm": [3.0, 3.0, 3.0], "R": 1, "K": 8, "iterations": 3,
         "ring": {"modules": 8, "radius_mm": 16.0, "detectors": [6, 3], "pitch_mm": [2.0, 3.0], "span": 1},
         "activity": [{"type": "sphere", "centre": [2.0, 0.0, 0.0], "radius": 5.0, "value": 1.0}],
         "mc": {"histories": 200000}, "data": {"write": ["counts.npy"]}}

OSEM = {"algorithm": "osem", "subsets": 4}
MAP = {"algorithm": "map-rdp", "subsets": 2, "prior": {"beta": 0.05, "gamma": 2.0}}


def scene(problem, table, recon):
    return {"problem": problem, "backend": "cpu", problem: {**table, **recon}}


def nifti(path, shape):
    return tomoraster.read_nifti(str(path))[0].reshape(shape)


# --- safir -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def safir_runs(cli_run_scene):
    return {name: cli_run_scene(scene("safir", SAFIR, recon), f"safir_{name}")
            for name, recon in (("osem", OSEM), ("map", MAP))}


@pytest.fixture(scope="module")
def safir_data(safir_runs):
    ev, _, delayed = tomoraster.safir.events(safir_runs["osem"][0])
    assert delayed > 0  # the randoms of the simulation: the run's delayed-window estimate is used
    return ev, delayed


@pytest.mark.parametrize("name, recon", [("osem", OSEM), ("map", MAP)])
def test_safir_equals_the_cli(safir_runs, safir_data, name, recon):
    ev, delayed = safir_data
    p = tomoraster.safir.Projector(scene("safir", SAFIR, {}), backend="cpu")
    seen = []
    img = tomoraster.safir.reconstruct(p, ev, delayed=delayed, callback=lambda it, x: seen.append(it), **recon)
    ref = nifti(safir_runs[name][1] / "image.nii", p.image_shape)
    assert seen == [1, 2, 3]
    np.testing.assert_allclose(img, ref, rtol=1e-5, atol=1e-6 * float(ref.max()))
    # the projector keeps working on the events as given: ML-EM afterwards is the plain one
    plain = tomoraster.safir.mlem(p, ev, iterations=1)
    again = tomoraster.safir.mlem(tomoraster.safir.Projector(scene("safir", SAFIR, {}), backend="cpu"), ev, iterations=1)
    np.testing.assert_allclose(plain, again, rtol=1e-12)  # OpenMP sums in any order


def test_safir_keywords_change_the_result_as_the_cli(safir_runs, safir_data):
    ev, delayed = safir_data
    p = tomoraster.safir.Projector(scene("safir", SAFIR, {}), backend="cpu")
    osem = tomoraster.safir.reconstruct(p, ev, delayed=delayed, **OSEM)
    smooth = tomoraster.safir.reconstruct(p, ev, delayed=delayed, **MAP)
    ref_osem = nifti(safir_runs["osem"][1] / "image.nii", p.image_shape)
    ref_map = nifti(safir_runs["map"][1] / "image.nii", p.image_shape)
    # the prior smooths: the difference between the two results is the CLI's
    d, ref_d = smooth - osem, ref_map - ref_osem
    assert np.linalg.norm(ref_d) > 0.05 * np.linalg.norm(ref_osem)
    np.testing.assert_allclose(d, ref_d, atol=1e-5 * float(ref_osem.max()))


def test_safir_preconditioner_keyword(safir_data):
    ev, delayed = safir_data
    p = tomoraster.safir.Projector(scene("safir", SAFIR, {}), backend="cpu")
    default = tomoraster.safir.reconstruct(p, ev, delayed=delayed, **MAP)
    curvature = tomoraster.safir.reconstruct(p, ev, delayed=delayed, preconditioner="em-prior", **MAP)
    em = tomoraster.safir.reconstruct(p, ev, delayed=delayed, preconditioner="em", **MAP)
    np.testing.assert_allclose(default, curvature, rtol=1e-12)  # the default: the prior's curvature in D (OpenMP sums)
    # D = x/s takes other steps towards the same MAP point: after 3 iterations a different image
    assert np.linalg.norm(em - default) > 1e-3 * np.linalg.norm(default)


def test_safir_save_iterations_and_resume(safir_data):
    ev, delayed = safir_data
    p = tomoraster.safir.Projector(scene("safir", SAFIR, {}), backend="cpu")
    img, saved = tomoraster.safir.reconstruct(p, ev, iterations=3, delayed=delayed, save_iterations=[1, 2], **OSEM)
    assert sorted(saved) == [1, 2]
    # OSEM from the image after iteration 2, one more iteration: the third iteration's image
    last = tomoraster.safir.reconstruct(p, ev, iterations=1, delayed=delayed, initial_image=saved[2], **OSEM)
    np.testing.assert_allclose(last, img, rtol=1e-12, atol=1e-12 * float(img.max()))


# --- strip -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def strip_runs(cli_run_scene):
    return {name: cli_run_scene(scene("strip", STRIP, recon), f"strip_{name}")
            for name, recon in (("osem", OSEM), ("map", MAP))}


@pytest.mark.parametrize("name, recon", [("osem", OSEM), ("map", MAP)])
def test_strip_equals_the_cli(strip_runs, name, recon):
    path, out = strip_runs[name]
    ev = tomoraster.strip.read_events(out / "events.lm")
    p = tomoraster.strip.Projector(scene("strip", STRIP, {}), backend="cpu")
    rho, rho_prime = tomoraster.strip.reconstruct(p, ev, return_rho_prime=True, **recon)
    for got, file in ((rho, "rho.nii"), (rho_prime, "rho_prime.nii")):
        ref = nifti(out / file, p.image_shape)
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6 * float(ref.max()))


def test_strip_randoms_fraction_as_the_cli(cli_run_scene, strip_runs):
    ev = tomoraster.strip.read_events(strip_runs["osem"][1] / "events.lm")
    _, out = cli_run_scene(scene("strip", STRIP, {**OSEM, "randoms": {"fraction": 0.2}}), "strip_randoms")
    p = tomoraster.strip.Projector(scene("strip", STRIP, {}), backend="cpu")
    rho = tomoraster.strip.reconstruct(p, ev, randoms=0.2, **OSEM)  # a number is the fraction
    ref = nifti(out / "rho.nii", p.image_shape)
    plain = nifti(strip_runs["osem"][1] / "rho.nii", p.image_shape)
    assert np.linalg.norm(ref - plain) > 0.01 * np.linalg.norm(plain)
    np.testing.assert_allclose(rho, ref, rtol=1e-6, atol=1e-6 * float(ref.max()))


# --- glpet -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def glpet_runs(cli_run_scene):
    return {name: cli_run_scene(scene("glpet", GLPET, recon), f"glpet_{name}")
            for name, recon in (("osem", OSEM), ("map", MAP))}


@pytest.mark.parametrize("name, recon", [("osem", OSEM), ("map", MAP)])
def test_glpet_equals_the_cli(glpet_runs, name, recon):
    _, out = glpet_runs[name]
    p = tomoraster.glpet.Projector(scene("glpet", GLPET, {}), backend="cpu")
    y = np.load(out / "counts.npy")
    x = tomoraster.glpet.reconstruct(p, y, **recon)
    ref = nifti(out / "activity.nii", p.image_shape)
    np.testing.assert_allclose(x, ref, rtol=1e-6, atol=1e-6 * float(ref.max()))


def test_glpet_normalisation_array_is_the_file(tmp_path, glpet_runs):
    p = tomoraster.glpet.Projector(scene("glpet", GLPET, {}), backend="cpu")
    y = np.load(glpet_runs["osem"][1] / "counts.npy")
    n = np.random.default_rng(3).uniform(0.5, 1.0, p.lor_count)
    np.save(tmp_path / "n.npy", n)
    a = tomoraster.glpet.reconstruct(p, y, normalisation=n, **OSEM)
    b = tomoraster.glpet.reconstruct(p, y, normalisation=tmp_path / "n.npy", **OSEM)
    plain = tomoraster.glpet.reconstruct(p, y, **OSEM)
    np.testing.assert_array_equal(a, b)
    assert np.linalg.norm(a - plain) > 0.01 * np.linalg.norm(plain)


# --- the same keywords and refusals in the three modules ----------------------------------------

@pytest.fixture(scope="module")
def operators(safir_data, strip_runs, glpet_runs):
    ev_strip = tomoraster.strip.read_events(strip_runs["osem"][1] / "events.lm")
    y = np.load(glpet_runs["osem"][1] / "counts.npy")
    return {"safir": (tomoraster.safir, tomoraster.safir.Projector(scene("safir", SAFIR, {}), backend="cpu"), safir_data[0]),
            "strip": (tomoraster.strip, tomoraster.strip.Projector(scene("strip", STRIP, {}), backend="cpu"), ev_strip),
            "glpet": (tomoraster.glpet, tomoraster.glpet.Projector(scene("glpet", GLPET, {}), backend="cpu"), y)}


@pytest.mark.parametrize("problem", ["glpet", "safir", "strip"])
def test_bad_values_raise_the_clis_words(operators, problem):
    module, p, data = operators[problem]
    cases = [
        (dict(algorithm="ossem"), ValueError,
         f"key '{problem}.algorithm' (from --set) must be one of mlem, osem, map-rdp, osl-rdp, got 'ossem'"),
        (dict(subsets=4), ValueError,
         f"key '{problem}.subsets' (from --set) = 4 needs {problem}.algorithm = \"osem\" (or a MAP algorithm): "
         "ML-EM uses all the data in every step"),
        (dict(algorithm="osem", subsets=0), ValueError, f"key '{problem}.subsets' (from --set) must be in [1, 4096], got 0"),
        (dict(algorithm="osem", prior={"beta": 0.1}), ValueError,
         f"key '{problem}.prior.beta' (from --set) = 0.1 has no effect with {problem}.algorithm = \"osem\": use \"map-rdp\" or \"osl-rdp\""),
        (dict(algorithm="map-rdp", prior={"beat": 0.1}), TypeError,
         f"{problem}.reconstruct: prior: unknown keyword 'beat' (did you mean 'beta'?)"),
        (dict(randoms={"fraction": 0.6}, scatter={"fraction": 0.5}), ValueError,
         f"key '{problem}.scatter.fraction' (from --set): randoms and scatter fractions add up to 1.1; "
         "the prompts would hold no trues"),
        (dict(randoms={"fractoin": 0.1}), TypeError,
         f"{problem}.reconstruct: randoms: unknown keyword 'fractoin' (did you mean 'fraction'?)"),
        (dict(save_iterations=[99]), ValueError,
         f"key '{problem}.save_iterations' (from --set): iteration 99 is outside 1..3"),
        (dict(initial_image=np.ones((2, 2, 2))), ValueError, f"{problem}.reconstruct: initial_image has shape"),
        (dict(attenuation_map=3), TypeError, f"{problem}.reconstruct: attenuation_map: a path"),
        (dict(algorithm="map-rdp", preconditioner="newton"), ValueError,
         f"key '{problem}.preconditioner' (from --set) must be one of em-prior, em, got 'newton'"),
    ]
    for kwargs, error, words in cases:
        with pytest.raises(error) as e:
            module.reconstruct(p, data, **kwargs)
        assert words in str(e.value), (kwargs, str(e.value))
    with pytest.raises(TypeError, match="unexpected keyword argument 'subset'"):
        module.reconstruct(p, data, subset=4)


def test_glpet_attenuation_map_as_the_cli(cli_run_scene, tmp_path, glpet_runs):
    mu = np.full((4, 6, 6), 0.5, np.float32)  # cm⁻¹ on the image's grid (z, y, x)
    path = tmp_path / "mu.hv"
    tomoraster.write_interfile(str(path), mu, voxel_mm=(3.0, 3.0, 3.0), quantity="attenuation", unit="1/cm")
    _, out = cli_run_scene(scene("glpet", GLPET, {**OSEM, "attenuation_map": str(path)}), "glpet_mu")
    p = tomoraster.glpet.Projector(scene("glpet", GLPET, {}), backend="cpu")
    y = np.load(out / "counts.npy")
    x = tomoraster.glpet.reconstruct(p, y, attenuation_map=path, **OSEM)
    ref = nifti(out / "activity.nii", p.image_shape)
    np.testing.assert_allclose(x, ref, rtol=1e-6, atol=1e-6 * float(ref.max()))
    # the projector itself is unchanged: without the map the result is the unattenuated one
    plain = tomoraster.glpet.reconstruct(p, y, **OSEM)
    assert np.linalg.norm(plain - x) > 0.01 * np.linalg.norm(x)


def test_safir_normalisation_array_as_the_cli(cli_run_scene, tmp_path, safir_data):
    ev, delayed = safir_data
    eff = np.random.default_rng(5).uniform(0.6, 1.0, 8 * 64)  # one efficiency per crystal
    np.save(tmp_path / "eff.npy", eff)
    _, out = cli_run_scene(scene("safir", SAFIR, {**OSEM, "normalisation": str(tmp_path / "eff.npy")}), "safir_norm")
    p = tomoraster.safir.Projector(scene("safir", SAFIR, {}), backend="cpu")
    img = tomoraster.safir.reconstruct(p, ev, delayed=delayed, normalisation=eff, **OSEM)
    ref = nifti(out / "image.nii", p.image_shape)
    np.testing.assert_allclose(img, ref, rtol=1e-5, atol=1e-6 * float(ref.max()))
    # afterwards the projector's plain sensitivity is back: ML-EM as on a fresh projector
    again = tomoraster.safir.Projector(scene("safir", SAFIR, {}), backend="cpu")
    np.testing.assert_allclose(tomoraster.safir.mlem(p, ev, iterations=1),
                               tomoraster.safir.mlem(again, ev, iterations=1), rtol=1e-12)


@pytest.mark.parametrize("problem", ["glpet", "safir", "strip"])
def test_projector_keywords_are_the_reconstructions(operators, problem):
    """The same keys given to the projector (its scene) run the same reconstruction."""
    module, p, data = operators[problem]
    table = {"glpet": GLPET, "safir": SAFIR, "strip": STRIP}[problem]
    q = module.Projector(scene(problem, table, {}), backend="cpu", **MAP)
    a = module.reconstruct(q, data)
    b = module.reconstruct(p, data, **MAP)
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * float(np.max(b)))
    assert np.linalg.norm(module.reconstruct(p, data) - b) > 0.01 * np.linalg.norm(b)  # ML-EM differs


@pytest.mark.parametrize("problem", ["glpet", "safir", "strip"])
def test_gl_compute_equals_cpu(operators, problem):
    """MAP-RDP with subsets on gl-compute (its passes and its prior shader) against cpu."""
    module, p, data = operators[problem]
    table = {"glpet": GLPET, "safir": SAFIR, "strip": STRIP}[problem]
    gl = module.Projector(scene(problem, table, {}), backend="gl-compute")
    a = module.reconstruct(gl, data, **MAP)
    b = module.reconstruct(p, data, **MAP)
    assert np.linalg.norm(a - b) <= 1e-4 * np.linalg.norm(b)
