"""fdk's back-projector on a projection stack made with NumPy: against a NumPy implementation of
RabbitCT's update rule (an independent reference), and between backends."""
import numpy as np
import pytest

import tomoraster


def circular_geometry(n, sid=400.0, sdd=800.0, pixel=1.0, cols=48, rows=40):
    """(n, 3, 4) matrices of a circular cone-beam orbit: world (mm) → (u·w, v·w, w)."""
    mats = []
    for a in np.linspace(0, 2 * np.pi, n, endpoint=False):
        c, s = np.cos(a), np.sin(a)
        R = np.array([[-s, c, 0.0], [0.0, 0.0, 1.0], [c, s, 0.0]])  # detector u, v, and the ray axis
        t = np.array([0.0, 0.0, sid])
        K = np.array([[sdd / pixel, 0, (cols - 1) / 2], [0, sdd / pixel, (rows - 1) / 2], [0, 0, 1]])
        mats.append(K @ np.hstack([R, t[:, None]]))
    return np.array(mats)


def numpy_backprojection(proj, mats, voxels, voxel, origin):
    nz, ny, nx = voxels[2], voxels[1], voxels[0]
    z, y, x = np.meshgrid(*(origin[a] + voxel[a] * np.arange(voxels[a]) for a in (2, 1, 0)), indexing="ij")
    pts = np.stack([x, y, z, np.ones_like(x)], axis=-1)
    vol = np.zeros((nz, ny, nx))
    rows, cols = proj.shape[1:]
    for img, m in zip(proj.astype(np.float64), mats):
        h = pts @ m.T
        w = h[..., 2]
        u, v = h[..., 0] / w, h[..., 1] / w
        u0, v0 = np.floor(u).astype(int), np.floor(v).astype(int)
        fu, fv = u - u0, v - v0
        def px(i, j):
            ok = (i >= 0) & (i < cols) & (j >= 0) & (j < rows)
            return np.where(ok, img[np.clip(j, 0, rows - 1), np.clip(i, 0, cols - 1)], 0.0)
        val = (px(u0, v0) * (1 - fu) * (1 - fv) + px(u0 + 1, v0) * fu * (1 - fv) +
               px(u0, v0 + 1) * (1 - fu) * fv + px(u0 + 1, v0 + 1) * fu * fv)
        vol += val / (w * w)
    return vol


@pytest.fixture(scope="module")
def stack():
    rng = np.random.default_rng(3)
    mats = circular_geometry(12)
    proj = rng.random((12, 40, 48), dtype=np.float32)
    return proj, mats


def test_cpu_equals_a_numpy_reference(stack):
    proj, mats = stack
    voxels, voxel = [10, 9, 8], [2.0, 2.0, 2.0]
    bp = tomoraster.fdk.Backprojector(voxels, voxel, backend="cpu", interpolation="exact")
    vol = bp.backproject(proj, mats)
    assert vol.shape == (8, 9, 10) and vol.dtype == np.float32
    origin = [-(n - 1) / 2 * d for n, d in zip(voxels, voxel)]
    ref = numpy_backprojection(proj, mats, voxels, voxel, origin)
    assert np.linalg.norm(vol - ref) <= 1e-5 * np.linalg.norm(ref)


def test_gl_compute_exact_equals_cpu(stack):
    proj, mats = stack
    a = tomoraster.fdk.backproject(proj, mats, [16, 16, 12], [1.5] * 3, backend="cpu")
    b = tomoraster.fdk.backproject(proj, mats, [16, 16, 12], [1.5] * 3, backend="gl-compute", interpolation="exact")
    assert np.linalg.norm(a - b) <= 1e-5 * np.linalg.norm(a)


def test_bad_stacks_raise(stack):
    proj, mats = stack
    bp = tomoraster.fdk.Backprojector([4, 4, 4], [1.0] * 3, backend="cpu")
    with pytest.raises(ValueError, match="matrices: shape"):
        bp.backproject(proj, mats[:3])
    with pytest.raises(TypeError, match="matrices: dtype must be float64"):
        bp.backproject(proj, mats.astype(np.float32))
    with pytest.raises(ValueError, match="projections"):
        bp.backproject(proj[0], mats)


SPHERE_MU, SPHERE_R, SPHERE_C = 0.02, 18.0, np.array([6.0, -4.0, 3.0])


