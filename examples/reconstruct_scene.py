"""Reconstruct a scene with tomoraster and show a MIP of the result with matplotlib.

    python examples/reconstruct_scene.py [scene] [--backend cpu|gl|gl-compute|cuda|auto]
"""
import argparse

import matplotlib.pyplot as plt

import tomoraster

parser = argparse.ArgumentParser()
parser.add_argument("scene", nargs="?", default=None, help="scene file or embedded name (default: the default scene)")
parser.add_argument("--backend", default="auto")
parser.add_argument("--out", default="out/python-example")
args = parser.parse_args()

report = tomoraster.run(args.scene, backend=args.backend, out=args.out, force=True)
name = next(n for n in report["volumes"] if not n.startswith(("phantom", "sensitivity")))
volume = report["volumes"][name]
print(f"{report['problem']} on {report['backend']}: {name} {volume.shape}, metrics {report.get('metrics', {})}")
plt.imshow(volume.max(axis=0), cmap="hot", origin="lower")
plt.title(f"{name}: maximum intensity projection along z")
plt.colorbar()
plt.savefig(f"{args.out}/mip_matplotlib.png", dpi=120)
print(f"wrote {args.out}/mip_matplotlib.png")
