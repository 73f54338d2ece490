"""``rocketroute.protocol``'s public names: each is its submodule's object, found through one table."""

from __future__ import annotations

import importlib

import pytest


def test_every_name_of_the_remoting_package_resolves_to_its_submodule_s():
    import rocketroute.protocol as remoting

    for name in remoting.__all__:
        value = getattr(remoting, name)
        module = importlib.import_module(remoting._WHERE[name])
        assert value is getattr(module, name), name
    assert sorted(remoting.__all__) == sorted(remoting._WHERE)
    with pytest.raises(AttributeError, match="no_such_name"):
        remoting.no_such_name  # noqa: B018
