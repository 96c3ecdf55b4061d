"""How a request names one quantity of a family, as data for the labelled request set
(:mod:`mira_math.generators.requests`): for a slot id, the forms that name exactly it
(``index``: other index conventions and Unicode/LaTeX writings of the notation; ``gloss``: the
quantity in words), and a neighbouring slot (a quantity of the same kind the holder does not
hold). Written from docs/benchmark.md's notation and the families' own prompts; nothing here
reads a request, so a label built from these forms never depends on a responder."""

from __future__ import annotations

import re
from typing import Callable, Dict, List, Sequence, Tuple

Form = Tuple[str, str]     # (subkind, text): subkind "index" or "gloss"

_SUB = str.maketrans("0123456789-", "₀₁₂₃₄₅₆₇₈₉₋")
_ORD = "zeroth first second third fourth fifth sixth seventh eighth ninth tenth".split()


def ints(slot: str) -> List[int]:
    """The integers of a slot id, in order (``E[s3][o1]`` -> ``[3, 1]``)."""
    return [int(x) for x in re.findall(r"-?\d+", slot)]


def _sub(k: object) -> str:
    return str(k).translate(_SUB)


def _idx(*forms: str) -> List[Form]:
    return [("index", f) for f in forms]


def _gl(*forms: str) -> List[Form]:
    return [("gloss", f) for f in forms]


# ---------------------------------------------------------------- Type A: one fixed slot

_FIXED: Dict[str, List[Form]] = {
    "bayes_missing_prior": _idx("Pr(H)", "p(h)", "$P(H)$", "\\Pr(H)", "P[H]") + _gl(
        "the prior", "the prior probability of H", "the base rate", "the prevalence",
        "the probability that H is true", "the marginal probability of H", "the prior P(H)"),
    "crt_reconstruction": _idx("congruence #3", "congruence (3)", "x mod m₃", "x mod m_3",
                               "x \\equiv r_3 \\pmod{m_3}") + _gl(
        "congruence three", "the third congruence", "the last congruence",
        "the residue of x modulo m_3", "the third modulus and residue"),
    "geometry_coordinates": _idx("line #2", "line (2)") + _gl(
        "line two", "the second line", "the 2nd line", "the other line", "the equation of line 2",
        "the coefficients a, b, c of line 2", "the last line"),
    "graph_path_sums": _idx("s_3", "S3", "s₃", "$s_{3}$", "e20 + e01", "e_{01} + e_{20}") + _gl(
        "the third path sum", "path sum 3", "the sum of e20 and e01", "the sum along path 2-0-1",
        "the last path sum"),
    "linear_system_separator": _idx("$c$", "\\(c\\)", "\\mathrm{c}") + _gl(
        "the separator variable", "the separating variable c", "the value of c"),
    "matrix_completion": _idx("m_10", "m_{1,0}", "m₁₀", "M[1][0]", "M[1,0]", "M(1,0)") + _gl(
        "the entry in row 1, column 0", "the bottom-left entry", "the lower-left entry",
        "the (1,0) entry"),
    "moment_problem": _idx("4q2 + q1", "q_1 + 4 q_2", "q1+4*q2", "E[X²]", "$E[X^2]$", "m_2",
                           "moment_2") + _gl(
        "the second moment", "the 2nd moment", "the 2nd raw moment", "moment 2",
        "the value of moment_2", "D times the second moment"),
    "phase_retrieval": _idx("sgn(x_0)", "sign(x₀)", "\\operatorname{sign}(x_0)", "sign(x[0])") + _gl(
        "the sign of x0", "whether x0 is positive or negative", "the sign of x_0"),
    "piecewise_missing_threshold": _idx("$t$", "\\(t\\)") + _gl(
        "the threshold", "the threshold t", "the breakpoint", "the switching point t",
        "the cutoff"),
    "recurrence_missing_init": _idx("a_1", "a₁", "$a_{1}$", "a[1]") + _gl(
        "the second initial value", "the initial value a(1)", "the second term", "term 1"),
}

