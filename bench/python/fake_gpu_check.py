"""Runs astra_side_by_side.py's GPU code paths on a machine without a GPU: a stand-in `cupy`
(NumPy under CuPy's names) and a stand-in `astra` whose direct_BP3D is ASTRA's rule in NumPy
(rabbit_geometry.astra_rule_bp). It checks the script's plumbing (events, layouts, DLPack and
GPULink calls, the comparison), not ASTRA: the lead's run on the GPU machine does that.

  PYTHONPATH=<tomoraster> python3 bench/python/fake_gpu_check.py [--gpulink]
"""
import os
import sys
import time
import types

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import rabbit_geometry as geo  # noqa: E402


LINKS = {}  # the stand-in device pointers: id of an array -> the array


class _DeviceArray(np.ndarray):
    """A NumPy array with CuPy's `.data.ptr` (its id, registered in LINKS) for the GPULink path."""

    @property
    def data(self):
        LINKS[id(self)] = self
        return types.SimpleNamespace(ptr=id(self))


def fake_cupy():
    cp = types.ModuleType("cupy")
    cp.__dict__.update({k: v for k, v in np.__dict__.items() if not k.startswith("__")})
    cp.asnumpy = np.asarray
    cp.zeros = lambda *a, **k: np.zeros(*a, **k).view(_DeviceArray)
    cp.ascontiguousarray = lambda *a, **k: np.ascontiguousarray(*a, **k).view(_DeviceArray)

    class Event:
        def record(self):
            self.t = time.perf_counter()

        def synchronize(self):
            pass

    class Device:
        id = 0

        def synchronize(self):
            pass

    runtime = types.SimpleNamespace(getDeviceCount=lambda: 1,
                                    getDeviceProperties=lambda i: {"name": b"fake GPU (NumPy)"})
    cp.cuda = types.SimpleNamespace(runtime=runtime, Device=Device, Event=Event,
                                    get_elapsed_time=lambda a, b: (b.t - a.t) * 1e3)
    cp.get_default_memory_pool = lambda: types.SimpleNamespace(free_all_blocks=lambda: None)
    return cp


def fake_astra(reject_arrays):
    astra = types.ModuleType("astra")
    astra.__version__ = "fake (NumPy rule)"
    astra.__file__ = __file__
    astra.use_cuda = lambda: True
    geoms = {}
    astra.create_vol_geom = lambda *a: {"shape": (a[2], a[0], a[1]), "window": a[3:]}
    astra.create_proj_geom = lambda kind, rows, cols, v: {"kind": kind, "rows": rows, "cols": cols, "vecs": v}

    def create_projector(kind, pg, vg):
        assert kind == "cuda3d" and pg["kind"] == "cone_vec"
        geoms[len(geoms) + 1] = (pg, vg)
        return len(geoms)

    class GPULink:
        def __init__(self, ptr, x, y, z, pitch):
            self.ptr, self.x, self.y, self.z, self.pitch = ptr, x, y, z, pitch

    def direct_BP3D(pid, vol, proj):
        pg, vg = geoms[pid]
        if isinstance(vol, GPULink):
            vl, pl = vol, proj
            vol, proj = LINKS[vl.ptr], LINKS[pl.ptr]
            assert (vl.z, vl.y, vl.x) == vol.shape and (pl.z, pl.y, pl.x) == proj.shape
            assert vl.pitch == 4 * vl.x and pl.pitch == 4 * pl.x
        elif reject_arrays:
            raise TypeError("data should be a numpy.ndarray or a GPULink object")
        assert proj.shape == (pg["rows"], len(pg["vecs"]), pg["cols"]), proj.shape
        assert vol.shape == vg["shape"] and vg["window"] == (-128.0, 128.0) * 3, vg
        L = vol.shape[0]
        vol[...] = geo.astra_rule_bp(proj, pg["vecs"], L, 256.0 / L, float(np.linalg.norm(pg["vecs"][0, 6:9])))

    astra.create_projector = create_projector
    astra.experimental = types.SimpleNamespace(direct_BP3D=direct_BP3D)
    astra.data3d = types.SimpleNamespace(GPULink=GPULink)
    astra.projector3d = types.SimpleNamespace(delete=lambda pid: geoms.pop(pid))
    return astra


def main():
    gpulink = "--gpulink" in sys.argv
    cp = fake_cupy()
    astra = fake_astra(reject_arrays=gpulink)
    sys.modules["cupy"], sys.modules["astra"], sys.modules["astra.experimental"] = cp, astra, astra.experimental
    import astra_side_by_side as sbs
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), "astra_fake_check.json")
    sbs.main(["--sizes", "24", "--projections", "62", "--detector", "156x120", "--pixel-mm", "2.56",
              "--backend", "cpu", "--reps", "2", "--json", out])
    import json
    rows = json.load(open(out))["rows"]
    ag = rows[0]["agreement"]
    ok = ag["rel_l2_fit"] < 1e-5 and abs(ag["scale_fit"] / ag["scale_predicted"] - 1) < 1e-5
    print("fake GPU check:", "ok" if ok else "FAILED", ag, "via", rows[0]["astra"]["arrays"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
