"""Kernels written in Python (tilecast.Kernel, @tilecast.jit): the examples against numpy on
ragged shapes, their WGSL against their Rust twins', listings for other profiles, the compile
cache, the builder without jit, and deliberate mistakes, each a named exception at its line."""

import inspect
import math
import pathlib
import sys

import numpy as np
import pytest

import tilecast as tc

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "examples"))

import flash_attention  # noqa: E402
import gemm  # noqa: E402
import q4_0_gemv  # noqa: E402
import rms_norm  # noqa: E402
import softmax  # noqa: E402

EXAMPLES = [gemm, softmax, rms_norm, flash_attention, q4_0_gemv]


@pytest.mark.parametrize("shape", [(75, 83, 70), (1, 130, 33)])
def test_gemm_matches_numpy(shape):
    assert gemm.check(*shape) < 1e-3


@pytest.mark.parametrize("shape", [(13, 301), (5, 7), (1, 129)])
def test_softmax_matches_numpy(shape):
    assert softmax.check(*shape) < 1e-5


@pytest.mark.parametrize("shape", [(11, 203), (3, 5)])
def test_rms_norm_matches_numpy(shape):
    assert rms_norm.check(*shape) < 1e-4


@pytest.mark.parametrize("shape", [(2, 4, 2, 37, 45, 64), (1, 6, 3, 29, 29, 64), (1, 2, 1, 1, 70, 64)])
def test_flash_attention_matches_numpy(shape):
    # f16 probabilities and output: about 1e-3 of values near 1.
    assert flash_attention.check(*shape) < 4e-3


def test_flash_attention_head_size_is_fixed_by_the_constant():
    q = np.zeros((1, 2, 3, 32), np.float16)
    k = np.zeros((1, 1, 3, 32), np.float16)
    with pytest.raises(ValueError, match=r"Q dimension 3 must be 64"):
        flash_attention.flash_attention(q, k, k, scale=1.0)


@pytest.mark.parametrize("shape", [(77, 320), (3, 32), (40, 4096)])
def test_q4_0_gemv_matches_numpy(shape):
    assert q4_0_gemv.check(*shape) < 1e-3


def test_q4_0_gemv_reads_the_library_quantizers_bytes():
    # The library packs Q4_0 as ggml does; the Python kernel reads those bytes in place.
    rng = np.random.default_rng(5)
    w = rng.standard_normal((45, 96)).astype(np.float32)
    x = rng.standard_normal(96).astype(np.float32)
    q = tc.ops.quantize(w, "q4_0")
    want = np.from_dlpack(tc.ops.dequantize(q, "q4_0", 96)) @ x
    got = np.from_dlpack(q4_0_gemv.q4_0_gemv(q, x))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(np.from_dlpack(q), q4_0_gemv.quantize_q4_0(w))


@pytest.mark.parametrize("module", EXAMPLES, ids=lambda m: m.__name__)
def test_wgsl_is_byte_identical_to_the_rust_twin(module):
    # crates/tilecast-lang/tests/python_twins.rs builds the same kernel in Rust and checks its
    # WGSL against the same file.
    fn = getattr(module, module.__name__)
    want = (HERE / "twins" / f"{module.__name__}.wgsl").read_text()
    assert fn.source("wgsl", profile="vulkan-lavapipe") == want


@pytest.mark.parametrize("target", ["msl", "spirv", "ir", "wgsl"])
def test_listings_for_a_device_this_machine_lacks(target):
    text = gemm.gemm.source(target, profile="vulkan-nvidia")
    assert "gemm" in text
    if target == "ir":
        assert "matrix units on profile vulkan-nvidia" in text
    msl = gemm.gemm.source("msl", profile="metal-apple7")
    assert "simdgroup" in msl


def test_unknown_target_and_profile_are_value_errors():
    with pytest.raises(ValueError, match="unknown target"):
        gemm.gemm.source("ptx", profile="vulkan-lavapipe")
    with pytest.raises(ValueError, match="unknown target profile"):
        gemm.gemm.source("wgsl", profile="cuda")


def test_second_call_compiles_nothing():
    a = np.ones((5, 7), np.float32)
    softmax.softmax(a)
    program = softmax.softmax.compile()
    kernel = softmax.softmax.kernel()
    softmax.softmax(a)
    assert softmax.softmax.compile() is program
    assert softmax.softmax.kernel() is kernel
    # Other constants are another kernel.
    assert softmax.softmax.kernel(BC=64) is not kernel


