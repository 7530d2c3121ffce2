#!/usr/bin/env python3
"""Writes tests/musr/root_compression/*.root with uproot (pip install uproot numpy), an
independent ROOT writer: one TH1F "hDecay001" of 2000 bins (counts 1000 e^(-i/400) + 7 (i % 13),
whole numbers) in a file each uncompressed, zlib, LZ4, ZSTD and LZMA compressed. The object's
bytes are the same in every file; tests/musr/root_run_test.cpp checks that tomoraster's reader
decompresses each to the uncompressed file's bytes. Run from the repository root:
python3 tests/musr/reference/root_compression_files.py
"""
import numpy as np
import uproot

i = np.arange(2000)
counts = np.floor(1000 * np.exp(-i / 400.0)) + 7 * (i % 13)
edges = np.linspace(0.0, 2000.0, 2001)
for name, compression in [("none", None), ("zlib", uproot.ZLIB(1)), ("lz4", uproot.LZ4(4)), ("zstd", uproot.ZSTD(5)), ("lzma", uproot.LZMA(5))]:
    with uproot.recreate("tests/musr/root_compression/th1f_%s.root" % name, compression=compression) as f:
        f["hDecay001"] = (counts.astype(np.float32), edges)
