"""Shared fixtures of the npusim pytest suite."""

import numpy as np
import pytest


@pytest.fixture
def rng():
    """A seeded generator: every test sees the same inputs on every run."""
    return np.random.default_rng(20261127)


def pytest_terminal_summary(terminalreporter):
    """Prints the counts of the comparisons with ml_dtypes and torch: elements compared,
    equal, and each documented class of difference."""
    from comparison import TALLY

    if not TALLY:
        return
    w = terminalreporter
    w.section("npusim vs peers: elements compared, equal bits, documented differences")
    for (peer, kind), t in sorted(TALLY.items()):
        rest = ", ".join(f"{k}: {v}" for k, v in sorted(t.items()) if k not in ("compared", "equal"))
        w.write_line(f"{peer:9} {kind:34} compared {t['compared']:>10}  equal {t['equal']:>10}"
                     + (f"  ({rest})" if rest else ""))
