"""numba, typed: the decorator every kernel is compiled with, and the few LLVM
intrinsics the kernels share.

Why a module of its own: numba ships no type information, so mypy sees ``njit``
and ``intrinsic`` as ``Any`` and every decorated function as untyped.  The kernels
are compiled through :func:`kernel`, whose type says "returns the function it was
given": mypy then checks every kernel's body and every call of it against the
kernel's annotations (numba ignores annotations and infers its own types from the
arguments).  The intrinsics are typed the same way, as values of a declared
callable type.

The intrinsics: one machine instruction where numba would loop (``popcount``,
``lowest_bit``), a cache hint (``prefetch``), and arrays without their
reference-counted owner (``unmanaged``, ``span``, ``block``), which numba's own
slicing cannot make.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Protocol, TypeVar, cast

import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

_F = TypeVar("_F", bound=Callable[..., Any])
_A = TypeVar("_A", bound=npt.NDArray[Any])
_G = TypeVar("_G", bound=np.generic)

I64s = npt.NDArray[np.int64]
"""An int64 array (the kernels' state, tables and queues)."""
I8s = npt.NDArray[np.int8]
"""An int8 array (piles, action masks)."""
F32s = npt.NDArray[np.float32]
"""A float32 array (observation tensors)."""
F64s = npt.NDArray[np.float64]
"""A float64 array (uniform draws)."""
Reals = npt.NDArray[np.number[Any]]
"""An array of any numeric type (the tensor's constants: float32 in a batch, int64
in the one-hand array)."""
Ints = npt.NDArray[np.integer[Any]]
"""An array of any integer type (piles: int8 in a batch, int64 in the one-hand
array; numba compiles a specialisation for each)."""


def kernel(*, inline: bool = False, nogil: bool = False) -> Callable[[_F], _F]:
    """``numba.njit`` with the options every kernel shares, typed as returning the
    function it decorates (why: see the module's docstring).

    ``cache=True`` always (the compiled code is kept beside the source, so a new
    process compiles nothing); ``inline`` for a helper inlined into its callers at
    numba's IR level (free to call, so the kernels are split into named helpers
    without a cost); ``nogil`` for a kernel that touches only its own arrays and may
    run while other Python threads go on."""
    options: dict[str, Any] = {"cache": True}
    if inline:
        options["inline"] = "always"
    if nogil:
        options["nogil"] = True
    return cast(Callable[[_F], _F], njit(**options))


class _SameArray(Protocol):
    def __call__(self, arr: _A, /) -> _A: ...


class _Span(Protocol):
    def __call__(self, arr: npt.NDArray[_G], off: int, length: int, /) -> npt.NDArray[_G]: ...


class _Block(Protocol):
    def __call__(
        self, arr: npt.NDArray[_G], off: int, rows: int, cols: int, /
    ) -> npt.NDArray[_G]: ...


class _Prefetch(Protocol):
    def __call__(self, arr: npt.NDArray[Any], idx: int, /) -> None: ...


def _popcount_typer(typingctx: Any, x: Any) -> tuple[Any, Any]:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


def _lowest_bit_typer(typingctx: Any, x: Any) -> tuple[Any, Any]:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen


popcount: Final = cast(Callable[[int], int], intrinsic(_popcount_typer))
"""The number of set bits of an int64 (LLVM ``ctpop``: one ``popcnt``)."""

lowest_bit: Final = cast(Callable[[int], int], intrinsic(_lowest_bit_typer))
"""Index of the lowest set bit of a non-zero int64 (LLVM ``cttz``: one ``tzcnt``)."""


def _unmanaged_typer(typingctx: Any, arr: Any) -> tuple[Any, Any]:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        out = context.make_array(signature.return_type)(context, builder)
        context.populate_array(
            out,
            data=ary.data,
            shape=ary.shape,
            strides=ary.strides,
            itemsize=ary.itemsize,
            meminfo=None,
        )
        return out._getvalue()

    return arr(arr), codegen


unmanaged: Final = cast(_SameArray, intrinsic(_unmanaged_typer))
"""The same array without its reference-counted owner (why: numba counts a
reference each time an array is passed to an inlined helper, an atomic operation on
the hot path; for an array without an owner LLVM proves those counts are no-ops and
drops them).  Only for arrays the caller keeps alive for the whole kernel call,
which every kernel's arguments are."""


def _prefetch_typer(typingctx: Any, arr: Any, idx: Any) -> tuple[Any, Any]:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fn = builder.module.declare_intrinsic(
            "llvm.prefetch", fnty=ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        )
        builder.call(fn, [ptr, ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(arr, idx), codegen


prefetch: Final = cast(_Prefetch, intrinsic(_prefetch_typer))
"""Hint the CPU to fetch element ``idx`` of the C-contiguous ``arr`` (flat index)
into the cache, so that the misses of several hash-table probes known in advance
(the table slots of the hands ahead in a batch, a position's children) overlap
instead of queueing."""


def _view_codegen(ndim: int) -> Callable[[Any, Any, Any, Any], Any]:
    """The code of a view of ``ndim`` dimensions (1 or 2) at an offset of a
    C-contiguous 1-d array: its data pointer, shape and strides, no owner."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        src_ty = signature.args[0]
        ary = context.make_array(src_ty)(context, builder, args[0])
        out = context.make_array(signature.return_type)(context, builder)
        intp = types.intp
        dims = [
            context.cast(builder, v, t, intp)
            for v, t in zip(args[2:], signature.args[2:], strict=True)
        ]
        size = context.get_abi_sizeof(context.get_data_type(src_ty.dtype))
        itemsize = context.get_constant(intp, size)
        strides = [itemsize] if ndim == 1 else [builder.mul(dims[1], itemsize), itemsize]
        context.populate_array(
            out,
            data=builder.gep(ary.data, [context.cast(builder, args[1], signature.args[1], intp)]),
            shape=cgutils.pack_array(builder, dims),  # type: ignore[no-untyped-call]
            strides=cgutils.pack_array(builder, strides),  # type: ignore[no-untyped-call]
            itemsize=itemsize,
            meminfo=None,
        )
        return out._getvalue()

    return codegen


def _span_typer(typingctx: Any, arr: Any, off: Any, length: Any) -> tuple[Any, Any]:
    return types.Array(arr.dtype, 1, "C")(arr, off, length), _view_codegen(1)


def _block_typer(typingctx: Any, arr: Any, off: Any, rows: Any, cols: Any) -> tuple[Any, Any]:
    return types.Array(arr.dtype, 2, "C")(arr, off, rows, cols), _view_codegen(2)


span: Final = cast(_Span, intrinsic(_span_typer))
"""``arr[off : off + length]`` of a C-contiguous 1-d array as a view without an
owner (like :data:`unmanaged`), made in a few instructions: numba's slicing and
``reshape`` cost some 25 ns a view, which the one-hand kernels, making a dozen
views of one array per call, would pay on every step.  No bounds are checked."""

block: Final = cast(_Block, intrinsic(_block_typer))
"""``arr[off : off + rows * cols].reshape(rows, cols)`` of a C-contiguous 1-d array
as a view without an owner (see :data:`span`)."""