_FIXED_NEIGHBOUR: Dict[str, str] = {
    "bayes_missing_prior": "P(¬H)", "crt_reconstruction": "congruence 2",
    "geometry_coordinates": "line 1", "graph_path_sums": "s2", "linear_system_separator": "b",
    "matrix_completion": "m01", "moment_problem": "q1 + 2q2", "phase_retrieval": "sign(x1)",
    "piecewise_missing_threshold": "f(t)", "recurrence_missing_init": "a(2)",
}


# The slot a Type A family's two-fact variant withholds besides its fixed one, with its
# forms; and the forms that name the fixed slot only while it is the one withheld ("the last
# congruence" is congruence 3 of three, not of four).
_SECOND: Dict[str, Tuple[str, List[Form]]] = {
    "bayes_missing_prior": ("P(E|¬H)", _idx("P(E|not H)", "P(E | ~H)", "P(E|H^c)", "$P(E \\mid \\neg H)$",
                                            "Pr(E|¬H)") + _gl(
        "the false positive rate", "the probability of E given not H",
        "the probability of the evidence when H is false", "the likelihood of E under the complement of H")),
    "crt_reconstruction": ("congruence 4", _idx("congruence #4", "congruence (4)", "x mod m₄", "x mod m_4",
                                                "x \\equiv r_4 \\pmod{m_4}") + _gl(
        "congruence four", "the fourth congruence", "the residue of x modulo m_4",
        "the fourth modulus and residue")),
    "geometry_coordinates": ("Q", _idx("$Q$", "\\(Q\\)", "point Q") + _gl(
        "the point Q", "the coordinates of Q", "the location of point Q", "the x and y coordinates of Q")),
    "linear_system_separator": ("equation 2", _idx("equation #2", "equation (2)", "eq. 2", "eq_2") + _gl(
        "the second equation", "equation two", "the 2nd equation", "the other equation")),
    "piecewise_missing_threshold": ("query point", _idx("the query point x", "query x") + _gl(
        "the query point", "the point at which f is evaluated", "the point where f is to be evaluated",
        "the evaluation point")),
    "recurrence_missing_init": ("a(0)", _idx("a_0", "a₀", "$a_{0}$", "a[0]") + _gl(
        "the first initial value", "the initial value a(0)", "the first term", "term 0")),
}
_ONE_FACT_ONLY: Dict[str, Tuple[str, ...]] = {"crt_reconstruction": ("the last congruence",)}


def _fixed(family: str) -> Callable[[str, int], List[Form]]:
    def forms(slot: str, k: int) -> List[Form]:
        second = _SECOND.get(family)
        if second is not None and slot == second[0]:
            return list(second[1])
        dropped = _ONE_FACT_ONLY.get(family, ()) if k > 1 else ()
        return [f for f in _FIXED[family] if f[1] not in dropped]
    return forms


def _any_k(forms: Callable[[str], List[Form]]) -> Callable[[str, int], List[Form]]:
    """A Type B family's forms, the same whatever the number of withheld facts."""
    return lambda slot, k: forms(slot)


def _rankdef(slot: str) -> List[Form]:
    (k,) = ints(slot)
    return _idx(f"equation {k}", f"eq. {k}", f"equation #{k}", f"eq_{{{k}}}") + _gl(
        f"the {_ORD[k]} equation", f"equation number {k}")


# ---------------------------------------------------------------- Type B: variable slots

def _birth_death(slot: str) -> List[Form]:
    (i,) = ints(slot)
    if slot.startswith("lambda"):
        return _idx(f"λ_{i}", f"λ{_sub(i)}", f"\\lambda_{{{i}}}", f"lambda{i}") + _gl(
            f"the birth rate of state {i}", f"the rate from state {i} to state {i + 1}",
            f"the birth rate lambda_{i}", f"the transition rate from state {i} to state {i + 1}")
    return _idx(f"μ_{i}", f"μ{_sub(i)}", f"\\mu_{{{i}}}", f"mu{i}") + _gl(
        f"the death rate of state {i}", f"the rate from state {i} to state {i - 1}",
        f"the death rate mu_{i}", f"the transition rate from state {i} to state {i - 1}")


