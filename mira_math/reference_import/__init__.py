"""Importing the paper authors' released instances (``mira-math import-reference``).

The authors' reference implementation (public repository ``cedar-lau/mira-math``, MIT
licence) publishes its 2,310 instances as JSON lines (``datasets/family_types_20_50.jsonl``
and ``..._few_shot.jsonl``). This package reads that format and writes the same instances in
our schema, as a release folder our runner, scorer and report take unchanged
(``mira-math eval --data DIR``). Nothing here is derived from their code: the format was
learnt from the data, and every computation is this project's own family code.

What a converted instance keeps from the source, verbatim: the id, the difficulty, the solver's
fact lines (agent ``A``'s ``constraints_text``), the responder's lines (agent ``B``'s) and the
hint line (the ``B`` line that states their ``minimal_hint_spec`` atomic hint). What it gets from
here: a short context, question and domain in their notation (their file has none), the
canonical hint's slot identifier and value in our family's form, the answer (their
``global_solution``) as our exact answer type, and a latent state in our family's format built
from their facts, so that our ``known``/``complete``/``solve``/``check`` and validators run on it.

One converter per family (:data:`converters.CONVERTERS`) maps a source record to our
family's ``known`` (what their solver view states, read from ``constraints_machine`` and
``global_metadata``) and the hint's slot and value; the complete latent state is then
``family.complete(known, hint)``. Where their setup differs from ours (phase retrieval's view
has no x1, the HMM withholds one emission entry instead of two, Laplace grids may withhold a
corner, ...), the converter records a per-instance finding instead of dropping anything.

``--check`` (:func:`check.check_instance`) recomputes every answer with our family code
from the converted solver view plus the canonical hint and compares it with their
``global_solution``, and runs our validators; see ``docs/reference_import.md``.

The modules, in the order a record travels through them: :mod:`.record` (the source format,
reading a file), :mod:`.converters` (one converter per family), :mod:`.instance` (a record
as our ``Instance``), :mod:`.check` (the cross-check and the validators' findings) and
:mod:`.folder` (the release folder, its README and the printed summary).
"""

from mira_math.reference_import.folder import (CHECK_REPORT, import_reference, prepare_folder,
                                                render_text_summary)
from mira_math.reference_import.record import FormatError, read_source

__all__ = ["CHECK_REPORT", "FormatError", "import_reference", "prepare_folder", "read_source",
           "render_text_summary"]
