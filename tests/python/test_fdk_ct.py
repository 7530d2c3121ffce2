"""Cone-beam CT beyond FDK from Python: geometry helpers (circular orbit, ASTRA cone_vec, TIGRE)
against hand-computed pixels and each other, the ConeBeam projector pair (adjoint identity,
analytic chords of a sphere), SIRT / OS-SART / CGLS / TV against the sphere, TIFF stacks with
flat and dark fields, and the CLI's refusals."""
import struct

import numpy as np
import pytest

from tomoraster import fdk

SID, SDD, PIX, ROWS, COLS = 300.0, 500.0, 2.4, 40, 48
MU, RADIUS = 0.02, 20.0


def write_tiff(path, pages):
    """A little-endian, uncompressed float32 TIFF, one page per image: written by hand here, so the
    reader is checked against the format, not against our own writer."""
    pages = np.ascontiguousarray(pages, dtype="<f4")
    n, rows, cols = pages.shape
    out = bytearray(b"II*\x00" + struct.pack("<I", 0))
    prev_link = 4
    for p in pages:
        data_at = len(out)
        out += p.tobytes()
        ifd_at = len(out)
        struct.pack_into("<I", out, prev_link, ifd_at)
        entries = [(256, 4, cols), (257, 4, rows), (258, 3, 32), (259, 3, 1), (262, 3, 1), (273, 4, data_at),
                   (277, 3, 1), (278, 4, rows), (279, 4, p.nbytes), (339, 3, 3)]
        out += struct.pack("<H", len(entries))
        for tag, kind, value in entries:
            out += struct.pack("<HHI", tag, kind, 1) + (struct.pack("<HH", value, 0) if kind == 3 else
                                                       struct.pack("<I", value))
        prev_link = len(out)
        out += struct.pack("<I", 0)
    with open(path, "wb") as f:
        f.write(bytes(out))


def sphere_line_integrals(views):
    """Exact chords of a sphere (radius RADIUS, μ = MU, at the origin) along every pixel's ray of
    the circular orbit, from the orbit's own description (not from the matrices)."""
    b = np.linspace(0, 2 * np.pi, views, endpoint=False)[:, None, None]
    i = np.arange(COLS)[None, None, :] - (COLS - 1) / 2
    j = np.arange(ROWS)[None, :, None] - (ROWS - 1) / 2
    src = np.stack(np.broadcast_arrays(SID * np.cos(b), SID * np.sin(b), 0 * b), -1)
    det = np.stack(np.broadcast_arrays((SID - SDD) * np.cos(b) - i * PIX * np.sin(b),
                                       (SID - SDD) * np.sin(b) + i * PIX * np.cos(b), j * PIX + 0 * b), -1)
    d = det - src
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    closest = np.linalg.norm(src - (src * d).sum(-1, keepdims=True) * d, axis=-1)
    return (MU * 2 * np.sqrt(np.clip(RADIUS ** 2 - closest ** 2, 0, None))).astype(np.float32)


def orbit(views=60, **kw):
    return fdk.circular_orbit(ROWS, COLS, PIX, SID, SDD, voxels=(32, 32, 32), voxel_mm=2.0, views=views,
                              angles_deg=np.linspace(0, 360, views, endpoint=False), **kw)


def test_a_point_projects_where_computed_by_hand():
    g = fdk.circular_orbit(40, 30, 2.0, 500.0, 800.0, voxels=(8, 8, 8), voxel_mm=1.0, angles_deg=[0, 90],
                           offset_u_mm=4.0)
    m = g.matrices[0]
    h = m @ np.array([0.0, 10.0, -5.0, 1.0])  # β = 0: columns along +y, rows along +z
    assert h[0] / h[2] == pytest.approx(14.5 + 4.0 / 2 + 10 * 1.6 / 2, abs=1e-9)
    assert h[1] / h[2] == pytest.approx(19.5 - 5 * 1.6 / 2, abs=1e-9)
    assert g.in_shape == (8, 8, 8) and g.out_shape == (2, 40, 30)


def test_orbit_astra_and_tigre_give_the_same_matrices():
    g = orbit(views=8)
    b = np.deg2rad(np.linspace(0, 360, 8, endpoint=False))
    c, s = np.cos(b), np.sin(b)
    z = np.zeros_like(b)
    vectors = np.stack([SID * c, SID * s, z, (SID - SDD) * c, (SID - SDD) * s, z, -PIX * s, PIX * c, z,
                        z, z, z + PIX], axis=1)
    a = fdk.astra_cone_vec(vectors, ROWS, COLS, voxels=(32, 32, 32), voxel_mm=2.0)
    t = fdk.tigre(DSD=SDD, DSO=SID, nDetector=(ROWS, COLS), dDetector=(PIX, PIX), nVoxel=(32, 32, 32),
                  sVoxel=(64, 64, 64), angles=b)
    np.testing.assert_allclose(a.matrices, g.matrices, rtol=0, atol=1e-9 * np.abs(g.matrices).max())
    np.testing.assert_allclose(t.matrices, g.matrices, rtol=0, atol=1e-9 * np.abs(g.matrices).max())
    assert t.voxel_mm == (2.0, 2.0, 2.0) and t.in_shape == (32, 32, 32)


