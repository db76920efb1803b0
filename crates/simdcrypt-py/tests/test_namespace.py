"""The public namespace: ``dir(simdcrypt)`` shows the API of ``__all__`` and nothing else
(no typing helpers), and every name in it exists and is documented."""

from __future__ import annotations

import types

import simdcrypt


def test_dir_is_all_plus_dunders_and_submodules() -> None:
    public = {name for name in dir(simdcrypt) if not name.startswith("_")}
    # Submodules become attributes once imported (by the tests, say): allowed, not API.
    submodules = {name for name in public if isinstance(getattr(simdcrypt, name), types.ModuleType)}
    assert public - submodules == set(simdcrypt.__all__) - {"__version__"}
    assert len(simdcrypt.__all__) == len(set(simdcrypt.__all__))
    for helper in ("Any", "Callable", "Literal", "Union", "overload", "TYPE_CHECKING", "annotations"):
        assert helper not in dir(simdcrypt)


def test_every_exported_name_exists_and_is_documented() -> None:
    module_doc = simdcrypt.__doc__ or ""
    for name in simdcrypt.__all__:
        assert hasattr(simdcrypt, name), name
        obj = getattr(simdcrypt, name)
        if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
            doc = obj.__doc__ or ""
            assert doc.strip(), f"{name} has no docstring"
            # Not a docstring inherited from object or a builtin base class.
            assert doc not in (type(obj).__doc__, object.__doc__), name
        else:
            # Data (the version, algorithms_available): described in the module docstring.
            assert f"simdcrypt.{name}" in module_doc, f"{name} is not described in the module docstring"


def test_native_module_exports_match_the_package() -> None:
    native = set(simdcrypt._native.__all__) if hasattr(simdcrypt._native, "__all__") else None
    # What __init__.py adds itself, and chunks()/Chunks (python/simdcrypt/_chunking.py, on
    # the native _chunk_table/_ChunkIter).
    exported = set(simdcrypt.__all__) - {"algorithms_available", "new", "Chunks", "chunks"}
    assert simdcrypt.chunks is simdcrypt._chunking.chunks and simdcrypt.Chunks is simdcrypt._chunking.Chunks
    for name in exported:
        assert getattr(simdcrypt, name) is getattr(simdcrypt._native, name)
    if native is not None:
        assert exported <= native


def test_hash_classes_come_from_the_native_registration() -> None:
    # lib.rs's add_hash_class enters each class in _HASH_CLASSES under its Python name;
    # __init__.py exports them and builds new() and algorithms_available from that table.
    classes = simdcrypt._native._HASH_CLASSES
    assert sorted(classes) == sorted(cls.__name__ for cls in classes.values())
    for name, cls in classes.items():
        assert name in simdcrypt.__all__ and getattr(simdcrypt, name) is cls
    assert simdcrypt.algorithms_available == {n for n in simdcrypt._native.ALGORITHMS if n in classes} | {"gost94-test"}
    for name in simdcrypt.algorithms_available - {"gost94-test"}:
        kwargs = {"key": bytes(32)} if name.startswith("highwayhash") else {}
        assert type(simdcrypt.new(name, **kwargs)) is classes[name]
    # The HMAC classes are hash classes but no algorithms of new().
    assert "hmac_streebog256" in classes and "hmac_streebog256" not in simdcrypt.algorithms_available
    assert "ALGORITHMS" not in simdcrypt.__all__ and not hasattr(simdcrypt, "ALGORITHMS")