def _circuit(slot: str) -> List[Form]:
    (k,) = ints(slot)
    return _idx(f"R_{k}", f"R_{{{k}}}", f"R{_sub(k)}", f"R_({k})") + _gl(
        f"resistor {k}", f"the resistance of R{k}", f"the {_ORD[k]} resistor",
        f"the value of resistor {k}", f"resistor number {k}")


def _deconvolution(slot: str) -> List[Form]:
    (k,) = ints(slot)
    return _idx(f"y_{k}", f"y[{k}]", f"y_{{{k}}}", f"y{_sub(k)}") + _gl(
        f"output {k}", f"output sample {k}", f"the output y{k}")


def _pairs(index: Sequence[str], gloss: Sequence[str]) -> Callable[[str], List[Form]]:
    def forms(slot: str) -> List[Form]:
        n = ints(slot)
        return _idx(*(f.format(*n) for f in index)) + _gl(*(f.format(*n) for f in gloss))
    return forms


def _poly(slot: str) -> List[Form]:
    (k,) = ints(slot)
    return _idx(f"p({str(k).replace('-', '−')})", f"$p({k})$") + _gl(
        f"p at x = {k}", f"the value of p at x = {k}", f"p(x) at x = {k}", f"p evaluated at {k}")


def _portfolio(slot: str) -> List[Form]:
    if slot.startswith("sigma"):       # the two-fact variant's second slot
        (i,) = ints(slot)
        return _idx(f"σ({i})", f"σ_{i}", f"\\sigma_{{{i}}}", f"sigma_{i}", f"σ{_sub(i)}") + _gl(
            f"the standard deviation of asset {i}", f"the volatility of asset {i}",
            f"asset {i}'s standard deviation", f"the standard deviation of asset {i}'s return")
    i, j = ints(slot)
    return _idx(f"rho({j},{i})", f"ρ({i},{j})", f"ρ{_sub(i)}{_sub(j)}", f"\\rho_{{{i}{j}}}",
                f"corr({i},{j})") + _gl(
        f"the correlation between assets {i} and {j}", f"the correlation of asset {i} with asset {j}",
        f"the correlation coefficient between asset {j} and asset {i}")


def _steady(slot: str) -> List[Form]:
    i, k = ints(slot)
    return _idx(f"P(o{k} | s{i})", f"E(s{i}, o{k})", f"E_{{s{i},o{k}}}", f"P(o{_sub(k)} ∣ s{_sub(i)})") + _gl(
        f"the emission probability of o{k} from s{i}", f"the probability that state s{i} emits symbol o{k}",
        f"the probability of observing o{k} in state s{i}")


_BY_SLOT: Dict[str, Callable[[str], List[Form]]] = {
    "rankdef_linear_shared": _rankdef,
    "birth_death_missing_rate": _birth_death,
    "circuit_missing_resistance": _circuit,
    "deconvolution": _deconvolution,
    "discrete_tomography": _pairs(("cell({0}, {1})", "cell [{0}][{1}]", "cell ({0}, {1})"),
                                  ("the cell in row {0}, column {1}", "the cell at row {0} and column {1}")),
    "eigenvector_missing_entry": _pairs(("M_{{{0},{1}}}", "M({0},{1})", "M[{0},{1}]", "M_{0}{1}"),
                                        ("entry ({0},{1}) of M", "the entry in row {0}, column {1} of M")),
    "laplace_grid": _pairs(("u_{{{0},{1}}}", "u({0},{1})", "u[{0},{1}]", "u_{0}{1}"),
                           ("the boundary value u[{0}][{1}]", "the value at cell ({0},{1})",
                            "the grid value in row {0}, column {1}")),
    "linear_system_missing_coeff": _pairs(("A_{{{0},{1}}}", "A({0},{1})", "A[{0},{1}]"),
                                          ("the coefficient in row {0}, column {1}",
                                           "the coefficient of x[{1}] in row {0}",
                                           "entry ({0},{1}) of A")),
    "markov_missing_transition": _pairs(("P({0} -> {1})", "P({0} → {1})", "P_{{{0}{1}}}", "P({1}|{0})",
                                         "P[{0},{1}]"),
                                        ("the transition probability from state {0} to state {1}",
                                         "the probability of moving from state {0} to state {1}")),
    "poly_interpolation": _poly,
    "portfolio_variance_missing_corr": _portfolio,
    "steady_state_missing_emission": _steady,
}


