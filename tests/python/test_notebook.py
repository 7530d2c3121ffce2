"""What a notebook user meets: Ctrl-C inside a long C++ loop raises KeyboardInterrupt within a
second, quiet() silences the Python side's progress bars too, operators print usefully."""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import tomoraster

SCRIPT = textwrap.dedent("""
    import sys, time, numpy as np, tomoraster
    tomoraster.quiet()
    # small: Ctrl-C is seen between iterations, so one iteration must be well under a second
    H = tomoraster.oat.Model("oat_default.toml", backend="cpu", grid=[8, 8, 8], voxel_mm=2.0, rings=4, views=8,
                             radius_mm=20.0)
    u = np.random.default_rng(0).random(H.data_shape)
    print("ready", flush=True)
    t0 = time.monotonic()
    try:
        tomoraster.oat.pls(H, u, iterations=100000)
    except KeyboardInterrupt:
        print("KeyboardInterrupt", flush=True)
        sys.exit(0)
    print("returned", flush=True)
""")


def ctrl_c_reply(script, *args, wait_s):
    """Runs `script` in a Python of its own, sends it Ctrl-C `wait_s` after it prints "ready", and
    returns the next line it prints and how many seconds after the signal that came."""
    # SIGINT back to its default in the child, as at a terminal: a test run started in the
    # background (`cmd &` in a script) ignores SIGINT, Python then installs no KeyboardInterrupt
    # handler, and the child would never see the Ctrl-C this test sends.
    p = subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE, text=True, env=os.environ,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert p.stdout.readline().strip() == "ready"
    time.sleep(wait_s)  # inside the C++ work
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    got = []
    reader = threading.Thread(target=lambda: got.append((p.stdout.readline().strip(), time.monotonic())), daemon=True)
    reader.start()
    reader.join(10)
    if not got:
        p.kill()
        pytest.fail("Ctrl-C was ignored: the call still ran 10 s later")
    p.wait(timeout=30)
    return got[0][0], got[0][1] - sent


def test_ctrl_c_during_oat_pls_raises_keyboard_interrupt_within_a_second():
    line, elapsed = ctrl_c_reply(SCRIPT, wait_s=1.0)
    assert line == "KeyboardInterrupt"
    assert elapsed < 1.5, elapsed


RUN_SCRIPT = textwrap.dedent("""
    import os, sys, tomoraster
    tomoraster.quiet()
    out = sys.argv[1]
    print("ready", flush=True)
    try:
        tomoraster.run("strip_default.toml", backend="cpu", out=out, load=False,
                       set={"strip.events": 20000, "strip.iterations": 100000, "strip.save_iterations": []})
    except KeyboardInterrupt:
        print("KeyboardInterrupt" if not os.path.exists(out) else "left " + out, flush=True)
        sys.exit(0)
    print("returned", flush=True)
""")


def test_ctrl_c_during_run_raises_keyboard_interrupt_and_leaves_nothing(tmp_path):
    line, elapsed = ctrl_c_reply(RUN_SCRIPT, str(tmp_path / "o"), wait_s=2.0)
    assert line == "KeyboardInterrupt"  # not "left <folder>"
    assert elapsed < 1.5, elapsed


def test_quiet_silences_the_python_progress_bars(capsys):
    pytest.importorskip("tqdm")
    s = tomoraster.strip.Projector("strip_default.toml", backend="cpu")
    ev = np.zeros((8, 3), np.float32)
    tomoraster.quiet(False)
    try:
        tomoraster.strip.mlem(s, ev, iterations=2)
        assert "strip ML-EM" in capsys.readouterr().err
        tomoraster.quiet(True)
        tomoraster.strip.mlem(s, ev, iterations=2)
        assert capsys.readouterr().err == ""
    finally:
        tomoraster.quiet(True)


def test_operators_have_a_repr():
    s = tomoraster.strip.Projector("strip_default.toml", backend="cpu")
    assert repr(s).startswith("tomoraster.strip.Projector(backend=") and f"image_shape={s.image_shape}" in repr(s)
    H = tomoraster.oat.Model(backend="cpu", grid=[8, 8, 8], voxel_mm=2.0, rings=4, views=8)
    assert f"data_shape={H.data_shape}" in repr(H)


CELL = textwrap.dedent("""
    import io, sys, tomoraster
    cell = io.StringIO()          # a notebook cell: Python's stderr is not the process's
    sys.stderr = cell
    tomoraster.quiet(False)
    tomoraster.run("strip_default.toml", backend="cpu", out=OUT, load=False,
                   set={"strip.events": 2000, "strip.iterations": 3, "strip.save_iterations": []})
    sys.stderr = sys.__stderr__
    print(cell.getvalue())
""")


def test_cpp_log_and_progress_lines_reach_the_cell(tmp_path):
    r = subprocess.run([sys.executable, "-c", f"OUT = {str(tmp_path / 'o')!r}\n" + CELL], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "[info] strip: correlation" in r.stdout  # a log line, through logging into the cell
    assert "3/3" in r.stdout  # the progress bar (a tqdm.auto bar where tqdm is installed)
    try:
        import tqdm  # noqa: F401
        assert "strip ML-EM (cpu): 100%" in r.stdout
    except ImportError:
        pass
    assert "[info]" not in r.stderr  # not past it onto the process's stderr
