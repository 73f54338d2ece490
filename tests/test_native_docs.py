"""Every public class, function, method and property of ``rocketroute._native`` has its own ``__doc__``.

The docs come from the Rust ``///`` comments (PyO3 turns them into ``__doc__``); ``_native.pyi`` holds the same
text for type checkers and editors, but ``help()`` and ``__doc__`` at runtime read the extension itself.
"""

from __future__ import annotations

import inspect
import types

import pytest

import rocketroute

from .conftest import ALLOW_NO_NATIVE_ENV, native_allowed_missing, native_missing_reason

# Class attributes that are plain values: an int cannot carry a doc of its own (its __doc__ is int's).
VALUE_ATTRIBUTES = {"PermName": {"PERM_PRIORITY", "PERM_READ", "PERM_WRITE", "PERM_INHERIT"}}


@pytest.fixture(scope="module")
def native(backend_names):
    """The extension; as for the ``backend`` fixture, a missing one fails unless it is allowed to be missing."""
    if "native" not in backend_names:
        pytest.skip("--backends does not include native")
    if rocketroute.BACKEND != "native":
        reason = native_missing_reason()
        if native_allowed_missing():
            pytest.skip(f"{ALLOW_NO_NATIVE_ENV}=1: {reason}")
        pytest.fail(reason, pytrace=False)
    from rocketroute import _native

    return _native


def _public(names):
    return sorted(n for n in names if not n.startswith("_"))


def _members(native):
    """``(qualified name, object, kind)`` of every public function, class and class member of the module.

    A member is found with ``getattr_static`` on the class (an inherited one too, from the class that defines
    it), so a property is its descriptor and a static method its ``staticmethod`` wrapper.
    """
    out = []
    for name in _public(dir(native)):
        obj = getattr(native, name)
        if inspect.isclass(obj):
            out.append((name, obj, "class"))
            for attr in _public(dir(obj)):
                member = inspect.getattr_static(obj, attr)
                qualified = f"{name}.{attr}"
                if attr in VALUE_ATTRIBUTES.get(name, ()):
                    assert isinstance(member, int), qualified
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    out.append((qualified, member.__func__, type(member).__name__))
                elif isinstance(member, (types.GetSetDescriptorType, types.MemberDescriptorType, property)):
                    out.append((qualified, member, "property"))
                elif isinstance(member, (types.MethodDescriptorType, types.BuiltinFunctionType)):
                    out.append((qualified, member, "method"))
                else:
                    pytest.fail(f"{qualified}: a member of an unexpected kind ({type(member).__name__})")
        elif isinstance(obj, types.BuiltinFunctionType):
            out.append((name, obj, "function"))
    return out


def _own_doc(obj, kind):
    """The object's own doc: a class's from its ``__dict__`` (not a base's); ``None`` when it has none."""
    if kind == "class":
        return obj.__dict__.get("__doc__")
    return obj.__doc__


def test_the_walk_finds_every_kind_of_member(native):
    """The walk below is not vacuous: it reaches classes, functions, methods, properties and static methods."""
    kinds = {kind for _, _, kind in _members(native)}
    assert {"class", "function", "method", "property", "staticmethod"} <= kinds
    assert len(_members(native)) > 150


def test_every_public_native_item_has_its_own_doc(native):
    undocumented = []
    for qualified, obj, kind in _members(native):
        doc = _own_doc(obj, kind)
        inherited = {object.__doc__, type(obj).__doc__}
        if not isinstance(doc, str) or not doc.strip() or doc in inherited:
            undocumented.append(f"{qualified} ({kind})")
    assert not undocumented, "no __doc__: " + ", ".join(undocumented)


def test_docs_leave_the_text_signatures_intact(native):
    """PyO3 writes a callable's text signature in the first line of its doc: a doc comment must not lose it."""
    missing = []
    for qualified, obj, kind in _members(native):
        if kind == "property":
            continue
        if kind == "class" and "__new__" not in vars(obj):
            continue  # not instantiable from Python (PermName, the strategies' base): no constructor signature
        if obj.__text_signature__ is None:
            missing.append(qualified)
        else:
            inspect.signature(obj)
        assert not (_own_doc(obj, kind) or "").startswith(obj.__name__ + "("), qualified
    assert not missing, "no __text_signature__: " + ", ".join(missing)