def sphere_stack(mats, rows=40, cols=48):
    """Analytic line integrals of a uniform sphere through every pixel of the matrices' views
    (independent of the filter and back-projector): 2·μ·√(r² − d²), d the ray's distance from the centre."""
    out = np.zeros((len(mats), rows, cols), np.float32)
    v, u = np.meshgrid(np.arange(rows, dtype=float), np.arange(cols, dtype=float), indexing="ij")
    pix = np.stack([u, v, np.ones_like(u)], axis=-1)
    for n, m in enumerate(mats):
        a, t = m[:, :3], m[:, 3]
        source = -np.linalg.solve(a, t)
        d = pix @ np.linalg.inv(a).T
        d /= np.linalg.norm(d, axis=-1, keepdims=True)
        w = SPHERE_C - source
        dist2 = np.sum(w * w) - (d @ w) ** 2
        out[n] = 2 * SPHERE_MU * np.sqrt(np.clip(SPHERE_R ** 2 - dist2, 0, None))
    return out


@pytest.fixture(scope="module")
def raw_run(cli_run_scene, tmp_path_factory):
    """A sphere's stack and matrices in .npy files, reconstructed by the CLI's raw path ([fdk.raw])."""
    mats = circular_geometry(60, pixel=4.0, cols=48, rows=40)  # 96 × 80 mm at the isocentre (magnification 2)
    stack = sphere_stack(mats)
    d = tmp_path_factory.mktemp("fdk_raw")
    np.save(d / "stack.npy", stack)
    np.save(d / "matrices.npy", mats)
    scene = {"problem": "fdk", "backend": "cpu",
             "fdk": {"L": 24, "volume_mm": 72.0, "interpolation": "exact",
                     "raw": {"projections": str(d / "stack.npy"), "matrices": str(d / "matrices.npy")}}}
    _, out = cli_run_scene(scene, "fdk_raw")
    return stack, mats, tomoraster.read_nifti(out / "fdk_volume.nii")


def test_fdk_equals_the_cli_on_a_raw_stack(raw_run):
    stack, mats, (cli_vol, voxel_mm, origin_mm) = raw_run
    seen = []
    vol = tomoraster.fdk.fdk(stack, mats, [24] * 3, [3.0] * 3, backend="cpu", chunk=16,
                             callback=lambda done, total: seen.append((done, total)))
    assert seen == [(16, 60), (32, 60), (48, 60), (60, 60)]
    assert vol.shape == cli_vol.shape == (24, 24, 24)
    assert np.allclose(voxel_mm, [3.0] * 3) and np.allclose(origin_mm, [-34.5] * 3)
    # Both accumulate in the back-projector (cpu: double): the same volume to rounding.
    assert np.linalg.norm(vol - cli_vol) <= 1e-6 * np.linalg.norm(cli_vol)
    # And it is the sphere: the centre voxel's value within 1 % of μ (24³ voxels of 3 mm, 60 views).
    z, y, x = (np.round((SPHERE_C[::-1] - origin_mm[::-1]) / 3.0)).astype(int)
    assert abs(vol[z, y, x] / SPHERE_MU - 1) < 0.01  # measured 0.08 %


def test_fdk_numpy_chunks_accumulate_on_the_backend(raw_run):
    """A NumPy stack's chunks are back-projected into one volume held by the backend (cpu: in
    double), which comes back once: the chunk size changes no bit (per-chunk float32 volumes summed
    on the host did) and the volume is the CLI's."""
    stack, mats, (cli_vol, _, _) = raw_run
    a = tomoraster.fdk.fdk(stack, mats, [24] * 3, [3.0] * 3, backend="cpu", chunk=7)
    b = tomoraster.fdk.fdk(stack, mats, [24] * 3, [3.0] * 3, backend="cpu", chunk=60)
    assert np.array_equal(a, b)
    assert np.linalg.norm(a - cli_vol) <= 1e-6 * np.linalg.norm(cli_vol)


def test_backprojector_accumulation_needs_begin(stack):
    proj, mats = stack
    op = tomoraster._core.FdkBackprojector("cpu", [4] * 3, [1.0] * 3, [0.0] * 3, "exact")
    with pytest.raises(ValueError, match=r"add\(\): call begin\(\) first"):
        op.add(proj, mats)
    with pytest.raises(ValueError, match=r"finish\(\): call begin\(\) first"):
        op.finish()
    op.begin()
    op.add(proj[:5], mats[:5])
    op.add(proj[5:], mats[5:])
    whole = tomoraster.fdk.backproject(proj, mats, [4] * 3, [1.0] * 3, origin_mm=[0.0] * 3, backend="cpu")
    assert np.array_equal(op.finish(), whole)  # one double accumulator over both chunks


def test_fdk_intensities_and_stopping(raw_run):
    stack, mats, (cli_vol, _, _) = raw_run
    i0 = 1000.0
    counts = (i0 * np.exp(-stack.astype(np.float64))).astype(np.float32)
    vol = tomoraster.fdk.fdk(counts, mats, [24] * 3, [3.0] * 3, backend="cpu", intensity=True, i0=i0)
    assert np.linalg.norm(vol - cli_vol) <= 1e-4 * np.linalg.norm(cli_vol)  # float32 counts round the exponent
    calls = []
    partial = tomoraster.fdk.fdk(stack, mats, [24] * 3, [3.0] * 3, backend="cpu", chunk=20,
                                 callback=lambda done, total: calls.append(done) or False)
    assert calls == [20] and np.linalg.norm(partial) < np.linalg.norm(cli_vol)


