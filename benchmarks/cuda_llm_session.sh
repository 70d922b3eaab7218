#!/usr/bin/env bash
# The GPU half of the LLM-scale work (bfloat16 end to end, the kernels visible to torch.compile, the FFN
# benchmark against GELU, SwiGLU and Liger-Kernel's LigerPolyNorm), in one run on a GPU machine of the
# device tool (torch, triton and liger-kernel installed, no network). About 7.5 minutes on an H100
# machine, start not included; every step has its own timeout and writes as it goes, so a step that
# runs out still leaves what it measured. Logs and JSON under $OUT (default ./cuda_out). Usage, from
# the repository root:
#
#     OUT=/tmp/cuda_out bash benchmarks/cuda_llm_session.sh [tests|block|act|big|opaque|all]
#
# all = tests, block, act, big (opaque is extra: the compiled approxlab blocks with the ops kept opaque,
# the side-by-side of the two compile routes). Copy $OUT's .txt files into benchmarks/results/ under a
# name with the card and the date (llm_ffn_cuda_h100_YYYY-MM-DD.txt).
set -uo pipefail
OUT=${OUT:-./cuda_out}
mkdir -p "$OUT"
what=${1:-all}
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD TRITON_DEFAULT_FP_FUSION=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())
try:
    import liger_kernel, importlib.metadata as m; print('liger-kernel', m.version('liger-kernel'))
except ImportError:
    print('liger-kernel not installed: its rows are skipped')" | tee -a "$OUT/gpu.txt"

is() { for m in "$@"; do if [ "$what" = "$m" ]; then return 0; fi; done; return 1; }
if is tests all; then
    # every test that needs CUDA: half precision through the ops (rounding, dtypes, float32 sums), the
    # modules against eager, compile without graph breaks, Inductor launching the Triton kernels itself,
    # CUDA graphs (reduce-overhead); the interpreter tests are CI's
    timeout 130 python3 -m pytest -p no:cacheprovider -q -n 8 -o addopts="-m 'not slow' -ra" \
        tests/test_triton.py tests/test_compile.py tests/test_half.py -k "cuda or inductor" \
        2>&1 | tee "$OUT/tests.log" | tail -12
    # the bfloat16/float16 ulp table through the Triton kernels (docs/guide/speed.md has the CPU one)
    timeout 40 python3 benchmarks/half_accuracy.py --device cuda --rows 2048 2>&1 | tee "$OUT/half_accuracy_cuda.txt"
fi
if is block all; then
    # the FFN block at (8192, 4096), width 16384, bfloat16: every activation eager, the targets compiled
    timeout 190 python3 benchmarks/llm_ffn.py --device cuda --shapes 8192x4096 --what block --rounds 3 --steps 3 \
        --compiled gelu,silu,polynorm,polyrelu,hermite3,liger_polynorm --json "$OUT/llm_ffn_block_8192x4096.json" \
        2>"$OUT/llm_ffn_block_8192x4096.err" | tee "$OUT/llm_ffn_block_8192x4096.txt"
fi
if is act all; then
    # the activation alone at both shapes' FFN widths (the LigerPolyNorm, PolyReLU and Hermite 3 targets)
    timeout 70 python3 benchmarks/llm_ffn.py --device cuda --shapes 8192x4096,16384x8192 --what act --rounds 5 \
        --steps 5 --compiled gelu,polynorm --json "$OUT/llm_ffn_act.json" 2>"$OUT/llm_ffn_act.err" \
        | tee "$OUT/llm_ffn_act.txt"
fi
if is big all; then
    # the FFN block at (16384, 8192), width 32768 (PolyNorm rows of 32768: see MAX_ROW in triton_polynorm)
    timeout 90 python3 benchmarks/llm_ffn.py --device cuda --shapes 16384x8192 --what block --rounds 3 --steps 2 \
        --warmup 2 --acts gelu,silu,polynorm,polyrelu,hermite3,liger_polynorm --compiled gelu,polynorm \
        --json "$OUT/llm_ffn_block_16384x8192.json" 2>"$OUT/llm_ffn_block_16384x8192.err" \
        | tee "$OUT/llm_ffn_block_16384x8192.txt"
fi
if is opaque; then
    timeout 200 python3 benchmarks/llm_ffn.py --device cuda --shapes 8192x4096 --what block --rounds 3 --steps 3 \
        --acts gelu,polynorm,hermite3 --compiled gelu,polynorm,hermite3 --opaque \
        --json "$OUT/llm_ffn_opaque.json" 2>"$OUT/llm_ffn_opaque.err" | tee "$OUT/llm_ffn_opaque.txt"
fi
