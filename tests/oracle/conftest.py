from __future__ import annotations

from collections.abc import Iterator

import pytest

from ._oracle import GRPC_LABEL, LABELS, LiveOracle


@pytest.fixture(scope="session", params=list(LABELS))
def oracle(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveOracle]:
    """The live Java oracle of one ``rocketmq-client`` release (4.9.8, 5.3.3, 5.5.0)."""
    live = LiveOracle(request.param, tmp_path_factory)
    yield live
    live.close()


@pytest.fixture(scope="session")
def grpc_oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveOracle]:
    """The live oracle of the 5.x gRPC client's balancers (``rocketmq-client-java`` 5.2.0)."""
    live = LiveOracle(GRPC_LABEL, tmp_path_factory)
    yield live
    live.close()
