"""tomoraster.pet.LineProjector (Joseph's LOR-driven projector): closed-form chord lengths through
a uniform ball and through the grid's box along glpet's LORs, the adjoint identity in double, the
refusals of bad input; in TOF list mode the sum over all bins against the non-TOF values, a point's
profile against the binned Gaussian, the adjoint and the refusals of bad TOF input; on the GPU
(marker gpu) the cuda backend on CuPy arrays against cpu, non-TOF and TOF."""
import math

import numpy as np
import pytest

import tomoraster
from tomoraster import glpet, pet


def ball_lines(n, radius, seed):
    """Lines of 400 mm through points at distance d < 0.9 R from the origin, random directions;
    (end points (n, 2, 3), exact chords through the ball 2 sqrt(R² − d²))."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=(n, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    w = rng.normal(size=(n, 3))
    w -= np.sum(w * u, axis=1, keepdims=True) * u
    w /= np.linalg.norm(w, axis=1, keepdims=True)
    d = 0.9 * radius * np.sqrt(rng.random(n))
    c = d[:, None] * w
    return np.stack([c - 200 * u, c + 200 * u], axis=1), 2 * np.sqrt(radius ** 2 - d ** 2)


def centred(shape, voxel):
    """origin (x, y, z) of a grid of (nz, ny, nx) centred on 0."""
    return tuple(-0.5 * (n - 1) * v for n, v in zip(shape[::-1], voxel))


def test_uniform_ball_gives_chord_lengths():
    shape, voxel, radius = (40, 44, 48), (1.0, 1.0, 1.0), 18.0
    origin = centred(shape, voxel)
    z, y, x = np.meshgrid(*[o + np.arange(n) * v for o, n, v in zip(origin[::-1], shape, voxel[::-1])], indexing="ij")
    ball = (x * x + y * y + z * z <= radius ** 2).astype(np.float64)
    ends, chords = ball_lines(1500, radius, 3)
    A = pet.LineProjector(ends, shape, voxel, origin, backend="cpu")
    assert A.in_shape == shape and A.out_shape == (1500,)
    err = A.forward(ball) - chords
    # each end of a chord may be off by a step (≤ √3 voxels); no bias beyond a fraction of a voxel
    assert np.max(np.abs(err)) < 2 * np.sqrt(3) * voxel[0]
    assert abs(err.mean()) < 0.15 * voxel[0]


def test_glpet_lors_through_the_box():
    """On a grid wider than the modules (28 × 28 voxels of 2.5 mm against 16 detectors of 4 mm) every
    LOR crosses the grid through its z faces and stays inside its outermost voxel centres: the
    forward projection of ones is the box's length along each line, nz·v_z·|p2 − p1| / |Δz|."""
    G = glpet.Projector("glpet_small.toml", backend="cpu", voxels=[28, 28, 24])
    ends, origin, voxel = G.lor_endpoints()
    A = pet.LineProjector(ends, G.image_shape, voxel, origin, backend="cpu")
    assert A.out_shape == (G.lor_count,)
    d = ends[:, 1] - ends[:, 0]
    length = G.image_shape[0] * voxel[2] * np.linalg.norm(d, axis=1) / np.abs(d[:, 2])
    np.testing.assert_allclose(A.forward(np.ones(G.image_shape)), length, rtol=1e-12)


def test_adjoint_identity_in_double():
    shape, voxel, origin = (11, 13, 17), (0.8, 1.1, 1.7), (-3.0, 2.0, 1.0)
    rng = np.random.default_rng(5)
    lo = np.array(origin) - 0.5 * np.array(voxel) - 10
    hi = lo + np.array(shape[::-1]) * voxel + 20
    ends = lo + (hi - lo) * rng.random((4000, 6)).reshape(4000, 2, 3)
    A = pet.LineProjector(ends.reshape(4000, 6), shape, voxel, origin)
    x, y = rng.random(shape), rng.random(4000)
    lhs, rhs = np.vdot(A.forward(x), y), np.vdot(x, A.back(y))
    assert lhs > 1 and abs(lhs - rhs) < 1e-10 * lhs
    np.testing.assert_array_equal(A.forward(x.astype(np.float32)), A.forward(x.astype(np.float32).astype(np.float64)))