FORMS: Dict[str, Callable[[str, int], List[Form]]] = {
    **{name: _fixed(name) for name in _FIXED}, **{name: _any_k(f) for name, f in _BY_SLOT.items()}}


def forms(family: str, slot: str, k: int = 1) -> List[Form]:
    """Every form of ``slot`` other than its id, ``index`` forms first, then ``gloss`` forms, on an
    instance that withholds ``k`` facts. A family whose forms are not written yet has none: the
    set still asks for its slot by id and in other languages, and holds every decline kind the
    family's slots allow (docs/decisions/harness.md: a family in six files)."""
    table = FORMS.get(family)
    return table(slot, k) if table is not None else []


_ONE_BASED = ("rankdef_linear_shared", "circuit_missing_resistance", "portfolio_variance_missing_corr",
              "steady_state_missing_emission")
_SWAPS = {"lambda_": "mu_", "mu_": "lambda_"}


def neighbours(family: str, slot: str) -> List[str]:
    """Slot ids next to ``slot`` (an index one up or down, the other rate of a state, the
    other slot of a fixed Type A family), nearest first; the caller drops held ones."""
    if family in _FIXED_NEIGHBOUR:
        return [_FIXED_NEIGHBOUR[family]]
    n = ints(slot)
    found: List[str] = []
    for swap, into in _SWAPS.items():
        if slot.startswith(swap):
            found.append(into + slot[len(swap):])
    lowest = 1 if family in _ONE_BASED else 0
    for pos in reversed(range(len(n))):
        for step in (1, -1):
            if n[pos] + step >= lowest or family == "poly_interpolation":
                shifted = list(n)
                shifted[pos] += step
                found.append(_refill(slot, shifted))
    return found


def _refill(slot: str, values: List[int]) -> str:
    it = iter(values)
    return re.sub(r"-?\d+", lambda _: str(next(it)), slot)


# ---------------------------------------------------------------- whole requests in other languages

