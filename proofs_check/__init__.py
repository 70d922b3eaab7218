"""Each paper's numbered claims as executable checks (see approxlab.claims)."""