@pytest.mark.parametrize("args, words", [
    (dict(endpoints=np.zeros((3, 5))), "endpoints must have shape (N, 2, 3) or (N, 6), got (3, 5)"),
    (dict(endpoints=np.array([[0, 0, -9, 0, 0, 9], [0, 1, -9, 0, np.nan, 9.0]])),
     "end points of line 1 are not finite (nan)"),
    (dict(shape=(4, 4)), "shape must be 3 numbers, got 2"),
    (dict(voxel_size=(1, 0, 1)), "voxel_size along y is 0, must be finite and > 0"),
    (dict(backend="nope"), "unknown backend 'nope'"),
    (dict(backend="gl-compute"), "backend 'gl-compute' is not implemented for this operator (it has cpu and cuda)"),
])
def test_bad_input_is_refused(args, words):
    kw = dict(endpoints=np.array([[0, 0, -9, 0, 0, 9.0]]), shape=(4, 4, 4), voxel_size=(1, 1, 1),
              origin=(-1.5, -1.5, -1.5), backend="cpu")
    kw.update(args)
    with pytest.raises(ValueError) as e:
        pet.LineProjector(**kw)
    assert words in str(e.value)


def test_bad_arrays_are_refused():
    A = pet.LineProjector(np.array([[0, 0, -9, 0, 0, 9.0]]), (4, 4, 4), (1, 1, 1), (-1.5, -1.5, -1.5))
    with pytest.raises(ValueError, match=r"x has shape \(4, 4\), expected \(4, 4, 4\)"):
        A.forward(np.ones((4, 4)))
    with pytest.raises(ValueError, match=r"y has shape \(2,\), expected \(1,\)"):
        A.back(np.ones(2))


def random_lines(n, shape, voxel_size, origin, seed):
    """n lines between points uniform in a box 10 mm larger than the grid on every side."""
    rng = np.random.default_rng(seed)
    lo = np.array(origin) - 0.5 * np.array(voxel_size) - 10
    hi = lo + np.array(shape[::-1]) * voxel_size + 20
    return lo + (hi - lo) * rng.random((n, 2, 3))


TOF_GRID = dict(shape=(11, 13, 17), voxel_size=(0.8, 1.1, 1.7), origin=(-3.0, 2.0, 1.0))


def test_tof_sum_over_all_bins_is_non_tof():
    """The bins' erf differences telescope: Σ_b over bins reaching beyond each line (31 of 5 mm against
    lines of at most 60 mm, kernels cut at 8σ) is the non-TOF value."""
    ends = random_lines(1000, **TOF_GRID, seed=7)
    x = np.random.default_rng(8).random(TOF_GRID["shape"])
    plain = pet.LineProjector(ends, **TOF_GRID).forward(x)
    bins = 31
    tof = pet.LineProjector(np.tile(ends, (bins, 1, 1)), **TOF_GRID, tof_bin_index=np.repeat(np.arange(bins), 1000),
                            num_tof_bins=bins, tof_bin_width=5.0, tof_sigma=4.0, tof_center_offset=-0.6,
                            num_sigmas=8)
    assert tof.tof and not pet.LineProjector(ends, **TOF_GRID).tof
    assert np.count_nonzero(plain) > 200
    np.testing.assert_allclose(tof.forward(x).reshape(bins, 1000).sum(axis=0), plain, rtol=0, atol=1e-10 * plain.max())


def test_tof_point_profile_is_the_binned_gaussian():
    """A hot voxel and lines along -y through its centre (p2 below p1: the offset moves the bins towards
    p1): bin b's value is the 2 mm step times ½[erf((d + Δ/2)/√2σ) − erf((d − Δ/2)/√2σ)], d the
    distance along p1 → p2 from the bin's centre (b − 20)·Δ − offset to the voxel."""
    shape, voxel, origin = (5, 9, 7), (2.0, 2.0, 2.0), (-6.0, -8.0, -4.0)
    x = np.zeros(shape)
    x[2, 3, 4] = 1.0
    c = np.array([origin[0] + 8, origin[1] + 6, origin[2] + 4])
    bins, width, sigma, offset = 41, 4.0, 3.0, 1.3
    p1, p2 = c.copy(), c.copy()
    p1[1], p2[1] = 70.0, -90.0
    ends = np.tile(np.stack([p1, p2])[None], (bins, 1, 1))
    A = pet.LineProjector(ends, shape, voxel, origin, tof_bin_index=np.arange(bins), num_tof_bins=bins,
                          tof_bin_width=width, tof_sigma=[sigma] * bins, tof_center_offset=offset, num_sigmas=8)
    s_voxel = -(c[1] - 0.5 * (p1[1] + p2[1]))
    d = s_voxel - ((np.arange(bins) - 20) * width - offset)
    r = np.sqrt(2) * sigma
    expected = 2.0 * 0.5 * np.array([math.erf((v + width / 2) / r) - math.erf((v - width / 2) / r) for v in d])
    np.testing.assert_allclose(A.forward(x), expected, rtol=0, atol=1e-12)
    assert expected.max() > 0.8


