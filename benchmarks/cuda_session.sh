#!/usr/bin/env bash
# Everything the CUDA figures of issues 15 and 17 need, in one run on a GPU machine (the device tool
# lends one to some sessions; the machine has torch and triton but no network). Writes logs and JSON
# under $OUT (default ./cuda_out). Usage, from the repository root:
#
#     OUT=/tmp/cuda_out bash benchmarks/cuda_session.sh [tests|bench|host|tune|profile|probe|kernels|all]
#
# `kernels` is tests, host, tune and bench together (what a change of the kernels needs checked; about
# 5 minutes on an H200 machine, start not included).
# Missing pure-Python dependencies (platformdirs; torchortho for the comparison) are installed from
# wheels in .whl/ when that folder exists (pip download ... -d .whl). When .old/ holds another tree's
# approxlab package (e.g. `git archive HEAD approxlab | tar -x -C .old`), `bench` times it too, on the
# same machine, for a before/after comparison.
set -uo pipefail
OUT=${OUT:-./cuda_out}
mkdir -p "$OUT"
what=${1:-all}
export PYTHONUNBUFFERED=1
if [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        && export PYTHONPATH=/tmp/site:$PWD
else
    export PYTHONPATH=$PWD
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())" | tee -a "$OUT/gpu.txt"

is() { for m in "$@"; do if [ "$what" = "$m" ]; then return 0; fi; done; return 1; }
if is tests kernels all; then
    # every test that needs CUDA (the interpreter tests of tests/test_triton.py are CI's: Triton 3.6's
    # interpreter fails them under numpy 2.5, at tl.range over an integer argument)
    timeout 150 python3 -m pytest -p no:cacheprovider -q -n 12 -o addopts="-m 'not slow' -ra" \
        tests/test_triton.py tests/test_triton_launch.py tests/test_compile.py -k "cuda or compile or kept or direct or table" \
        2>&1 | tee "$OUT/tests.log" | tail -8
    [ "$what" = kernels ] || timeout 200 python3 -m pytest -p no:cacheprovider -q -n 12 -o addopts="-m 'not slow' -ra" \
        tests/test_act_adaptive.py tests/test_act_polycom.py tests/test_act_rational.py tests/test_ffn.py 2>&1 \
        | tee "$OUT/tests_modules.log" | tail -8
fi
if is host kernels all; then
    # the host time of each piece of a call (launches, allocations, autograd), and of every family
    timeout 100 python3 benchmarks/cuda_host.py --iters 150 2>&1 | tee "$OUT/cuda_host.txt"
fi
if is tune kernels all; then
    # GPU time alone per launch configuration (elements/warps per program)
    timeout 150 python3 benchmarks/triton_tune.py --rep 25 --configs 1024/4,256/1,512/1,512/2,1024/2 2>&1 \
        | tee "$OUT/triton_tune.txt"
fi
if is bench kernels all; then
    for shape in 4096,1024; do
        timeout 70 python3 -m approxlab bench --device cuda --repeats 30 --degrees 3,32 --shape $shape \
            --families hermite,fourier,tropical,tropical-rational,polyrelu,polynorm,rational,rationalact,polyact \
            2>&1 | tee "$OUT/bench_cuda_${shape/,/x}.txt" | tail -25
        if [ -d .old/approxlab ]; then
            echo "== the tree in .old/ (before), same machine"
            (cd .old && PYTHONPATH=$([ -d ../.whl ] && echo /tmp/site) timeout 70 python3 -m approxlab bench --device cuda \
                --repeats 30 --degrees 3,32 --shape $shape \
                --families hermite,fourier,tropical,tropical-rational,polyrelu,polynorm,rational,rationalact,polyact \
                2>&1 | tee "$OUT/bench_cuda_${shape/,/x}_old.txt" | tail -25)
        fi
    done
fi
if [ "$what" = all ]; then
    # the issue's table: default backend (Triton), eager, torchortho; (4096, 1024) float32
    timeout 200 python3 benchmarks/activations.py --device cuda --repeats 30 --out "$OUT/activations_cuda.json" \
        2>&1 | tee "$OUT/activations_cuda.txt" | tail -40
    # every family at degrees 3 and 32 (the CUDA targets) at 16x the issue's size
    for shape in 16384,4096; do
        timeout 120 python3 -m approxlab bench --device cuda --repeats 30 --degrees 3,32 --shape $shape \
            --families hermite,fourier,tropical,tropical-rational,polyrelu,polynorm,rational,rationalact,polyact \
            2>&1 | tee "$OUT/bench_cuda_${shape/,/x}.txt" | tail -25
    done
fi
if is profile all; then
    # GPU kernel time vs host time per family (torch.profiler), degrees 3 and 32
    timeout 200 python3 benchmarks/cuda_profile.py --kernels 2>&1 | tee "$OUT/cuda_profile.txt" | tail -60
    # the host time of a call by Python function (Triton's launcher, torch ops, autograd, our wrappers)
    timeout 200 python3 benchmarks/host_profile.py --device cuda --iters 200 2>&1 | tee "$OUT/host_profile.txt" | tail -40
fi
if is probe all; then
    # >= 1000 networks in one batch: Type I, 8 classes x 4 widths x 32 seeds
    t0=$(date +%s.%N)
    timeout 300 python3 -m approxlab probe --type I --target la --widths 1,2,4,8 --seeds 32 --device cuda \
        --json > "$OUT/probe_I_1024.jsonl" 2> "$OUT/probe_I_1024.err"
    echo "probe rc=$? rows=$(wc -l < "$OUT/probe_I_1024.jsonl") wall=$(python3 -c "print(round($(date +%s.%N)-$t0, 1))") s" \
        | tee "$OUT/probe_I_1024.time"; tail -3 "$OUT/probe_I_1024.err"
    timeout 200 python3 benchmarks/probe_batched.py --device cuda --seeds 32 --adam-steps 10 2>&1 | tee "$OUT/probe_batched_cuda.txt" | tail -5
fi
