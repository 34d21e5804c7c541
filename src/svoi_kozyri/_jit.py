# mypy: ignore-errors
"""Small numba intrinsics shared by the compiled kernels (the solver's fixpoint in
:mod:`svoi_kozyri.bots.search._fixgraph`, the simulators in
:mod:`svoi_kozyri.envs`): one machine instruction where numba would loop, and
arrays without their reference-counted owner.

mypy does not check this module: numba infers its types.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of an int64 (LLVM ``ctpop``: one ``popcnt``)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def lowest_bit(typingctx, x):
    """Index of the lowest set bit of a non-zero int64 (LLVM ``cttz``: one ``tzcnt``)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@intrinsic
def unmanaged(typingctx, arr):
    """The same array without its reference-counted owner (why: numba counts a
    reference each time an array is passed to an inlined helper, an atomic
    operation on the hot path; for an array without an owner LLVM proves those
    counts are no-ops and drops them).  Only for arrays the caller keeps alive
    for the whole kernel call, which every kernel's arguments are."""

    def codegen(context, builder, signature, args):
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


@intrinsic
def prefetch(typingctx, arr, idx):
    """Hint the CPU to fetch element ``idx`` of the C-contiguous ``arr`` (flat index)
    into the cache, so that the misses of several hash-table probes known in advance
    (the table slots of the hands ahead in a batch, a position's children) overlap
    instead of queueing."""
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fn = builder.module.declare_intrinsic(
            "llvm.prefetch", fnty=ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        )
        builder.call(fn, [ptr, ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen
