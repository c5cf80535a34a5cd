#!/usr/bin/env bash
# One call on the lent NVIDIA machine (binaries built here, carried in .devbin/): the kernel
# library's full suite beside PyTorch, gemm beside torch.matmul, the runtime's GPU fault
# scenarios and the DLPack checks beside torch, all in the same run. Sections (default all):
#   SECTIONS="suite simt matrix faults dlpack attention" bash bench/gpu_run.sh
# suite: `tilecast bench --full` with bench/peer_suite.py's timings as the speedup column.
# simt: 4096^3 f32/f16, trusted and checked modules, a small tile sweep; matrix: f16 gemm on
# cooperative matrices at several shapes, ragged ones checked in full; faults: gpu_faults (the
# runtime's example); dlpack: bench/gpu_dlpack.py on the wheel in .devbin/wheels (built here with
# `maturin build --release -m crates/tilecast-python/Cargo.toml --features pyo3/abi3-py39`).
# attention: the attention family's full shapes (f16, then bf16) beside SDPA, one kernel at a time.
# quant: qgemv's and qgemm's full shapes beside torch's int4 kernel and f16 F.linear.
# backends: the quick suite (every kernel checked) through the native SPIR-V back end, then per
# kernel (BACKEND_KERNELS) its full shapes through WGSL and through native SPIR-V in turn
# (TILECAST_BACKEND_CODE forces each), one line per case with both medians and their ratio.
# BACKENDS_NAGA=1 adds naga's SPIR-V of the WGSL, passed through as native modules are: where
# native is slower than WGSL, it tells the native code apart from the loading path.
# workgroup: f16 and bf16 gemms on workgroup-scope matrices (the native default) beside the
# kernel each replaces (f16: WGSL on subgroup matrices; bf16: the converting plan) and torch.
# docs/performance.md's tables come from the suite, attention, quant, backends and workgroup
# sections.
# pykernels: the kernels written in Python (crates/tilecast-python/examples) checked at large
# shapes and timed beside the library's op and torch (bench/python_kernels.py; the wheel and
# numpy from .devbin/wheels).
# hotpath: issue 37's cases (prefill f16/bf16/GQA, decode and paged decode, qgemv formats, 2 and
# 8 rows and at 4096x14336, gemv) beside their peers, then bench/peer_decode_sdpa.py (SDPA's
# decode backends).
# llm: issue 39's decoder: random Llama checkpoints (LLM_SIZES, default 8b) written there by
# bench/llama/make_model.py, `tilecast generate` with a 512-token prompt and 128 new tokens at
# each batch of LLM_BATCHES (default 1 8), then bench/llama/torch_peer.py on the same prompt and
# bench/llama/compare.py (tokens/s, ratios, logits and ids agreement); then the same weights as
# a GGUF file of each type in LLM_GGUF (default q4_0) at batch 1, beside the peer's int4
# variant (gpt-fast's tinygemm weights) for speed and the peer in f16 on the file's dequantized
# weights for the logits. Needs the safetensors and gguf wheels and gguf's
# dependencies in .devbin/wheels (pip download --only-binary=:all: --platform manylinux2014_x86_64
# safetensors gguf pyyaml tqdm requests ...).
# Every line also lands in $OUT/gpu_run.log.
# Usage there: for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gpu_run.sh
set -uo pipefail
B=.devbin
OUT=${OUT:-$(mktemp -d)}
SECTIONS=${SECTIONS:-suite simt matrix faults dlpack attention quant backends workgroup}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
exec > >(tee -a "$OUT/gpu_run.log") 2>&1
peer() { PYTHONUNBUFFERED=1 python3 bench/peer_gemm.py "$@"; }
bench() { $B/tilecast bench --kernel gemm --json - "$@"; }
$B/tilecast info
S=4096x4096x4096
case " $SECTIONS " in *" suite "*)
  $B/tilecast bench --full --list ${SUITE_ARGS:-} > "$OUT/cases.json"
  PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/cases.json" "$OUT/peer.json"
  $B/tilecast bench --full ${SUITE_ARGS:-} --compare "$OUT/peer.json" --json "$OUT/ours.json";;
esac
case " $SECTIONS " in *" hotpath "*)
  hot() { # kernel dtype shape...: the shapes listed, peered, timed
    k=$1; dt=$2; shift 2
    n=0; for s in "$@"; do n=$((n+1)); $B/tilecast bench --kernel $k --dtype $dt --shape $s --list > "$OUT/hot-$n.json"; done
    python3 -c 'import json,sys; print(json.dumps(sum((json.load(open(f)) for f in sys.argv[1:]), [])))' \
      $(seq -f "$OUT/hot-%g.json" 1 $n) > "$OUT/cases-hot-$k-$dt.json"; rm -f "$OUT"/hot-*.json
    PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/cases-hot-$k-$dt.json" "$OUT/peer-hot-$k-$dt.json" > /dev/null
    for s in "$@"; do
      $B/tilecast bench --kernel $k --dtype $dt --shape $s --compare "$OUT/peer-hot-$k-$dt.json" | tail -n 1
    done
  }
  pre="4x32x4096x4096x128,causal 1x32x2048x2048x128,causal 8x16x1024x1024x64,causal 8x16x1024x1024x256,causal"
  hot attention f16 $pre 4x32x4096x4096x128,kv=8,causal
  hot attention bf16 $pre
  hot decode_attention f16 1x32x32768x128,kv=8 1x32x4096x128,kv=8
  hot paged_decode_attention f16 1x32x32768x128,kv=8 1x32x4096x128,kv=8
  hot qgemv f16 14336x4096,q4_0 14336x4096,mlx4 14336x4096,q4_k 14336x4096,q8_0 14336x4096,q4_0,rows=2 \
    14336x4096,q4_0,rows=8 4096x14336,q4_0 4096x14336,q4_k
  hot gemv f16 14336x4096 4096x14336 14336x4096,rows=8
  python3 bench/peer_decode_sdpa.py;;
