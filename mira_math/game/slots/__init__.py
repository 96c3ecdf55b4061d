"""Each family's notation as data: which quantity (slot) a responder line holds, and which
quantities a free-form request names.

The deterministic ``rules`` responder offers a private line L exactly when
``read_request(family, request)`` names L's quantity alone: ``own == {line_slot(family, L)}``,
no quantity in another family's notation (``foreign``) and not ``too_long`` (a second
quantity, the target, a reference to the responder's own lines or instructions all make it
decline). ``game/RESPONDER.md`` lists every family's slot ids and accepted aliases and every
reading rule (encodings, purpose clauses, the length bound).

How a request is read (every step is total: no input raises):

1. *Normalise* (:func:`normalise`): Unicode subscripts/superscripts become ``_k``/``^k``
   (``μ₄`` -> ``mu_4``, ``M²`` -> ``M^2``), NFKC, Greek letters become their names
   (``λ μ ρ σ π``), dashes/arrows/relations become ASCII (``−`` ``→`` ``≥``), LaTeX
   commands lose their backslash (``\\mu_{4}`` -> ``mu_4``, ``\\neg`` -> ``¬``,
   ``\\mid`` -> ``|``) and braces and ``$`` are dropped.
2. *Scan* with the family's grammar: an ordered list of rules (regex, slot template), all
   compiled into one alternation. The text is scanned left to right (no match starts inside
   a word); at each position the first rule that matches wins and its span is consumed, so
   a longer phrase
   (``P(H|E)``, ``probability of H given E``) hides the shorter one inside it (``P(H``,
   ``H``). Matching ignores case except where the notation is case-sensitive (phase
   retrieval's ``X_k`` vs ``x_k``, geometry's points ``P``/``Q``, the moment sum ``D``).
3. *Build*: a rule's template is filled with the integers its groups captured (digits,
   ``one``..``ten``, ordinals ``first``..``tenth``); a callable builds slots that need
   arithmetic (sorting ``rho(2,1)`` -> ``rho(1,2)``, a path's edges -> its path sum, a
   moment expression's coefficients). A rule may also consume a span and name nothing.

Single letters (``c``, ``t``, ``x``, ``Q``) are matched only as whole tokens; a
coefficient may precede them (``3c``) but no letter or apostrophe (``can't`` names no
``t``). The article ``a`` counts as the variable ``a`` (linear_system_separator) only
when punctuation, ``=``, ``and``, ``or``, ``is`` or the end follows it.
"""

from mira_math.game.slots.engine import (MAX_REQUEST_CHARS, META, UNPARSED, NotationDoc, RequestReading, families,
                                         line_slot, mentioned_slots, normalise, notation_doc, read_request)
from mira_math.game.slots import type_a, type_b

__all__ = ["line_slot", "mentioned_slots", "read_request", "RequestReading", "normalise", "families",
           "notation_doc", "NotationDoc", "UNPARSED", "META", "MAX_REQUEST_CHARS"]

_TABLES = (type_a, type_b)   # imported for their side effect: each registers its families