def test_outputs_fill_a_given_buffer():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = tc.Buffer("f32", [3, 4])
    got = softmax.softmax(x, out)
    assert got is out
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(np.from_dlpack(out), e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_jit_call_errors_name_the_argument():
    x = np.ones((3, 4), np.float32)
    with pytest.raises(TypeError, match=r"X is tilecast.Tensor\[f32, 'R', 'C'\]; got a f16"):
        softmax.softmax(x.astype(np.float16))
    with pytest.raises(TypeError, match="has no argument stram"):
        softmax.softmax(x, stram=None)
    with pytest.raises(TypeError, match="needs scalar eps"):
        rms_norm.rms_norm(x, np.ones(4, np.float32))
    with pytest.raises(ValueError, match=r"W dimension 0 must be 4"):
        rms_norm.rms_norm(x, np.ones(5, np.float32), eps=1e-5)
    with pytest.raises(TypeError, match="takes 3 arguments"):
        gemm.gemm(x, x, x, x)


def test_the_builder_without_jit():
    k = tc.Kernel("add_one", grid=[tc.ceil_div(tc.sym("N"), 64)], threads=64)
    X = k.input("X", tc.f32, ["N"])
    Y = k.param("Y", tc.f32, ["N"])
    with k.parallel(64) as i:
        n = tc.block_x() * 64 + i
        Y[n] = X[n] + 1.0
    prog = k.compile()
    x = tc.Buffer.from_numpy(np.arange(100, dtype=np.float32))
    (y,) = prog.launch([x, None])
    np.testing.assert_array_equal(np.from_dlpack(y), np.arange(100, dtype=np.float32) + 1)
    assert prog.params == [("X", "f32", False), ("Y", "f32", True)]
    assert "fn tc_add_one" in k.source("wgsl")


def test_for_loops_spell_blocks_as_tilelang_does():
    k = tc.Kernel("twice", grid=[tc.ceil_div(tc.sym("N"), 32)], threads=32)
    X = k.input("X", tc.f32, ["N"])
    Y = k.param("Y", tc.f32, ["N"])
    t = k.shared(tc.f32, [32])
    k.copy(X[tc.block_x() * 32], t)
    for i in k.parallel(32):
        t[i] = t[i] * 2.0
    k.copy(t, Y[tc.block_x() * 32])
    (y,) = k.compile().launch([tc.Buffer.from_numpy(np.ones(45, np.float32)), None])
    np.testing.assert_array_equal(np.from_dlpack(y), np.full(45, 2.0, np.float32))


def test_expressions_print_and_use_logical_and_between_comparisons():
    n = tc.sym("N")
    assert repr(n * 2 + 1) == "tilecast.Expr(((N * 2) + 1))"
    assert repr((n < 1) & (n > 2)) == "tilecast.Expr(((N < 1) && (N > 2)))"
    assert repr(n & 3) == "tilecast.Expr((N & 3))"
    assert repr(2 ** n) == "tilecast.Expr(pow(2, N))"
    assert tc.f16.itemsize == 2 and str(tc.bf16) == "bf16"


# Deliberate mistakes. Each case makes one; the line marked `# fault` is where the exception
# must point. `(case, exception class, text in the message)`.


def _kernel():
    k = tc.Kernel("mistake", grid=[tc.ceil_div(tc.sym("N"), 64)], threads=64)
    X = k.input("X", tc.f32, ["N"])
    Y = k.param("Y", tc.f32, ["N"])
    return k, X, Y


def m_if_on_expression():
    k, X, Y = _kernel()
    with k.parallel(64) as i:
        if i < 3:  # fault
            Y[i] = X[i]


def m_and_on_expressions():
    k, X, Y = _kernel()
    with k.parallel(64) as i:
        Y[i] = tc.select((i < 3) and (i > 1), X[i], 0.0)  # fault


def m_range_over_symbol():
    k, X, Y = _kernel()
    for _ in range(tc.sym("N")):  # fault
        pass


def m_float_of_expression():
    return float(tc.sym("N") * 2.0)  # fault


def m_else_without_if():
    k, X, Y = _kernel()
    with k.else_():  # fault
        pass


def m_else_after_else():
    k, X, Y = _kernel()
    t = k.shared(tc.f32, [64])
    with k.if_(tc.sym("N") > 3):
        k.clear(t)
    with k.else_():
        k.clear(t)
    with k.else_():  # fault
        k.clear(t)


def m_whole_parameter_copied():
    k, X, Y = _kernel()
    t = k.shared(tc.f32, [64])
    k.copy(X, t)  # fault


def m_parameter_as_gemm_operand():
    k, X, Y = _kernel()
    b = k.shared(tc.f16, [16, 16])
    acc = k.fragment(tc.f32, [16, 16])
    k.gemm(X, b, acc)  # fault


def m_tile_of_another_kernel():
    k, X, Y = _kernel()
    k2, _, _ = _kernel()
    t2 = k2.shared(tc.f32, [64])
    k.clear(t2)  # fault


def m_shape_with_a_name():
    k, X, Y = _kernel()
    k.shared(tc.f16, [32, "x"])  # fault


def m_unknown_dtype():
    k, X, Y = _kernel()
    k.input("W", "f17", ["N"])  # fault


def m_bool_in_expression():
    return tc.sym("N") + True  # fault


def m_unknown_reduction():
    k, X, Y = _kernel()
    a = k.fragment(tc.f32, [4, 64])
    r = k.shared(tc.f32, [4])
    k.reduce(a, r, 1, op="median")  # fault


def m_parallel_without_extents():
    k, X, Y = _kernel()
    k.parallel()  # fault


def m_invert():
    return ~tc.sym("N")  # fault


def m_fill_a_parameter():
    k, X, Y = _kernel()
    k.fill(Y, 0.0)  # fault


def m_string_in_math():
    return tc.exp("x")  # fault


def m_op_after_compile():
    k, X, Y = _kernel()
    t = k.shared(tc.f32, [64])
    k.copy(X[0], t)
    k.copy(t, Y[0])
    k.compile(profile="vulkan-lavapipe")
    k.clear(t)  # fault


def m_parameter_before_kernel():
    @tc.jit
    def early(X: tc.Tensor[tc.f32, "N"], Y: tc.Out[tc.f32, "N"]) -> None:
        Y[0] = X[0]  # fault
        tc.Kernel(grid=[1], threads=64)

    early.kernel()


def m_gemm_inner_dimensions():
    k, X, Y = _kernel()
    a = k.shared(tc.f16, [32, 16])
    acc = k.fragment(tc.f32, [32, 32])
    k.gemm(a, a, acc)  # fault
    k.compile(profile="vulkan-lavapipe")


def m_copy_shapes_differ():
    k, X, Y = _kernel()
    small = k.shared(tc.f32, [32])
    big = k.shared(tc.f32, [64])
    k.copy(X[0], big)
    k.copy(small, big)  # fault
    k.compile(profile="vulkan-lavapipe")


def m_write_an_input():
    k, X, Y = _kernel()
    with k.parallel(64) as i:
        X[i] = 1.0  # fault
    k.compile(profile="vulkan-lavapipe")


def m_copy_into_an_input():
    k, X, Y = _kernel()
    t = k.shared(tc.f32, [64])
    k.clear(t)
    k.copy(t, X[0])  # fault
    k.compile(profile="vulkan-lavapipe")


def m_empty_tile():
    k, X, Y = _kernel()
    k.shared(tc.f32, [0, 4])  # fault
    k.compile(profile="vulkan-lavapipe")


def m_too_much_shared_memory():
    k = tc.Kernel("big", grid=[1], threads=64)  # fault
    X = k.input("X", tc.f32, ["N"])
    t = k.shared(tc.f32, [40000])
    k.copy(X[0], t)
    k.compile(profile="vulkan-lavapipe")


def m_zero_threads():
    k = tc.Kernel("nothreads", grid=[1], threads=0)  # fault
    k.input("X", tc.f32, ["N"])
    k.compile(profile="vulkan-lavapipe")


def m_four_grid_entries():
    k = tc.Kernel("grid4", grid=[1, 1, 1, 1], threads=64)  # fault
    k.input("X", tc.f32, ["N"])
    k.compile(profile="vulkan-lavapipe")


def m_bit_field_past_the_word():
    k, X, Y = _kernel()
    W = k.input("W", tc.u32, ["N"])
    with k.parallel(64) as i:
        Y[i] = tc.cast(W[i].bits(20, 16), tc.f32)  # fault
    k.compile(profile="vulkan-lavapipe")


def m_reduce_axis_out_of_range():
    k, X, Y = _kernel()
    a = k.fragment(tc.f32, [4, 64])
    r = k.shared(tc.f32, [4])
    k.reduce_sum(a, r, 2)  # fault
    k.compile(profile="vulkan-lavapipe")


def m_gemm_into_shared():
    k, X, Y = _kernel()
    a = k.shared(tc.f16, [16, 16])
    c = k.shared(tc.f32, [16, 16])
    k.gemm(a, a, c)  # fault
    k.compile(profile="vulkan-lavapipe")


def m_atomic_add_on_floats():
    k, X, Y = _kernel()
    with k.parallel(64) as i:
        k.atomic_add(Y, i, 1.0)  # fault
    k.compile(profile="vulkan-lavapipe")


def m_cumsum_shapes_differ():
    k, X, Y = _kernel()
    a = k.fragment(tc.f32, [4, 64])
    b = k.fragment(tc.f32, [4, 32])
    k.cumsum(a, b, 1)  # fault
    k.compile(profile="vulkan-lavapipe")


def m_jit_without_kernel():
    @tc.jit
    def nothing(X: tc.Tensor[tc.f32, "N"]) -> None:
        pass

    nothing.kernel()  # fault


def m_mistake_in_a_nested_branch():
    k, X, Y = _kernel()
    small = k.shared(tc.f32, [32])
    big = k.shared(tc.f32, [64])
    with k.serial(4):
        with k.if_(tc.sym("N") > 1):
            k.clear(big)
        with k.else_():
            k.clear(small)
            k.copy(small, big)  # fault
    k.compile(profile="vulkan-lavapipe")


def m_dtype_mismatch_in_fill():
    k, X, Y = _kernel()
    t = k.shared(tc.u32, [64])
    k.fill(t, tc.sym("N") < 3)  # fault
    k.compile(profile="vulkan-lavapipe")


MISTAKES = [
    (m_if_on_expression, tc.KernelBuildError, "has no truth value"),
    (m_and_on_expressions, tc.KernelBuildError, "has no truth value"),
    (m_range_over_symbol, tc.KernelBuildError, "k.serial(n)"),
    (m_float_of_expression, tc.KernelBuildError, "has no value"),
    (m_else_without_if, tc.KernelBuildError, "must follow an if block"),
    (m_else_after_else, tc.KernelBuildError, "has an else branch already"),
    (m_whole_parameter_copied, tc.KernelBuildError, "a whole parameter is not a region"),
    (m_parameter_as_gemm_operand, tc.KernelBuildError, "gemm's A must be a tile"),
    (m_tile_of_another_kernel, tc.KernelBuildError, "belongs to another kernel"),
    (m_shape_with_a_name, tc.KernelBuildError, "a tile's shape is a list of whole numbers"),
    (m_unknown_dtype, tc.KernelBuildError, "dtype \"f17\" has no tilecast dtype"),
    (m_bool_in_expression, tc.KernelBuildError, "a Python bool is not a kernel expression"),
    (m_unknown_reduction, tc.KernelBuildError, "unknown reduction \"median\""),
    (m_parallel_without_extents, tc.KernelBuildError, "at least one extent"),
    (m_invert, tc.KernelBuildError, "~ has no kernel operator"),
    (m_fill_a_parameter, tc.KernelBuildError, "fill's tile must be a tile"),
    (m_string_in_math, tc.KernelBuildError, "expected a kernel expression or a number; got str"),
    (m_op_after_compile, tc.KernelBuildError, "is built already"),
    (m_parameter_before_kernel, tc.KernelBuildError, "does not exist yet"),
    (m_gemm_inner_dimensions, tc.KernelVerifyError, "inner dimensions differ"),
    (m_copy_shapes_differ, tc.KernelVerifyError, "copy small"),
    (m_write_an_input, tc.KernelVerifyError, "X"),
    (m_copy_into_an_input, tc.KernelVerifyError, "X"),
    (m_empty_tile, tc.KernelVerifyError, "must have at least one dimension and no zero"),
    (m_too_much_shared_memory, tc.KernelVerifyError, "threadgroup memory"),
    (m_zero_threads, tc.KernelVerifyError, "0 threads per threadgroup"),
    (m_four_grid_entries, tc.KernelVerifyError, "a grid has 1 to 3"),
    (m_bit_field_past_the_word, tc.KernelVerifyError, "bits(20, 16)"),
    (m_reduce_axis_out_of_range, tc.KernelVerifyError, "axis"),
    (m_gemm_into_shared, tc.KernelVerifyError, "gemm"),
    (m_atomic_add_on_floats, tc.KernelVerifyError, "atomic"),
    (m_cumsum_shapes_differ, tc.KernelVerifyError, "cumsum"),
    (m_jit_without_kernel, tc.KernelBuildError, "created no kernel"),
    (m_mistake_in_a_nested_branch, tc.KernelVerifyError, "copy small"),
    (m_dtype_mismatch_in_fill, tc.KernelVerifyError, "fill"),
]


def _fault_line(fn):
    lines, first = inspect.getsourcelines(fn)
    marked = [first + i for i, text in enumerate(lines) if text.rstrip().endswith("# fault")]
    assert len(marked) == 1, fn.__name__
    return marked[0]


def test_there_are_thirty_or_more_mistakes():
    assert len(MISTAKES) >= 30


@pytest.mark.parametrize("case,cls,text", MISTAKES, ids=[m[0].__name__ for m in MISTAKES])
def test_each_mistake_is_a_named_exception_at_its_line(case, cls, text):
    with pytest.raises(cls) as info:
        case()
    e = info.value
    assert isinstance(e, tc.KernelError)
    assert text in e.message, e.message
    assert e.filename == __file__, (e.filename, e.message)
    assert e.lineno == _fault_line(case), e.message
    assert f"{__file__}:{e.lineno}" in str(e)


def test_verifier_errors_carry_the_kernel_and_the_op():
    with pytest.raises(tc.KernelVerifyError) as info:
        m_gemm_inner_dimensions()
    assert info.value.kernel == "mistake"
    assert info.value.op.startswith("gemm ")
    # The Rust verifier's message, unchanged.
    assert info.value.message.startswith('kernel "mistake": gemm ')


def test_a_build_error_is_a_type_error_and_a_verify_error_a_value_error():
    assert issubclass(tc.KernelBuildError, TypeError)
    assert issubclass(tc.KernelVerifyError, ValueError)
    assert math.isclose(1.0, 1.0)


def test_examples_pass_mypy_strict():
    pytest.importorskip("mypy")
    import subprocess

    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir=/dev/null", str(HERE.parent / "examples")]
        + [str(HERE.parent / "python" / "tilecast" / f) for f in ("ops.py", "quant.py")],
        capture_output=True, text=True, cwd=HERE.parent,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_readme_kernel():
    @tc.jit
    def scale(X: tc.Tensor[tc.f32, "N"], Y: tc.Out[tc.f32, "N"], s: float) -> None:
        k = tc.Kernel(grid=[tc.ceil_div(X.shape[0], 256)], threads=256)
        with k.parallel(256) as i:
            n = tc.block_x() * 256 + i
            Y[n] = X[n] * s

    y = scale(np.arange(1000, dtype=np.float32), s=2.0)
    np.testing.assert_array_equal(np.from_dlpack(y), np.arange(1000, dtype=np.float32) * 2)
    assert "kernel void" in scale.source("msl", profile="metal-apple7")


def test_inout_and_scalar_kinds():
    @tc.jit
    def bump(X: tc.InOut[tc.f32, "N"], count: tc.Scalar[tc.u32], step: int, by: float) -> None:
        k = tc.Kernel(grid=[tc.ceil_div(X.shape[0], 64)], threads=64)
        with k.parallel(64) as i:
            n = tc.block_x() * 64 + i
            with k.if_(n < count):
                X[n] = X[n] + tc.cast(step, tc.f32) * by

    x = tc.Buffer.from_numpy(np.zeros(100, np.float32))
    assert bump(x, 70, 3, 0.5) is None
    want = np.where(np.arange(100) < 70, 1.5, 0.0).astype(np.float32)
    np.testing.assert_array_equal(x.numpy(), want)
    assert bump.compile().scalars == [("count", "u32"), ("step", "i32"), ("by", "f32")]
    with pytest.raises(TypeError, match="needs tensor X"):
        bump(count=1, step=1, by=1.0)
    with pytest.raises(TypeError, match="scalar by is f32"):
        bump(x, 1, 1, "a")


def test_jit_definition_errors_name_the_parameter():
    with pytest.raises(TypeError, match="parameter A has no annotation"):
        @tc.jit
        def f(A):  # type: ignore[no-untyped-def]
            pass
    with pytest.raises(TypeError, match=r"\*rest parameters are not kernel arguments"):
        @tc.jit
        def g(*rest: tc.Tensor[tc.f32, "N"]) -> None:
            pass
    with pytest.raises(TypeError, match="needs at least one dimension"):
        tc.Tensor[tc.f32]


def test_jit_takes_mlx_and_torch_inputs():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    want = np.exp(x - x.max(axis=1, keepdims=True))
    want /= want.sum(axis=1, keepdims=True)
    taken = 0
    try:
        import mlx.core as mx
    except ImportError:
        mx = None
    if mx is not None:
        np.testing.assert_allclose(np.from_dlpack(softmax.softmax(mx.array(x))), want, rtol=1e-5)
        taken += 1
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        np.testing.assert_allclose(np.from_dlpack(softmax.softmax(torch.from_numpy(x))), want,
                                   rtol=1e-5)
        taken += 1
    if not taken:
        pytest.skip("neither MLX nor torch is installed here")