esac
case " $SECTIONS " in *" simt "*)
  for dt in f32 f16; do
    peer $S $dt 20
    bench --shape $S --dtype $dt
    bench --shape $S --dtype $dt --checked
  done
  # f32 tile sweep: tile, threads, stages.
  for cfg in "128x128x16 256 2" "128x128x8 256 3" "128x128x16 256 3" "64x128x8 128 2" "128x64x8 128 2" "128x256x8 256 2"; do
    set -- $cfg
    bench --shape $S --dtype f32 --tile $1 --threads $2 --stages $3
  done
  peer $S f32 20;;
esac
case " $SECTIONS " in *" matrix "*)
  for shape in 1000x1000x1000 333x517x259 $S 1024x1024x1024 16x4096x4096; do
    peer $shape f16 20
    for cfg in "128x128x32 256 1" "128x128x32 256 2" "64x128x32 128 2" "64x64x32 128 3"; do
      set -- $cfg
      bench --shape $shape --dtype f16 --tile $1 --threads $2 --stages $3
    done
  done;;
esac
case " $SECTIONS " in *" faults "*)
  $B/gpu_faults --oom-cap-gib ${OOM_CAP_GIB:-150} --shared-cap-gib ${SHARED_CAP_GIB:-48};;
esac
case " $SECTIONS " in *" dlpack "*)
  pip install --no-index --no-deps $B/wheels/tilecast-*.whl && python3 bench/gpu_dlpack.py;;
esac
case " $SECTIONS " in *" pykernels "*)
  python3 -m pip install -q --no-index --find-links $B/wheels numpy && \
    python3 -m pip install -q --no-index --no-deps --force-reinstall $B/wheels/tilecast-*.whl && \
    python3 bench/python_kernels.py;;
esac
case " $SECTIONS " in *" attention "*)
  for dt in f16 bf16; do
    for k in attention decode_attention paged_decode_attention; do
      $B/tilecast bench --full --kernel $k --dtype $dt --list > "$OUT/cases-$k-$dt.json"
      PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/cases-$k-$dt.json" "$OUT/peer-$k-$dt.json"
      $B/tilecast bench --full --kernel $k --dtype $dt --compare "$OUT/peer-$k-$dt.json" \
        --json "$OUT/ours-$k-$dt.json"
    done
  done;;
esac
case " $SECTIONS " in *" quant "*)
  for k in ${QUANT_KERNELS:-qgemv qgemm}; do
    $B/tilecast bench --full --kernel $k --list > "$OUT/cases-$k.json"
    PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/cases-$k.json" "$OUT/peer-$k.json"
    $B/tilecast bench --full --kernel $k --compare "$OUT/peer-$k.json" --json "$OUT/ours-$k.json"
  done
  # qgemm's own target: tilecast's f16 linear on the same shapes.
  for s in 4096x14336x4096 512x14336x4096; do
    $B/tilecast bench --kernel linear --dtype f16 --shape $s --json "$OUT/ours-linear-$s.json"
  done;;
esac
case " $SECTIONS " in *" workgroup "*)
  old="--tile 128x128x32 --threads 128 --stages 1"
  for s in 4096x4096x4096 8192x8192x8192 4096x14336x4096 2048x2048x2048; do
    peer $s f16 10
    bench --shape $s --dtype f16 --batches 3
    TILECAST_BACKEND_CODE=wgsl bench --shape $s --dtype f16 --batches 3 $old
    peer $s bf16 10
    bench --shape $s --dtype bf16 --batches 3
    bench --shape $s --dtype bf16 --batches 3 $old
  done
  # e4m3 (per-row scales): decoded once to f16 copies, then the scaled gemm; its scales run per
  # element on workgroup matrices. Beside torch's f16 matmul, the yardstick.
  for s in 4096x4096x4096 8192x8192x8192; do
    peer $s f16 10
    bench --shape $s --dtype e4m3 --batches 3
    bench --shape $s --dtype e4m3 --batches 3 $old
  done
  # Ragged shapes forced onto the workgroup tile: correct through clamped loads.
  for s in 1000x1000x1000 333x517x259 4095x4097x33; do
    for dt in f16 bf16; do bench --shape $s --dtype $dt --tile 128x256x32 --threads 256 --stages 1; done
  done
  # Linears (bias and activation per element) beside F.linear, and the kernels they replace.
  for k in linear linear_gelu; do
    for dt in f16 bf16; do
      for s in 4096x4096x4096 4096x14336x4096; do
        $B/tilecast bench --kernel $k --dtype $dt --shape $s --list > "$OUT/cases-wg-$k.json"
        PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/cases-wg-$k.json" "$OUT/peer-wg-$k.json"
        $B/tilecast bench --kernel $k --dtype $dt --shape $s --batches 3 --compare "$OUT/peer-wg-$k.json"
        code=; [ $dt = f16 ] && code=wgsl
        TILECAST_BACKEND_CODE=$code $B/tilecast bench --kernel $k --dtype $dt --shape $s --batches 3 $old
      done
    done
  done;;
