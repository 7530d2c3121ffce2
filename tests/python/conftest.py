"""pytest setup: the tomoraster CLI binary for the cross-checks with the C++ side
(TOMORASTER_CLI, set by tools/test.sh to build/apps/tomoraster)."""
import os
import shutil

import pytest

import tomoraster


def pytest_configure(config):
    tomoraster.quiet()


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("TOMORASTER_CLI") or shutil.which("tomoraster")
    if not path or not os.path.exists(path):
        pytest.fail("the tomoraster CLI is needed for the CLI cross-checks: set TOMORASTER_CLI (tools/test.sh does)")
    return path
