"""Real Redis and PostgreSQL servers for the scale-out tests (bench/services.py starts them).

Outside CI a missing program skips the tests that need it (with the install command); in CI
(``CI=true``) it fails them, since ``make test`` should have installed it. A server that does
not start fails the test with its log.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

_SOURCE = Path(__file__).resolve().parents[2] / "bench" / "services.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("roborally_bench_services", _SOURCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


_services = _load()


@contextlib.contextmanager
def _started(start: Any) -> Iterator[Any]:
    try:
        with start() as server:
            yield server
    except _services.ServiceMissing as missing:
        if os.environ.get("CI"):
            pytest.fail(str(missing))
        pytest.skip(str(missing))
    except _services.ServiceFailed as failed:
        pytest.fail(str(failed))


def redis_server() -> contextlib.AbstractContextManager[Any]:
    """A fresh ``redis-server`` on a free loopback port (``.url``), stopped afterwards."""
    return _started(_services.redis_server)


def postgres_server() -> contextlib.AbstractContextManager[Any]:
    """A fresh PostgreSQL cluster on a free loopback port (``.url``), stopped afterwards."""
    return _started(_services.postgres_server)