esac
case " $SECTIONS " in *" backends "*)
  [ "${BACKENDS_QUICK:-1}" = 1 ] && TILECAST_BACKEND_CODE=spirv $B/tilecast bench --json "$OUT/quick-spirv.json"
  # Per kernel, its full shapes through WGSL, then through native SPIR-V beside that run.
  for k in ${BACKEND_KERNELS:-add silu gelu softmax rms_norm add_rms_norm rope sum argmax cast_bf16 cast_e4m3 transpose gemv scale_rows_f16 qgemv gemm linear decode_attention}; do
    TILECAST_BACKEND_CODE=wgsl $B/tilecast bench --full --kernel $k --batches 3 \
      --json "$OUT/code-$k-wgsl.json" > /dev/null
    TILECAST_BACKEND_CODE=spirv $B/tilecast bench --full --kernel $k --batches 3 \
      --compare "$OUT/code-$k-wgsl.json" --json "$OUT/code-$k-spirv.json" > /dev/null
    python3 bench/code_ratio.py "$OUT/code-$k-wgsl.json" "$OUT/code-$k-spirv.json"
    if [ "${BACKENDS_NAGA:-0}" = 1 ]; then
      TILECAST_BACKEND_CODE=naga-spirv $B/tilecast bench --full --kernel $k --batches 3 \
        --compare "$OUT/code-$k-wgsl.json" --json "$OUT/code-$k-naga.json" > /dev/null
      python3 bench/code_ratio.py "$OUT/code-$k-wgsl.json" "$OUT/code-$k-naga.json"
    fi
  done;;
esac
case " $SECTIONS " in *" llm "*)
  python3 -c 'import safetensors' 2>/dev/null || python3 -m pip install -q --no-index --find-links $B/wheels safetensors
  python3 -c 'import gguf' 2>/dev/null || python3 -m pip install -q --no-index --find-links $B/wheels gguf
  for size in ${LLM_SIZES:-8b}; do
    M=/tmp/llama-$size
    [ -f "$M/config.json" ] || python3 bench/llama/make_model.py --size $size --out "$M" --torch 2>/dev/null
    for b in ${LLM_BATCHES:-1 8}; do
      t=$OUT/llm-$size-b$b
      $B/tilecast generate --model "$M" --prompt-len 512 --new-tokens 128 --batch $b --json \
        --logits /tmp/ours-$size-b$b.npy > $t.json && cat $t.json | grep -v '^ *[0-9]*,\?$'
      PYTHONUNBUFFERED=1 python3 bench/llama/torch_peer.py --model "$M" --prompt-ids-json $t.json \
        --new-tokens 128 --logits /tmp/peer-$size-b$b.npy --json $t.peer.json
      python3 bench/llama/compare.py $t.json /tmp/ours-$size-b$b.npy $t.peer.json /tmp/peer-$size-b$b.npy
      rm -f /tmp/ours-$size-b$b.npy /tmp/peer-$size-b$b.npy
    done
    for q in ${LLM_GGUF:-q4_0}; do
      G=/tmp/llama-$size-$q.gguf t=$OUT/llm-$size-$q-b1
      [ -f "$G" ] || python3 bench/llama/make_model.py --size $size --gguf $q --out "$G" --torch 2>/dev/null
      $B/tilecast generate --model "$G" --prompt-len 512 --new-tokens 128 --json \
        --logits /tmp/ours-$q.npy > $t.json && grep -v '^ *[0-9]*,\?$' $t.json
      PYTHONUNBUFFERED=1 python3 bench/llama/torch_peer.py --model "$M" --prompt-ids-json $t.json \
        --new-tokens 128 --int4 --json $t.peer.json
      python3 bench/llama/compare.py $t.json - $t.peer.json -
      # The logits, beside the peer in f16 on the file's own weights, dequantized.
      PYTHONUNBUFFERED=1 python3 bench/llama/torch_peer.py --model "$G" --prompt-ids-json $t.json \
        --new-tokens 128 --logits /tmp/peer-$q.npy --json $t.deq.json
      python3 bench/llama/compare.py $t.json /tmp/ours-$q.npy $t.deq.json /tmp/peer-$q.npy
      rm -f /tmp/ours-$q.npy /tmp/peer-$q.npy
    done
  done;;
esac
