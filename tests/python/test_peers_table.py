"""The peers' side-by-side scripts (bench/peers) off the GPU: the table's rows, ratio and Markdown,
appending to one JSON, the fitted-constant comparison on synthetic arrays, and the geometry the
scripts hand to ASTRA and parallelproj (orbit vectors, crystal positions). No GPU, no peer."""
import json
import math
import pathlib
import sys

import numpy as np
import pytest

PEERS = pathlib.Path(__file__).resolve().parents[2] / "bench" / "peers"
sys.path.insert(0, str(PEERS))

import astra_peer  # noqa: E402
import parallelproj_peer  # noqa: E402
import peers_table as pt  # noqa: E402


def test_row_ratio_is_peer_over_ours_and_missing_times_give_none():
    r = pt.row("ASTRA", "2.5.0", "FDK_CUDA", "256^3", "H200", 30.0, 12.0, "c=1")
    assert r["ratio"] == pytest.approx(2.5)
    assert set(r) == set(pt.FIELDS)
    assert pt.row("x", "1", "op", "s", "g", None, 12.0)["ratio"] is None
    assert pt.row("x", "1", "op", "s", "g", 5.0, float("nan"))["ours_ms"] is None
    assert pt.row("x", "1", "op", "s", "g", 0.0, 1.0)["ratio"] is None


def test_markdown_escapes_pipes_and_prints_dashes():
    md = pt.markdown([pt.row("p", "1", "a|b", "s", "g", 2.0, None, note="two\nlines")])
    lines = md.strip().split("\n")
    assert len(lines) == 3 and lines[0].startswith("| peer | version |")
    assert "a\\|b" in lines[2] and "two lines" in lines[2]
    assert "| 2.00 | - | - |" in lines[2]
    assert md.count("\n") == 3


def test_append_accumulates_rows_in_json_and_markdown(tmp_path):
    j, m = tmp_path / "peers.json", tmp_path / "peers.md"
    pt.append(str(j), str(m), [pt.row("A", "1", "op1", "s", "g", 4.0, 2.0)])
    rows = pt.append(str(j), str(m), [pt.row("B", "2", "op2", "s", "g", 1.0, 2.0)])
    assert [r["peer"] for r in rows] == ["A", "B"]
    assert [r["ratio"] for r in json.loads(j.read_text())] == [2.0, 0.5]
    text = m.read_text()
    assert "| A | 1 | op1 |" in text and "| 0.50x |" in text and "| 2.00x |" in text
    assert not (tmp_path / "peers.json.tmp").exists()
    with pytest.raises(ValueError, match="missing"):
        pt.append(str(j), str(m), [{"peer": "C"}])
    j.write_text('{"not": "a list"}')
    with pytest.raises(ValueError, match="a JSON list of rows expected"):
        pt.load(str(j))


def test_fit_scale_recovers_the_constant_and_the_residual():
    rng = np.random.default_rng(1)
    ours = rng.random(10000).astype(np.float32) + 0.5
    c, rel, r = pt.fit_scale(np, ours, 0.7 * ours)
    assert c == pytest.approx(0.7, rel=1e-6) and rel < 1e-6 and r == pytest.approx(1.0, abs=1e-6)
    noise = rng.standard_normal(10000).astype(np.float32) * 0.01
    c, rel, r = pt.fit_scale(np, ours, 2.0 * (ours + noise))
    assert c == pytest.approx(2.0, rel=1e-3)
    expected = float(np.linalg.norm(noise) / np.linalg.norm(ours))
    assert rel == pytest.approx(expected, rel=0.05) and 0.99 < r < 1.0
    assert all(math.isnan(v) for v in pt.fit_scale(np, np.zeros(4), np.ones(4)))
    line = pt.agreement(np, ours, 3 * ours, "x: ", expected_c=3.0)
    assert line.startswith("x: c=3 (expected 3), rel L2 ") and "r=1.00000" in line


def test_timer_on_the_host_keeps_the_median_and_the_last_result():
    t = pt.Timer(None)
    calls = []
    ms = t.median(lambda: calls.append(1) or len(calls), reps=3, warmup=2)
    assert len(calls) == 5 and t.last == 5 and len(t.runs) == 3 and ms >= 0


def test_guarded_turns_a_failure_into_a_row_saying_why():
    rows = []
    pt.guarded(rows, lambda: [pt.row("A", "1", "op", "s", "g", 1.0, 1.0)], "A", "1", "op", "s", "g")
    pt.guarded(rows, lambda: 1 / 0, "A", "1", "op2", "s", "g")
    assert len(rows) == 2 and rows[1]["note"] == "failed: ZeroDivisionError: division by zero"


def test_orbit_vectors_describe_our_circular_orbit():
    vecs, beta = astra_peer.orbit_vectors(8, 64, 48, 0.9)
    src, det, u, v = vecs[:, 0:3], vecs[:, 3:6], vecs[:, 6:9], vecs[:, 9:12]
    assert np.allclose(np.linalg.norm(src, axis=1), astra_peer.SID)
    assert np.allclose(np.linalg.norm(det - src, axis=1), astra_peer.SDD)
    assert np.allclose((u * (det - src)).sum(1), 0) and np.allclose(np.linalg.norm(u, axis=1), 0.9)
    assert np.allclose(v, [0, 0, 0.9]) and beta[2] == pytest.approx(90.0)
    assert np.allclose(src[2], [0, astra_peer.SID, 0]) and np.allclose(u[2], [-0.9, 0, 0])


def test_crystal_positions_follow_the_safir_scanner():
    pos = parallelproj_peer.crystal_positions(91, 180, 2.2)
    assert pos.shape == (91 * 180, 3) and pos.dtype == np.float32
    r = np.hypot(pos[:, 1], pos[:, 2])
    assert np.allclose(r, 2.2 / (2 * np.sin(np.pi / 180)), rtol=1e-6) and r[0] == pytest.approx(63.0, abs=0.05)
    assert pos[0, 0] == pytest.approx(-2.2 * 45) and pos[45 * 180, 0] == pytest.approx(0.0)
    assert pos[45, 1] == pytest.approx(r[0], rel=1e-6) and abs(pos[45, 2]) < 1e-4  # detector 45: 90°, +y
    sw = parallelproj_peer.crystal_positions(91, 180, 2.2, swap_xy=True)
    assert np.allclose(sw[:, 1], pos[:, 2]) and np.allclose(sw[:, 2], pos[:, 1])


def test_the_test_image_is_a_cylinder_with_hot_spheres():
    img = parallelproj_peer.test_image(np, (20, 90, 90), 0.7)
    assert img.shape == (20, 90, 90) and img.dtype == np.float32
    assert img[10, 0, 0] == 0 and set(np.unique(img)) == {0.0, 1.0, 4.0}


def test_matrices_from_vectors_project_as_the_cone_vec_rows():
    sys.path.insert(0, str(PEERS.parent / "python"))
    import rabbit_geometry as geo
    vecs, _ = astra_peer.orbit_vectors(12, 64, 48, 0.9)
    P = astra_peer.matrices_from_vectors(vecs, 64, 48)
    assert geo.check_geometry(P, vecs, 64, 48) < 1e-9
    assert np.allclose(P[:, 2, 3], 1.0)
    # the origin lands on the central ray: the detector's centre, ((cols−1)/2, (rows−1)/2)
    assert np.allclose(P[:, 0, 3], 31.5) and np.allclose(P[:, 1, 3], 23.5)