# Precise requests written wholly in another language, the quantity in words (the rotation picks
# one per instance). They name exactly the missing slot, as a speaker of the language would; the
# rules responder's grammar reads notation and English words, so these measure what it misses.
_NATIVE_FIXED: Dict[str, Tuple[Tuple[str, str], ...]] = {
    "bayes_missing_prior": (("fr", "Quelle est la probabilité a priori de H ?"),
                            ("es", "¿Cuál es la probabilidad previa de H?"),
                            ("de", "Wie groß ist die A-priori-Wahrscheinlichkeit von H?")),
    "crt_reconstruction": (("fr", "Quelle est la troisième congruence ?"),
                           ("es", "¿Cuál es la tercera congruencia?"),
                           ("de", "Wie lautet die dritte Kongruenz?")),
    "geometry_coordinates": (("fr", "Quelle est l'équation de la droite 2 ?"),
                             ("es", "¿Cuál es la ecuación de la segunda recta?"),
                             ("de", "Wie lautet die Gleichung der zweiten Geraden?")),
    "graph_path_sums": (("fr", "Quelle est la troisième somme de chemin ?"),
                        ("es", "¿Cuál es la tercera suma de camino?"),
                        ("de", "Wie groß ist die dritte Pfadsumme?")),
    "linear_system_separator": (("fr", "Quelle est la valeur de la variable séparatrice c ?"),
                                ("es", "¿Cuánto vale la variable separadora c?"),
                                ("de", "Welchen Wert hat die Trennvariable c?")),
    "matrix_completion": (("fr", "Quel est le coefficient en bas à gauche de la matrice ?"),
                          ("es", "¿Cuál es la entrada inferior izquierda de la matriz?"),
                          ("de", "Wie lautet der Eintrag unten links in der Matrix?")),
    "moment_problem": (("fr", "Quel est le deuxième moment ?"),
                       ("es", "¿Cuál es el segundo momento?"),
                       ("de", "Wie groß ist das zweite Moment?")),
    "phase_retrieval": (("fr", "Quel est le signe de x0 ?"),
                        ("es", "¿Cuál es el signo de x0?"),
                        ("de", "Welches Vorzeichen hat x0?")),
    "piecewise_missing_threshold": (("fr", "Quel est le seuil t ?"),
                                    ("es", "¿Cuál es el umbral t?"),
                                    ("de", "Wie groß ist der Schwellenwert t?")),
    "rankdef_linear_shared": (),
    "recurrence_missing_init": (("fr", "Quelle est la deuxième valeur initiale ?"),
                                ("es", "¿Cuál es el segundo valor inicial?"),
                                ("de", "Wie lautet der zweite Anfangswert?")),
}

_NATIVE_TEMPLATES: Dict[str, Tuple[Tuple[str, str], ...]] = {
    "rankdef_linear_shared": (("fr", "Quelle est l'équation numéro {0} ?"), ("es", "¿Cuál es la ecuación número {0}?"),
                              ("de", "Wie lautet Gleichung Nummer {0}?")),
    "circuit_missing_resistance": (("fr", "Quelle est la résistance numéro {0} ?"),
                                   ("es", "¿Cuánto vale la resistencia número {0}?"),
                                   ("de", "Wie groß ist der Widerstand Nummer {0}?")),
    "deconvolution": (("fr", "Quelle est la sortie numéro {0} ?"), ("es", "¿Cuál es la salida número {0}?"),
                      ("de", "Wie lautet der Ausgangswert Nummer {0}?")),
    "discrete_tomography": (("fr", "Quelle est la case de la ligne {0}, colonne {1} ?"),
                            ("es", "¿Cuál es la celda de la fila {0}, columna {1}?"),
                            ("de", "Welchen Wert hat die Zelle in Zeile {0}, Spalte {1}?")),
    "eigenvector_missing_entry": (("fr", "Quel est le coefficient de M à la ligne {0}, colonne {1} ?"),
                                  ("es", "¿Cuál es la entrada de M en la fila {0}, columna {1}?"),
                                  ("de", "Wie lautet der Eintrag von M in Zeile {0}, Spalte {1}?")),
    "laplace_grid": (("fr", "Quelle est la valeur au bord à la ligne {0}, colonne {1} ?"),
                     ("es", "¿Cuál es el valor de frontera en la fila {0}, columna {1}?"),
                     ("de", "Wie lautet der Randwert in Zeile {0}, Spalte {1}?")),
    "linear_system_missing_coeff": (("fr", "Quel est le coefficient de A à la ligne {0}, colonne {1} ?"),
                                    ("es", "¿Cuál es el coeficiente de A en la fila {0}, columna {1}?"),
                                    ("de", "Wie lautet der Koeffizient von A in Zeile {0}, Spalte {1}?")),
    "markov_missing_transition": (("fr", "Quelle est la probabilité de passer de l'état {0} à l'état {1} ?"),
                                  ("es", "¿Cuál es la probabilidad de pasar del estado {0} al estado {1}?"),
                                  ("de", "Wie groß ist die Übergangswahrscheinlichkeit von Zustand {0} "
                                         "nach Zustand {1}?")),
    "poly_interpolation": (("fr", "Quelle est la valeur de p en x = {0} ?"),
                           ("es", "¿Cuál es el valor de p en x = {0}?"),
                           ("de", "Welchen Wert hat p an der Stelle x = {0}?")),
    "portfolio_variance_missing_corr": (("fr", "Quelle est la corrélation entre les actifs {0} et {1} ?"),
                                        ("es", "¿Cuál es la correlación entre los activos {0} y {1}?"),
                                        ("de", "Wie groß ist die Korrelation zwischen den Anlagen {0} und {1}?")),
    "steady_state_missing_emission": (("fr", "Quelle est la probabilité que l'état s{0} émette le symbole o{1} ?"),
                                      ("es", "¿Cuál es la probabilidad de que el estado s{0} emita el símbolo o{1}?"),
                                      ("de", "Wie groß ist die Wahrscheinlichkeit, dass Zustand s{0} das Symbol "
                                             "o{1} ausgibt?")),
}