def test_projector_pair_is_adjoint_and_integrates_the_sphere():
    op = fdk.ConeBeam(orbit(views=12), backend="cpu")
    assert op.in_shape == (32, 32, 32) and op.out_shape == (12, ROWS, COLS)
    assert op.voxel_mm == (2.0, 2.0, 2.0) and op.origin_mm == (-31.0, -31.0, -31.0)
    rng = np.random.default_rng(3)
    x = rng.random(op.in_shape, dtype=np.float32)
    y = rng.random(op.out_shape, dtype=np.float32)
    lhs = float(np.vdot(op.forward(x).astype(np.float64), y))
    rhs = float(np.vdot(x.astype(np.float64), op.back(y)))
    assert abs(lhs - rhs) <= 1e-5 * abs(lhs)
    # A voxelised sphere: the central ray's line integral is the chord 2·r·μ (to the voxel edge).
    zz, yy, xx = np.meshgrid(*(op.origin_mm[0] + 2.0 * np.arange(32),) * 3, indexing="ij")
    ball = (MU * (xx ** 2 + yy ** 2 + zz ** 2 <= RADIUS ** 2)).astype(np.float32)
    centre = op.forward(ball)[:, ROWS // 2, COLS // 2].mean()
    assert centre == pytest.approx(2 * RADIUS * MU, rel=0.06)


@pytest.mark.parametrize("name,kw,tol", [("sirt", {"iterations": 30}, 0.06), ("os_sart", {"iterations": 5}, 0.06),
                                         ("cgls", {"iterations": 10}, 0.06),
                                         ("tv", {"iterations": 30, "tv_lambda": 1e-5}, 0.06)])
def test_iterative_algorithms_reconstruct_the_sphere(name, kw, tol):
    g = orbit(views=60)
    b = sphere_line_integrals(60)
    seen = []
    v = getattr(fdk, name)(b, g, backend="cpu", callback=lambda it, r: seen.append(r), **kw)
    assert v.shape == g.in_shape and v.dtype == np.float32
    assert len(seen) == kw["iterations"] and seen[-1] < seen[0]
    c = np.arange(32) * 2.0 - 31.0
    zz, yy, xx = np.meshgrid(c, c, c, indexing="ij")
    inside = np.sqrt(xx ** 2 + yy ** 2 + zz ** 2) < 0.6 * RADIUS
    assert v[inside].mean() == pytest.approx(MU, rel=tol)


def test_cgls_with_the_voxel_backprojector_reconstructs_the_sphere():
    g = orbit(views=60)
    b = sphere_line_integrals(60)
    exact = fdk.cgls(b, g, iterations=10, backend="cpu")
    voxel = fdk.cgls(b, g, iterations=10, backend="cpu", backprojector="voxel")
    c = np.arange(32) * 2.0 - 31.0
    zz, yy, xx = np.meshgrid(c, c, c, indexing="ij")
    inside = np.sqrt(xx ** 2 + yy ** 2 + zz ** 2) < 0.6 * RADIUS
    assert voxel[inside].mean() == pytest.approx(MU, rel=0.06)
    assert 0 < np.abs(voxel - exact).max()  # another transpose, another path
    with pytest.raises(ValueError, match="fdk.cgls.backprojector"):
        fdk.cgls(b, g, iterations=2, backend="cpu", backprojector="ray")


def test_hardware_interpolation_is_refused_on_cpu_and_checked_by_name():
    g = orbit(views=4)
    with pytest.raises(ValueError, match="the cpu backend has no texture unit"):
        fdk.ConeBeam(g, backend="cpu", interpolation="hardware")
    with pytest.raises(ValueError, match="interpolation must be 'exact' or 'hardware', not 'linear'"):
        fdk.ConeBeam(g, backend="cpu", interpolation="linear")
    with pytest.raises(ValueError, match="fdk.projector.interpolation"):
        fdk.sirt(sphere_line_integrals(4), g, iterations=1, backend="cpu", interpolation="linear")
    assert fdk.ConeBeam(g, backend="cpu").interpolation == "exact"


def hardware_vs_exact(backend):
    """(relative L2 of A, of B) between the hardware and exact settings of one backend."""
    g = orbit(views=12)
    hw = fdk.ConeBeam(g, backend=backend, interpolation="hardware")
    ex = fdk.ConeBeam(g, backend=backend, interpolation="exact")
    assert hw.interpolation == "hardware" and ex.interpolation == "exact"
    rng = np.random.default_rng(5)
    x = rng.random(hw.in_shape, dtype=np.float32)
    y = rng.random(hw.out_shape, dtype=np.float32)
    rel = lambda a, b: float(np.linalg.norm(a - b) / np.linalg.norm(b))  # noqa: E731
    return rel(hw.forward(x), ex.forward(x)), rel(hw.back_voxel(y), ex.back_voxel(y))


def test_hardware_pair_on_gl_compute_matches_the_exact_pair():
    # gl-compute's A is exact in both settings; its B takes the texture unit's bilinear filter,
    # fp32 on llvmpipe (so equal to rounding here), 8-bit weights on NVIDIA (about 1e-3).
    fwd, back = hardware_vs_exact("gl-compute")
    assert fwd <= 1e-6
    assert back <= 2e-3


@pytest.mark.gpu
def test_hardware_pair_on_cuda_is_within_the_texture_units_rounding():
    # The texture unit's 8-bit fixed-point weights: A and B within 2e-3 of the exact pair.
    fwd, back = hardware_vs_exact("cuda")
    assert 0 < fwd <= 2e-3
    assert 0 < back <= 2e-3


def test_back_voxel_is_b_of_the_exact_pair_on_cpu():
    # B differs from Aᵀ (a voxel-driven gather, not the ray model's transpose) but back-projects
    # the same rays: the two correlate closely on a smooth stack.
    op = fdk.ConeBeam(orbit(views=12), backend="cpu")
    y = sphere_line_integrals(12)
    b, at = op.back_voxel(y).ravel(), op.back(y).ravel()
    assert b.shape == at.shape and np.corrcoef(b, at)[0, 1] > 0.99


def tigre_matched_atb(y, views, voxels=32, vox=2.0):
    """TIGRE's Atb "matched" (the pseudo-matched weight of Jia et al. 2010, in TIGRE's
    voxel_backprojection2) written from its formula on the circular orbit's own description, not
    from our matrices: per view, the bilinear sample of the detector at the voxel centre's
    projection (taps outside read 0) times V·L³/(DSD·l²·du·dv), with l the source–voxel distance
    and L the source–detector distance along that voxel's ray."""
    c = -(voxels - 1) / 2 * vox + vox * np.arange(voxels)
    X = np.stack(np.meshgrid(c, c, c, indexing="ij")[::-1], -1)  # (z, y, x, 3): x, y, z in mm
    out = np.zeros(X.shape[:3])
    for n, beta in enumerate(np.linspace(0, 2 * np.pi, views, endpoint=False)):
        normal = np.array([np.cos(beta), np.sin(beta), 0.0])
        d = X - SID * normal
        D = SID * normal + d * (SDD / -(d @ normal))[..., None]  # where the ray hits the detector
        u = D @ np.array([-np.sin(beta), np.cos(beta), 0.0]) / PIX + (COLS - 1) / 2
        v = D[..., 2] / PIX + (ROWS - 1) / 2
        L = np.linalg.norm(D - SID * normal, axis=-1)
        weight = vox ** 3 / PIX ** 2 * L ** 3 / (SDD * (d ** 2).sum(-1))
        i0, j0 = np.floor(u).astype(int), np.floor(v).astype(int)
        fu, fv = u - i0, v - j0
        sample = np.zeros(out.shape)
        for di, dj, k in ((0, 0, (1 - fu) * (1 - fv)), (1, 0, fu * (1 - fv)), (0, 1, (1 - fu) * fv), (1, 1, fu * fv)):
            i, j = i0 + di, j0 + dj
            inside = (i >= 0) & (i < COLS) & (j >= 0) & (j < ROWS)
            sample += k * np.where(inside, y[n][np.clip(j, 0, ROWS - 1), np.clip(i, 0, COLS - 1)], 0.0)
        out += weight * sample
    return out


def test_back_voxel_is_tigres_matched_backprojection():
    # B's closed form is TIGRE's "matched" weight: V·|det M|·|x − c|/t³ = V·DSD²·l/(du·dv·t³) with
    # t the depth along the detector normal, and L = l·DSD/t. B takes the ray-density factor at
    # the pixels before the bilinear sample, TIGRE at the voxel's projection: 2e-5 apart here.
    op = fdk.ConeBeam(orbit(views=12), backend="cpu")
    rng = np.random.default_rng(8)
    for y in (sphere_line_integrals(12), rng.random(op.out_shape, dtype=np.float32)):
        theirs = tigre_matched_atb(y.astype(np.float64), 12)
        ours = op.back_voxel(y).astype(np.float64)
        assert np.linalg.norm(ours - theirs) <= 1e-4 * np.linalg.norm(theirs)


def test_back_voxel_approximates_the_adjoint_of_the_forward_projector():
    # <A x, y> against <x, B y> (B is not A's exact transpose): within 0.5 % on a ball and on noise;
    # <x, Aᵀ y> holds to rounding.
    op = fdk.ConeBeam(orbit(views=12), backend="cpu")
    rng = np.random.default_rng(9)
    zz, yy, xx = np.meshgrid(*(op.origin_mm[0] + 2.0 * np.arange(32),) * 3, indexing="ij")
    ball = (MU * (xx ** 2 + yy ** 2 + zz ** 2 <= RADIUS ** 2)).astype(np.float32)
    for x, y in ((ball, sphere_line_integrals(12)), (rng.random(op.in_shape, dtype=np.float32),
                                                     rng.random(op.out_shape, dtype=np.float32))):
        ax_y = float(np.vdot(op.forward(x).astype(np.float64), y))
        x_by = float(np.vdot(x.astype(np.float64), op.back_voxel(y)))
        assert abs(x_by - ax_y) <= 5e-3 * abs(ax_y)
        assert abs(float(np.vdot(x.astype(np.float64), op.back(y))) - ax_y) <= 1e-6 * abs(ax_y)


def test_refusals_use_the_clis_words():
    g = orbit(views=12)
    b = sphere_line_integrals(12)
    with pytest.raises(ValueError, match="ASTRA's"):
        fdk.sirt(np.moveaxis(b, 0, 1), g, iterations=2)
    with pytest.raises(ValueError, match="fdk.iterations"):
        fdk.sirt(b, g, iterations=0)
    with pytest.raises(ValueError, match="12 numbers per view|shape"):
        fdk.astra_cone_vec(np.zeros((3, 11)), ROWS, COLS, voxels=(8, 8, 8))
    with pytest.raises(ValueError, match="DSO has 2 values"):
        fdk.tigre(DSD=500, DSO=[300, 300], nDetector=(4, 4), dDetector=(1, 1), nVoxel=(4, 4, 4), sVoxel=(4, 4, 4),
                  angles=[0, 1, 2])


def test_tiff_stacks_with_flat_and_dark_fields(tmp_path):
    b = sphere_line_integrals(6)
    dark, flat = 100.0, 30000.0
    intensity = dark + (flat - dark) * np.exp(-b)
    for n in range(6):  # one file per projection, as detectors write them
        write_tiff(tmp_path / f"proj_{n:03d}.tif", intensity[n:n + 1])
    write_tiff(tmp_path / "flat.tiff", np.full((2, ROWS, COLS), flat, np.float32) + [[[-40]], [[40]]])
    (tmp_path / "dark").mkdir()
    write_tiff(tmp_path / "dark" / "d.tif", np.full((1, ROWS, COLS), dark, np.float32))
    (tmp_path / "proj").mkdir()
    for n in range(6):
        (tmp_path / f"proj_{n:03d}.tif").rename(tmp_path / "proj" / f"proj_{n:03d}.tif")
    raw = fdk.read_projections(tmp_path / "proj")
    assert raw.shape == (6, ROWS, COLS)
    li = fdk.flat_dark(raw, fdk.read_projections(tmp_path / "flat.tiff"), fdk.read_projections(tmp_path / "dark"))
    np.testing.assert_allclose(li, b, atol=2e-6)
    np.save(tmp_path / "astra.npy", np.moveaxis(b, 0, 1))
    np.testing.assert_array_equal(fdk.read_projections(tmp_path / "astra.npy", layout="astra"), b)
    (tmp_path / "bad.tif").write_bytes(b"II*\x00garbage")
    with pytest.raises(ValueError, match="bad.tif"):
        fdk.read_projections(tmp_path / "bad.tif")


def test_example_from_tiff_files_reconstructs_the_ball(capsys, monkeypatch, tmp_path):
    import pathlib
    import re
    import runpy
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "ct_tiff_reconstruction.py"),
                   run_name="__main__")
    out = capsys.readouterr().out
    for name in ("fdk", "sirt", "tv"):
        centre = float(re.search(rf"{name}: centre ([-0-9.e]+)", out).group(1))
        assert abs(centre - MU) <= 0.05 * MU, out


def test_the_backprojector_exposes_its_grid():
    bp = fdk.Backprojector((6, 5, 4), (1.0, 2.0, 3.0), backend="cpu")
    assert bp.out_shape == bp.volume_shape == (4, 5, 6)
    assert bp.voxel_mm == (1.0, 2.0, 3.0) and bp.origin_mm == (-2.5, -4.0, -4.5)