def test_fdk_bad_input_raises(raw_run):
    stack, mats, _ = raw_run
    with pytest.raises(ValueError, match="i0 must be > 0"):
        tomoraster.fdk.fdk(stack, mats, [8] * 3, [3.0] * 3, backend="cpu", intensity=True)
    with pytest.raises(ValueError, match="row 2, column 3"):
        bad = -stack.copy()
        bad[:] = 1.0
        bad[1, 2, 3] = -1.0
        tomoraster.fdk.fdk(bad, mats, [8] * 3, [3.0] * 3, backend="cpu", intensity=True, i0=10.0)
    with pytest.raises(ValueError, match="window"):
        tomoraster.fdk.fdk(stack, mats, [8] * 3, [3.0] * 3, backend="cpu", window="box")
    with pytest.raises(ValueError, match="matrices"):
        tomoraster.fdk.fdk(stack, mats[:, :2], [8] * 3, [3.0] * 3, backend="cpu")


def test_fdk_chunk_loop_is_shared_and_any_chunk_gives_the_one_shot_volume(raw_run):
    """Every fdk() path (the cuda pipeline, the host filter) runs one chunk loop: chunks of 1, 7 and
    more than the stack give the one-shot volume bit for bit (cpu), the callback sees each chunk's
    end, and a strided stack reaches the back-projection as contiguous chunks of the same values."""
    stack, mats, _ = raw_run
    whole = tomoraster.fdk.fdk(stack, mats, [24] * 3, [3.0] * 3, backend="cpu", chunk=60)
    for chunk in (1, 7, 200):
        seen = []
        vol = tomoraster.fdk.fdk(stack, mats, [24] * 3, [3.0] * 3, backend="cpu", chunk=chunk,
                                 callback=lambda done, total: seen.append(done))
        assert np.array_equal(vol, whole), chunk
        assert seen == sorted(set(list(range(chunk, 60, chunk)) + [60])), chunk
    strided = np.empty((60, 40, 96), np.float32)[:, :, ::2]
    strided[:] = stack
    assert np.array_equal(tomoraster.fdk.fdk(strided, mats, [24] * 3, [3.0] * 3, backend="cpu", chunk=9), whole)
    got = []
    tomoraster.fdk._chunks(strided, 25, False, None, None, lambda n0, raw: got.append((n0, raw)), on_device=False)
    assert [n0 for n0, _ in got] == [0, 25, 50] and [r.shape[0] for _, r in got] == [25, 25, 10]
    assert all(r.flags.c_contiguous and np.array_equal(r, stack[n0:n0 + 25]) for n0, r in got)


def test_fdk_refuses_shapes_and_layouts_with_one_line(raw_run):
    stack, mats, _ = raw_run
    astra = np.ascontiguousarray(stack.transpose(1, 0, 2))  # (rows, N, cols)
    cases = [
        (ValueError, lambda: tomoraster.fdk.fdk(astra, mats, [8] * 3, [3.0] * 3, backend="cpu"),
         r"^matrices: shape \(60, 3, 4\) for projections of shape \(40, 60, 48\), .*numpy\.moveaxis"),
        (ValueError, lambda: tomoraster.fdk.fdk(stack[0], mats, [8] * 3, [3.0] * 3, backend="cpu"),
         r"^projections: shape \(N, rows, cols\) expected$"),
        (TypeError, lambda: tomoraster.fdk.fdk(stack.astype(np.float64), mats, [8] * 3, [3.0] * 3, backend="cpu"),
         r"^projections: .*float32"),
        (ValueError, lambda: tomoraster.fdk.fdk(stack, mats, [8] * 3, [3.0] * 3, backend="cpu", chunk=0),
         r"^chunk must be >= 1$"),
    ]
    for error, call, pattern in cases:
        with pytest.raises(error, match=pattern) as e:
            call()
        assert "\n" not in str(e.value), str(e.value)


def test_cone_beam_numpy_results_are_new(stack):
    proj, _ = stack
    g = tomoraster.fdk.circular_orbit(40, 48, 1.0, 400.0, 800.0, (8, 8, 8), 4.0, views=12)
    op = tomoraster.fdk.ConeBeam(g, backend="cpu")
    with pytest.raises(ValueError, match=r"^out: only with CUDA arrays"):
        op.forward(np.zeros(g.in_shape, np.float32), out=np.zeros(g.out_shape, np.float32))
    assert op.back(proj).shape == g.in_shape
