"""Reconstruct a scene with tomoraster and show a MIP of the result with matplotlib
(`pip install .[examples]` brings it).

    python examples/reconstruct_scene.py [scene] [--backend cpu|gl|gl-compute|cuda|auto] [--set key=value ...]
"""
import argparse
import json

import matplotlib.pyplot as plt

import tomoraster

parser = argparse.ArgumentParser()
parser.add_argument("scene", nargs="?", default=None, help="scene file or embedded name (default: the default scene)")
parser.add_argument("--backend", default="auto")
parser.add_argument("--out", default="out/python-example")
parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a scene override, as the CLI's")
args = parser.parse_args()


def toml_value(text):
    """"20" → 20, "0.5" → 0.5, "[1, 2]" → [1, 2], "true" → True; other text stays a string."""
    try:
        return json.loads(text)
    except ValueError:
        return text


overrides = {k: toml_value(v) for k, v in (kv.split("=", 1) for kv in args.set)}

report = tomoraster.run(args.scene, backend=args.backend, out=args.out, force=True, set=overrides)
name = next(n for n in report["volumes"] if not n.startswith(("phantom", "sensitivity")))
volume = report["volumes"][name]
print(f"{report['problem']} on {report['backend']}: {name} {volume.shape}, metrics {report.get('metrics', {})}")
plt.imshow(volume.max(axis=0), cmap="hot", origin="lower")
plt.title(f"{name}: maximum intensity projection along z")
plt.colorbar()
plt.savefig(f"{args.out}/mip_matplotlib.png", dpi=120)
print(f"wrote {args.out}/mip_matplotlib.png")