_NATIVE_SECOND: Dict[str, Tuple[Tuple[str, str], ...]] = {     # the slots of _SECOND
    "bayes_missing_prior": (("fr", "Quelle est la probabilité de E sachant non-H ?"),
                            ("es", "¿Cuál es la probabilidad de E dado no H?"),
                            ("de", "Wie groß ist die Wahrscheinlichkeit von E gegeben nicht H?")),
    "crt_reconstruction": (("fr", "Quelle est la quatrième congruence ?"),
                           ("es", "¿Cuál es la cuarta congruencia?"),
                           ("de", "Wie lautet die vierte Kongruenz?")),
    "geometry_coordinates": (("fr", "Quelles sont les coordonnées du point Q ?"),
                             ("es", "¿Cuáles son las coordenadas del punto Q?"),
                             ("de", "Welche Koordinaten hat der Punkt Q?")),
    "linear_system_separator": (("fr", "Quelle est la deuxième équation ?"),
                                ("es", "¿Cuál es la segunda ecuación?"),
                                ("de", "Wie lautet die zweite Gleichung?")),
    "piecewise_missing_threshold": (("fr", "En quel point faut-il évaluer f ?"),
                                    ("es", "¿En qué punto hay que evaluar f?"),
                                    ("de", "An welcher Stelle soll f ausgewertet werden?")),
    "recurrence_missing_init": (("fr", "Quelle est la première valeur initiale ?"),
                                ("es", "¿Cuál es el primer valor inicial?"),
                                ("de", "Wie lautet der erste Anfangswert?")),
}


def native(family: str, slot: str) -> List[Tuple[str, str]]:
    """(language, request) pairs asking for ``slot`` wholly in another language, in words."""
    second = _SECOND.get(family)
    if second is not None and slot == second[0]:
        return list(_NATIVE_SECOND[family])
    if family == "portfolio_variance_missing_corr" and slot.startswith("sigma"):
        (i,) = ints(slot)
        return [("fr", f"Quel est l'écart-type de l'actif {i} ?"),
                ("es", f"¿Cuál es la desviación típica del activo {i}?"),
                ("de", f"Wie groß ist die Standardabweichung der Anlage {i}?")]
    if family in _NATIVE_TEMPLATES:
        n = ints(slot)
        return [(lang, text.format(*n)) for lang, text in _NATIVE_TEMPLATES[family]]
    if family == "birth_death_missing_rate":
        (i,) = ints(slot)
        j = i + 1 if slot.startswith("lambda") else i - 1
        return [("fr", f"Quel est le taux de transition de l'état {i} vers l'état {j} ?"),
                ("es", f"¿Cuál es la tasa de transición del estado {i} al estado {j}?"),
                ("de", f"Wie groß ist die Übergangsrate von Zustand {i} nach Zustand {j}?")]
    return list(_NATIVE_FIXED.get(family, ()))
