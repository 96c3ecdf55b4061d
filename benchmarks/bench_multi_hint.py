"""The two-fact part: generation and validation time per family, and what each proof
rests on (an explicit second completion or an enumerated finite answer set).

Usage: python benchmarks/bench_multi_hint.py

Reads the committed release's ``data/<family>/multi_hint.jsonl`` files; regenerates the part
in memory (``build_split(..., k=2)``) and re-runs every proof of ``generators/validate.py``.
"""

from __future__ import annotations

import sys
import time
from itertools import product
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mira_math.generators import registry  # noqa: E402
from mira_math.generators.build import build_split  # noqa: E402
from mira_math.generators.layout import DEFAULT_RELEASE  # noqa: E402
from mira_math.generators.release import (MULTI_HINT_PER_TYPE, multi_hint_files,  # noqa: E402
                                          multi_hint_seed_set)
from mira_math.generators.schema import read_jsonl  # noqa: E402
from mira_math.generators.seeds import PUBLIC  # noqa: E402
from mira_math.generators.validate import validate_instance  # noqa: E402


def main() -> int:
    rows = [inst for path in multi_hint_files(DEFAULT_RELEASE) for inst in read_jsonl(path)]
    print(f"{len(rows)} two-fact instances in {DEFAULT_RELEASE}")
    print("| family | type | n | second completions | enumerated sets | sufficiency combos | "
          "generate s | validate s |")
    print("|---|---|---|---|---|---|---|---|")
    totals = [0.0, 0.0]
    for name in registry.multi_hint_names():
        family = registry.get(name, 2)
        mine = [i for i in rows if i.family == name]
        start = time.perf_counter()
        made = list(build_split(multi_hint_seed_set(PUBLIC), MULTI_HINT_PER_TYPE, [name], k=2))
        generate_s = time.perf_counter() - start
        start = time.perf_counter()
        failures = sum(len(validate_instance(i, family)) for i in mine)
        validate_s = time.perf_counter() - start
        witnesses = enumerated = combos = 0
        for inst in mine:
            known = family.known(inst.latent_state())
            for given in [None] + list(inst.hints):
                finite = family.candidates_given(known, [] if given is None else [given])
                enumerated += finite is not None
                witnesses += finite is None
            combos += len(list(product(*inst.groups())))
        assert failures == 0 and len(made) == len(mine), name
        totals[0] += generate_s
        totals[1] += validate_s
        print(f"| {name} | {registry.type_of(name)} | {len(mine)} | {witnesses} | {enumerated} | "
              f"{combos} | {generate_s:.2f} | {validate_s:.3f} |")
    print(f"total: generate {totals[0]:.2f} s (the one-fact part's keys excluded only in a full "
          f"build), validate {totals[1]:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