def test_tof_adjoint_identity_in_double():
    ends = random_lines(3000, **TOF_GRID, seed=9)
    rng = np.random.default_rng(10)
    A = pet.LineProjector(ends, **TOF_GRID, tof_bin_index=rng.integers(0, 15, 3000), num_tof_bins=15,
                          tof_bin_width=4.0, tof_sigma=rng.uniform(1, 6, 3000), tof_center_offset=rng.uniform(-2, 2, 3000))
    x, y = rng.random(TOF_GRID["shape"]), rng.random(3000)
    lhs, rhs = np.vdot(A.forward(x), y), np.vdot(x, A.back(y))
    assert lhs > 1 and abs(lhs - rhs) < 1e-10 * lhs


@pytest.mark.parametrize("args, error, words", [
    (dict(tof_bin_index=[0]), ValueError, "tof_bin_index has 1 values, expected 2 (one per line)"),
    (dict(tof_bin_index=[0, 5]), ValueError, "tof_bin_index of line 1 is 5, outside 0..4 (num_tof_bins 5)"),
    (dict(tof_bin_index=[0.0, 1.0]), TypeError, "tof_bin_index must be integers, got float64"),
    (dict(tof_sigma=0.0), ValueError, "tof_sigma is 0, must be finite and > 0"),
    (dict(tof_sigma=[2.0, np.nan]), ValueError, "tof_sigma of line 1 is nan, must be finite and > 0"),
    (dict(tof_sigma=[1.0, 1.0, 1.0]), ValueError, "tof_sigma has 3 values, expected 1 or 2 (one per line)"),
    (dict(tof_center_offset=np.inf), ValueError, "tof_center_offset is inf, must be finite"),
    (dict(tof_bin_width=-1.0), ValueError, "tof_bin_width is -1, must be finite and > 0"),
    (dict(num_sigmas=np.nan), ValueError, "num_sigmas is nan, must be finite and > 0"),
    (dict(num_tof_bins=None), ValueError, "TOF list mode (tof_bin_index given) needs num_tof_bins"),
    (dict(tof_bin_index=None), ValueError, "num_tof_bins, tof_bin_width and tof_sigma need tof_bin_index"),
])
def test_bad_tof_input_is_refused(args, error, words):
    kw = dict(tof_bin_index=[0, 4], num_tof_bins=5, tof_bin_width=3.0, tof_sigma=2.0)
    kw.update(args)
    ends = np.array([[-9, 0, 0, 9, 0, 0], [-9, 1, 0, 9, 1, 0.0]])
    with pytest.raises(error) as e:
        pet.LineProjector(ends, (4, 4, 4), (1, 1, 1), (-1.5, -1.5, -1.5), **kw)
    assert words in str(e.value)


@pytest.mark.gpu
def test_cuda_tof_on_cupy_matches_cpu():
    cp = pytest.importorskip("cupy")
    ends = random_lines(50000, **TOF_GRID, seed=11)
    rng = np.random.default_rng(12)
    tof = dict(tof_bin_index=rng.integers(0, 15, 50000), num_tof_bins=15, tof_bin_width=4.0,
               tof_sigma=rng.uniform(1, 6, 50000), tof_center_offset=0.4)
    cpu = pet.LineProjector(ends, **TOF_GRID, backend="cpu", **tof)
    gpu = pet.LineProjector(ends, **TOF_GRID, backend="cuda", **tof)
    x, y = rng.random(TOF_GRID["shape"]).astype(np.float32), rng.random(50000).astype(np.float32)
    rel = lambda a, b: np.linalg.norm(a - b) / np.linalg.norm(b)  # noqa: E731
    assert rel(gpu.forward(cp.asarray(x)).get(), cpu.forward(x)) < 2e-5
    assert rel(gpu.back(cp.asarray(y)).get(), cpu.back(y)) < 2e-5


@pytest.mark.gpu
def test_cuda_on_cupy_matches_cpu():
    cp = pytest.importorskip("cupy")
    G = glpet.Projector("glpet_small.toml", backend="cpu")
    ends, origin, voxel = G.lor_endpoints()
    cpu = pet.LineProjector(ends, G.image_shape, voxel, origin, backend="cpu")
    gpu = pet.LineProjector(ends, G.image_shape, voxel, origin, backend="cuda")
    rng = np.random.default_rng(2)
    x, y = rng.random(G.image_shape).astype(np.float32), rng.random(G.lor_count).astype(np.float32)
    fx, by = gpu.forward(cp.asarray(x)), cp.empty(G.image_shape, cp.float32)
    assert gpu.back(cp.asarray(y), out=by) is by
    rel = lambda a, b: np.linalg.norm(a - b) / np.linalg.norm(b)  # noqa: E731
    assert rel(fx.get(), cpu.forward(x)) < 2e-5
    assert rel(by.get(), cpu.back(y)) < 2e-5
    assert rel(gpu.forward(x), cpu.forward(x)) < 2e-5      # NumPy through the cuda backend
    with pytest.raises(TypeError):
        cpu.forward(cp.asarray(x))                          # CUDA arrays need backend="cuda"
