from __future__ import annotations

from collections.abc import Iterator

import pytest

from ._oracle import LABELS, LiveOracle


@pytest.fixture(scope="session", params=list(LABELS))
def oracle(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveOracle]:
    """The live Java oracle of one ``rocketmq-client`` release (4.9.8, 5.3.3, 5.5.0)."""
    live = LiveOracle(request.param, tmp_path_factory)
    yield live
    live.close()
