"""Benchmarks of the activations: forward + backward time and memory as ratios to GELU measured in the
same process (:mod:`approxlab.bench.timing`; ``approxlab bench`` on the command line)."""
