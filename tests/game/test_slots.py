"""game/slots/: every family's notation (the rules responder's knowledge).

Release-wide: for every instance of the committed release, each canonical hint's line holds
its slot, a request naming the slot (in the notation and by a natural-language alias) names
exactly it, every responder line has a slot, the solver's facts name their own quantities
(never a held one), and the question is never read as a request for one held slot. Then the alias table of
``game/RESPONDER.md``, vague requests, two-slot requests, a property test (no text raises)
and a speed guard.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mira_math.game.slots import UNPARSED, families, line_slot, mentioned_slots, normalise, read_request
from mira_math.generators import registry
from tests.game.responders.corpora import ALIASES


@pytest.fixture(scope="module")
def instances(release_instances):
    return release_instances


def test_release_hints_lines_and_requests(instances, counts):
    assert len(instances) == counts.total
    checked = {"hint": 0, "alias": 0, "responder": 0, "fact": 0}
    for inst in instances:
        fam, held = inst.family, {h.slot for h in inst.hints}
        for hint in inst.hints:
            assert line_slot(fam, hint.constraint) == hint.slot, inst.id
            assert mentioned_slots(fam, f"What is the value of {hint.slot}?") == {hint.slot}, inst.id
            assert mentioned_slots(fam, hint.slot) == {hint.slot}, inst.id
            checked["hint"] += 1
            for request in ALIASES[fam](hint.slot):
                assert mentioned_slots(fam, request) == {hint.slot}, (inst.id, request)
                checked["alias"] += 1
        for line in inst.responder:
            slot = line_slot(fam, line)
            assert not slot.startswith(UNPARSED), (inst.id, line)
            assert mentioned_slots(fam, f"What is {slot}?") == {slot}, (inst.id, line)
            checked["responder"] += 1
        for fact in inst.view.facts:
            slot = line_slot(fam, fact)
            if slot.startswith(UNPARSED):
                continue   # equations and lists (laplace stencils, the circuit's network, ...)
            checked["fact"] += 1
            # A fact's quantity is never a held canonical slot, and naming it names it alone.
            assert slot not in held, (inst.id, fact)
            assert mentioned_slots(fam, f"What is {slot}?") == {slot}, (inst.id, fact)
            # A request naming the held slot and a known fact names both.
            for hint in inst.hints:
                assert mentioned_slots(fam, f"What are {hint.slot} and {slot}?") == {hint.slot, slot}
        # The question asks for the target: it names something, never exactly one held slot
        # (linear_system_separator's target (a, b, c) contains the held c, with a and b).
        asked = mentioned_slots(fam, inst.view.question)
        assert asked and not (len(asked) == 1 and asked <= held), (inst.id, inst.view.question, asked)
    assert checked["hint"] == sum(len(i.hints) for i in instances)
    assert checked["alias"] >= 3 * checked["hint"] and checked["fact"] > 5000


def test_noncanonical_responder_lines_have_readable_ids():
    assert line_slot("geometry_coordinates", "Q = (-1, -10)") == "Q"
    assert line_slot("moment_problem", "q0 + q1 + q2 = 10") == "sum"
    assert line_slot("recurrence_missing_init", "a(n) = 1·a(n-1) + 3·a(n-2) for n ≥ 2") == "rule"
    assert line_slot("piecewise_missing_threshold", "query point: x = -5") == "query point"
    assert line_slot("piecewise_missing_threshold", "f(x) = -3x + 4 for x < t") == "f(x) for x < t"
    assert line_slot("laplace_grid", "4u[1][1] = u[0][1] + u[2][1] + u[1][0] + u[1][2]").startswith(UNPARSED)
    assert line_slot("circuit_missing_resistance", "Network: (R3 || R1) + R2").startswith(UNPARSED)
    assert line_slot("bayes_missing_prior", None).startswith(UNPARSED)   # type: ignore[arg-type]


# (family, request, the slots it names): the examples of game/RESPONDER.md and the edge cases.
TABLE = [
    ("bayes_missing_prior", "What is the prior?", {"P(H)"}),
    ("bayes_missing_prior", "What is the base rate?", {"P(H)"}),
    ("bayes_missing_prior", "What is the prior probability P(H)?", {"P(H)"}),
    ("bayes_missing_prior", "What is the probability that the hypothesis is true?", {"P(H)"}),
    ("bayes_missing_prior", "Tell me p(h).", {"P(H)"}),
    ("bayes_missing_prior", "What is P(H|E)?", {"P(H|E)"}),
    ("bayes_missing_prior", "What is the posterior?", {"P(H|E)"}),
    ("bayes_missing_prior", "What is the probability of H given E?", {"P(H|E)"}),
    ("bayes_missing_prior", "What is P(E | not H)?", {"P(E|¬H)"}),
    ("bayes_missing_prior", "What is P(E|~H)?", {"P(E|¬H)"}),
    ("bayes_missing_prior", "What is P(E|Hᶜ)?", {"P(E|¬H)"}),
    ("bayes_missing_prior", "What is $P(E \\mid \\neg H)$?", {"P(E|¬H)"}),
    ("bayes_missing_prior", "What is the false positive rate?", {"P(E|¬H)"}),
    ("bayes_missing_prior", "What is the likelihood?", {"P(E|H)"}),
    ("bayes_missing_prior", "What is P(¬H)?", {"P(¬H)"}),
    ("bayes_missing_prior", "What is P(E)?", {"P(E)"}),
    ("bayes_missing_prior", "What is P(H)? I need it for P(H|E).", {"P(H)"}),   # a purpose is not asked for
    ("crt_reconstruction", "What is congruence three?", {"congruence 3"}),
    ("crt_reconstruction", "Give me the last congruence.", {"congruence 3"}),
    ("crt_reconstruction", "What is x ≡ r_3 (mod m_3)?", {"congruence 3"}),
    ("crt_reconstruction", "What are r_3 and m_3?", {"congruence 3"}),
    ("crt_reconstruction", "What is the third modulus?", {"congruence 3"}),
    ("crt_reconstruction", "What is x?", {"x"}),
    ("crt_reconstruction", "What is x mod 17?", {"x mod 17"}),
    ("crt_reconstruction", "What is x ≡ ? (mod 3)", {"x mod 3"}),
    ("crt_reconstruction", "What are congruences 1 and 3?", {"congruence 1", "congruence 3"}),
    ("crt_reconstruction", "Please give me congruence 3: x ≡ ? (mod ?)", {"congruence 3"}),
    ("crt_reconstruction", "What is the value of r_3 in x ≡ r_3 (mod m_3)?", {"congruence 3"}),
    ("crt_reconstruction", "What is x, with 0 ≤ x < m_1·m_2·m_3?", {"x", "M"}),
    ("crt_reconstruction", "I'm 3 steps away: what is congruence 3?", {"congruence 3"}),
    ("geometry_coordinates", "What is line #2?", {"line 2"}),
    ("geometry_coordinates", "What is line 2's equation?", {"line 2"}),
    ("geometry_coordinates", "What is line 1?", {"line 1"}),
    ("geometry_coordinates", "What are the coordinates of point Q?", {"Q"}),
    ("geometry_coordinates", "What is |PQ|?", {"|PQ|"}),
    ("geometry_coordinates", "What is the distance between P and Q?", {"|PQ|"}),
    ("geometry_coordinates", "What is the intersection point P?", {"P"}),
    ("geometry_coordinates", "What are lines 1 and 2?", {"line 1", "line 2"}),
    ("graph_path_sums", "What is s_3?", {"s3"}),
    ("graph_path_sums", "What is the sum of e20 and e01?", {"s3"}),
    ("graph_path_sums", "What is path sum 3?", {"s3"}),
    ("graph_path_sums", "What is s3 = e20 + e01?", {"s3"}),
    ("graph_path_sums", "What are e01 and e12?", {"e01", "e12"}),
    ("graph_path_sums", "What is e02?", {"e20"}),
    ("graph_path_sums", "What is the weight of edge 0-1?", {"e01"}),
    ("graph_path_sums", "What are the edge weights?", {"e01", "e12", "e20"}),
    ("linear_system_separator", "What is c?", {"c"}),
    ("linear_system_separator", "Tell me c's value.", {"c"}),
    ("linear_system_separator", "I'd like to know c.", {"c"}),
    ("linear_system_separator", "What is a?", {"a"}),
    ("linear_system_separator", "What are a and b?", {"a", "b"}),
    ("linear_system_separator", "What is (a, b, c)?", {"a", "b", "c"}),
    ("linear_system_separator", "Can you give me a hint about c?", {"c"}),
    ("linear_system_separator", "Give me a value.", set()),
    ("linear_system_separator", "What is the first equation?", {"equation 1"}),
    ("matrix_completion", "What is m10?", {"m10"}),
    ("matrix_completion", "What is the (1,0) entry?", {"m10"}),
    ("matrix_completion", "What is M(1,0)?", {"m10"}),
    ("matrix_completion", "What is m11?", {"m11"}),
    ("matrix_completion", "What is u0?", {"u0"}),
    ("moment_problem", "What is q1+4*q2?", {"q1 + 4q2"}),
    ("moment_problem", "What is E[X^2]?", {"q1 + 4q2"}),
    ("moment_problem", "What is D times the second moment?", {"q1 + 4q2"}),
    ("moment_problem", "What is the first moment?", {"q1 + 2q2"}),
    ("moment_problem", "What is q0 + q1 + q2?", {"sum"}),
    ("moment_problem", "What is D?", {"sum"}),
    ("moment_problem", "What is q2?", {"q2"}),
    ("moment_problem", "What is q1 + q2?", {"q1", "q2"}),
    ("moment_problem", "What are the weights (q0, q1, q2)?", {"q0", "q1", "q2"}),
    ("moment_problem", "What do you mean?", set()),
    ("phase_retrieval", "Is x0 > 0?", {"sign(x0)"}),
    ("phase_retrieval", "What is the sign of the first sample x0?", {"sign(x0)"}),
    ("phase_retrieval", "What is x0?", {"x0"}),
    ("phase_retrieval", "What is |X₁|²?", {"|X_1|^2"}),
    ("phase_retrieval", "What is x1?", {"x1"}),
    ("phase_retrieval", "What is the signal (x0, x1, x2, x3)?", {"x0", "x1", "x2", "x3"}),
    ("piecewise_missing_threshold", "What is t?", {"t"}),
    ("piecewise_missing_threshold", "What's t?", {"t"}),
    ("piecewise_missing_threshold", "What is the value of t where the formula switches?", {"t"}),
    ("piecewise_missing_threshold", "Can't you tell me?", set()),
    ("piecewise_missing_threshold", "What is the query point?", {"query point"}),
    ("piecewise_missing_threshold", "What is f(6)?", {"f(6)"}),
    ("piecewise_missing_threshold", "What is the formula for x < t?", {"f(x) for x < t"}),
    ("piecewise_missing_threshold", "What is f(x) for x ≥ t?", {"f(x) for x ≥ t"}),
    ("rankdef_linear_shared", "What is eq3?", {"eq3"}),
    ("rankdef_linear_shared", "What is eq_3?", {"eq3"}),
    ("rankdef_linear_shared", "What is eq3: x + 2y - 2z = ?", {"eq3"}),
    ("rankdef_linear_shared", "What are eq3 and eq4?", {"eq3", "eq4"}),
    ("rankdef_linear_shared", "What are equations 3 and 4?", {"eq3", "eq4"}),
    ("rankdef_linear_shared", "What is (x, y, z)?", {"x", "y", "z"}),
    ("recurrence_missing_init", "What is a(1)?", {"a(1)"}),
    ("recurrence_missing_init", "What is a1?", {"a(1)"}),
    ("recurrence_missing_init", "What is the other initial value?", {"a(1)"}),
    ("recurrence_missing_init", "What is the initial value of the recurrence a(1)?", {"a(1)"}),
    ("recurrence_missing_init", "What are the initial values?", {"a(0)", "a(1)"}),
    ("recurrence_missing_init", "What is a(7)?", {"a(7)"}),
    ("recurrence_missing_init", "What is the recurrence rule?", {"rule"}),
    ("recurrence_missing_init", "What is r1?", {"r1"}),
    ("recurrence_missing_init", "What is a?", set()),
    ("recurrence_missing_init", "Give me a 2nd initial value", {"a(1)"}),
    ("recurrence_missing_init", "What is a(1), the second initial value?", {"a(1)"}),
    ("birth_death_missing_rate", "What is λ₁?", {"lambda_1"}),
    ("birth_death_missing_rate", "What is mu_{2}?", {"mu_2"}),
    ("birth_death_missing_rate", "What is \\mu_4?", {"mu_4"}),
    ("birth_death_missing_rate", "What is the transition rate 1 -> 2?", {"lambda_1"}),
    ("birth_death_missing_rate", "What is the birth rate lambda_1 from state 1 to state 2?", {"lambda_1"}),
    ("birth_death_missing_rate", "What is pi_2?", {"pi_2"}),
    ("birth_death_missing_rate", "What is the stationary probability of state 2?", {"pi_2"}),
    ("circuit_missing_resistance", "What is the value of resistor R3?", {"R3"}),
    ("circuit_missing_resistance", "What's R3's resistance?", {"R3"}),
    ("circuit_missing_resistance", "What is the third resistor?", {"R3"}),
    ("circuit_missing_resistance", "What are R1 and R3?", {"R1", "R3"}),
    ("circuit_missing_resistance", "What is R_eq?", {"R_eq"}),
    ("circuit_missing_resistance", "What is Req?", {"R_eq"}),
    ("circuit_missing_resistance", "What is the equivalent resistance?", {"R_eq"}),
    ("deconvolution", "What is output 1?", {"y1"}),
    ("deconvolution", "What is h0?", {"h0"}),
    ("deconvolution", "What is x?", {"x"}),
    ("deconvolution", "What is the signal (x0, x1, x2)?", {"x0", "x1", "x2"}),
    ("discrete_tomography", "What is cell (0,2)?", {"cell (0,2)"}),
    ("discrete_tomography", "What is the cell in row 0, column 2?", {"cell (0,2)"}),
    ("discrete_tomography", "What's at position (0, 2)?", {"cell (0,2)"}),
    ("discrete_tomography", "What is the row 0 sum?", {"row 0 sum"}),
    ("discrete_tomography", "What is the sum of column 2?", {"column 2 sum"}),
    ("eigenvector_missing_entry", "What is M_11?", {"M[1][1]"}),
    ("eigenvector_missing_entry", "What is (M²)[1][0]?", {"(M²)[1][0]"}),
    ("eigenvector_missing_entry", "What is (M^2)[1][0]?", {"(M²)[1][0]"}),
    ("eigenvector_missing_entry", "What is the (1,0) entry of M^2?", {"(M²)[1][0]"}),
    ("eigenvector_missing_entry", "What is the entry (1,0) of M squared?", {"(M²)[1][0]"}),
    ("eigenvector_missing_entry", "What is the eigenvalue?", {"lambda"}),
    ("eigenvector_missing_entry", "What is v[0]?", {"v[0]"}),
    # a stated purpose is context in any wording (docs/benchmark.md §6, the request rule)
    ("eigenvector_missing_entry", "What is M[1][1]? I will then compute (M^2)[1][0].", {"M[1][1]"}),
    ("laplace_grid", "What is u[1,0]?", {"u[1][0]"}),
    ("laplace_grid", "What is u_{1,0}?", {"u[1][0]"}),
    ("laplace_grid", "What is the value at cell (1,0)?", {"u[1][0]"}),
    ("linear_system_missing_coeff", "What is A[2,0]?", {"A[2][0]"}),
    ("linear_system_missing_coeff", "What is entry (2,0) of A?", {"A[2][0]"}),
    ("linear_system_missing_coeff", "A quick question: what is A[2][0]?", {"A[2][0]"}),
    ("linear_system_missing_coeff", "What is b[1]?", {"b[1]"}),
    ("linear_system_missing_coeff", "What is x[0]?", {"x[0]"}),
    ("markov_missing_transition", "What is P_{01}?", {"P[0][1]"}),
    ("markov_missing_transition", "What is p01?", {"P[0][1]"}),
    ("markov_missing_transition", "What is P[0,1]?", {"P[0][1]"}),
    ("markov_missing_transition", "What is the probability of moving from state 0 to state 1?", {"P[0][1]"}),
    ("markov_missing_transition", "What is pi_1?", {"pi_1"}),
    ("markov_missing_transition",
     "What is P[0][1], the probability of transitioning from state 0 to state 1?", {"P[0][1]"}),
    ("poly_interpolation", "What is p(0)?", {"p(0)"}),
    ("poly_interpolation", "What is p at x = 0?", {"p(0)"}),
    ("poly_interpolation", "What is p(−2)?", {"p(-2)"}),
    ("poly_interpolation", "What is the value of p at -2?", {"p(-2)"}),
    ("portfolio_variance_missing_corr", "What is rho(2,1)?", {"rho(1,2)"}),
    ("portfolio_variance_missing_corr", "What is ρ₁₂?", {"rho(1,2)"}),
    ("portfolio_variance_missing_corr", "What is rho_1,2?", {"rho(1,2)"}),
    ("portfolio_variance_missing_corr", "What is corr(1,2)?", {"rho(1,2)"}),
    ("portfolio_variance_missing_corr", "What is the correlation between asset 1 and asset 2?", {"rho(1,2)"}),
    ("portfolio_variance_missing_corr", "What is the covariance between assets 1 and 2?", {"cov(1,2)"}),
    ("portfolio_variance_missing_corr", "What is σ_1?", {"sigma(1)"}),
    ("portfolio_variance_missing_corr", "What is the portfolio variance?", {"sigma_p^2"}),
    ("portfolio_variance_missing_corr", "What is σ_p²?", {"sigma_p^2"}),
    ("portfolio_variance_missing_corr", "What is w(2)?", {"w(2)"}),
    ("portfolio_variance_missing_corr", "What is the correlation rho(1,2) between assets 1 and 2?",
     {"rho(1,2)"}),
    ("steady_state_missing_emission", "What is E(s3, o2)?", {"E[s3][o2]"}),
    ("steady_state_missing_emission", "What is E_{s3,o2}?", {"E[s3][o2]"}),
    ("steady_state_missing_emission", "What is E[3][2]?", {"E[s3][o2]"}),
    ("steady_state_missing_emission", "What is the emission probability of state 3 for symbol 2?",
     {"E[s3][o2]"}),
    ("steady_state_missing_emission", "What is P[s1][s2]?", {"P[s1][s2]"}),
    ("steady_state_missing_emission", "What is the transition probability from s1 to s2?", {"P[s1][s2]"}),
    ("steady_state_missing_emission", "What is the probability of observing o1?", {"P(o1)"}),
    ("steady_state_missing_emission", "What is P(o1)?", {"P(o1)"}),
]


@pytest.mark.parametrize("family,request_text,expected", TABLE)
def test_alias_table(family, request_text, expected):
    assert mentioned_slots(family, request_text) == expected


# Bare forms from the alias tables of game/RESPONDER.md: (family, text, slots named).
FORMS = {
    "bayes_missing_prior": [
        ("P[H]", {"P(H)"}), ("Prob(H)", {"P(H)"}), ("P(E given H)", {"P(E|H)"}), ("odds of H", {"P(H)"}),
        ("specificity", {"P(¬E|¬H)"}), ("marginal probability of E", {"P(E)"}),
        ("likelihood ratio", {"likelihood ratio"}),
    ],
    "crt_reconstruction": [
        ("condition 3", {"congruence 3"}), ("x % m3", {"congruence 3"}),
        ("remainder when divided by m_3", {"congruence 3"}),
        ("remainder when divided by 17", {"x mod 17"}), ("product of the moduli", {"M"}),
    ],
    "geometry_coordinates": [
        ("last line", {"line 2"}), ("2nd line", {"line 2"}), ("QP", {"|PQ|"}), ("length", {"|PQ|"}),
    ],
    "graph_path_sums": [
        ("S3", {"s3"}), ("w01", {"e01"}), ("e10", {"e01"}),
    ],
    "linear_system_separator": [
        ("eq1", {"equation 1"}), ("3c", {"c"}),
    ],
    "matrix_completion": [
        ("u[0]", {"u0"}), ("upper-right", {"m01"}),
    ],
    "moment_problem": [
        ("moment 2", {"q1 + 4q2"}), ("m2", {"q1 + 4q2"}), ("normalising constant", {"sum"}),
    ],
    "phase_retrieval": [
        ("x(0)", {"x0"}), ("signum(x[0])", {"sign(x0)"}), ("magnitude of X_1", {"|X_1|^2"}),
        ("X_1", {"X_1"}), ("x0 < 0", {"sign(x0)"}),
    ],
    "piecewise_missing_threshold": [
        ("query x", {"query point"}), ("cutoff", {"t"}), ("right branch", {"f(x) for x ≥ t"}),
        ("f(t)", {"f(t)"}),
    ],
    "rankdef_linear_shared": [
        ("equation (3)", {"eq3"}), ("last equation", {"eq4"}),
    ],
    "recurrence_missing_init": [
        ("a sub 1", {"a(1)"}), ("term 1", {"a(1)"}), ("a(n-1)", {"rule"}), ("coefficients", {"r1", "r2"}),
        ("first term", {"a(0)"}),
    ],
    "birth_death_missing_rate": [
        ("lambda(1)", {"lambda_1"}), ("2 → 1", {"mu_2"}), ("rate from state 0 to state 2", {"rate 0->2"}),
    ],
    "circuit_missing_resistance": [
        ("R_total", {"R_eq"}), ("R(3)", {"R3"}), ("R _3", {"R3"}), ("R 3", set()),
    ],
    "deconvolution": [
        ("y(1)", {"y1"}), ("kernel tap 0", {"h0"}), ("input 2", {"x2"}),
    ],
    "discrete_tomography": [
        ("cell 0,2", {"cell (0,2)"}), ("cell [0][2]", {"cell (0,2)"}), ("row 0", {"row 0 sum"}),
    ],
    "eigenvector_missing_entry": [
        ("(M**2)[1][0]", {"(M²)[1][0]"}), ("m11", {"M[1][1]"}), ("λ", {"lambda"}), ("v_0", {"v[0]"}),
    ],
    "laplace_grid": [
        ("point (1,0)", {"u[1][0]"}),
    ],
    "linear_system_missing_coeff": [
        ("A(2,0)", {"A[2][0]"}), ("a20", {"A[2][0]"}), ("rhs 1", {"b[1]"}),
    ],
    "markov_missing_transition": [
        ("P(0 to 1)", {"P[0][1]"}), ("π_1", {"pi_1"}), ("row 0, column 1", {"P[0][1]"}),
        ("entry (0,1)", {"P[0][1]"}),
    ],
    "poly_interpolation": [
        ("p of 0", {"p(0)"}), ("p evaluated at 0", {"p(0)"}), ("node 0", {"p(0)"}),
        ("for x = 0", {"p(0)"}),
    ],
    "portfolio_variance_missing_corr": [
        ("sigma1", {"sigma(1)"}), ("sigma_p", {"sigma_p^2"}), ("rho[1][2]", {"rho(1,2)"}),
        ("assets 1 and 2 correlation", {"rho(1,2)"}), ("volatility of asset 1", {"sigma(1)"}),
        ("weight on asset 1", {"w(1)"}),
    ],
    "steady_state_missing_emission": [
        ("E_32", {"E[s3][o2]"}), ("P[1][2]", {"P[s1][s2]"}), ("P(s1, s2)", {"P[s1][s2]"}),
        ("pi_1", {"pi(s1)"}), ("P(observe o1)", {"P(o1)"}),
        ("probability of observing o2 in s3", {"E[s3][o2]"}), ("s1 -> s2", {"P[s1][s2]"}),
        ("stationary probability of s1", {"pi(s1)"}),
    ],
}


@pytest.mark.parametrize("family,text,expected",
                         [(f, t, e) for f, rows in FORMS.items() for t, e in rows])
def test_documented_forms(family, text, expected):
    assert mentioned_slots(family, text) == expected


VAGUE = ["Can you help me solve this?", "What is the missing information?", "Give me everything you have",
         "What is the answer?", "What do you know?", "Please tell me the missing value.", "I need a hint.",
         "What is the missing fact?", "Tell me what you have, please.", "Could you give me a clue?", "",
         "   ", "?", "REQUEST: the missing piece"]


@pytest.mark.parametrize("family", sorted(registry.names()))
def test_vague_requests_name_nothing(family):
    for text in VAGUE:
        assert mentioned_slots(family, text) == frozenset(), (family, text)


@pytest.mark.parametrize("family,request_text,held", [
    ("bayes_missing_prior", "What is P(H|E)?", "P(H)"),
    ("circuit_missing_resistance", "What is R_eq?", "R3"),
    ("crt_reconstruction", "What is x?", "congruence 3"),
    ("linear_system_missing_coeff", "What is x[1]?", "A[2][1]"),
    ("markov_missing_transition", "What is pi_0, the stationary probability of state 0?", "P[2][0]"),
    ("eigenvector_missing_entry", "What is (M²)[2][2]?", "M[2][0]"),
    ("moment_problem", "What are the weights (q0, q1, q2)?", "q1 + 4q2"),
])
def test_target_requests_do_not_name_the_held_slot(family, request_text, held):
    named = mentioned_slots(family, request_text)
    assert named and held not in named


def test_unknown_family_is_a_key_error():
    with pytest.raises(KeyError):
        mentioned_slots("no_such_family", "What is P(H)?")


def test_normalise():
    assert normalise("μ₄ λ_0 ρ(1,2) σ_p² ¬H") == "mu_4 lambda_0 rho(1,2) sigma_p^2 ¬H"
    assert (normalise("\\mu_{4} \\lambda_0 \\rho_{12} P(E \\mid \\neg H)")
            == "mu_4 lambda_0 rho_12 P(E | ¬ H)")
    assert normalise("P(0→1) x ≥ t −2") == "P(0->1) x >= t -2"


NOTATION = "PHEQRMAbcdeqmxyz tuvwsno()[]{}|,_=+-^²₁¬~\\λμρσπ0123456789 ≡→≥'?."


@settings(max_examples=400, deadline=None)
@given(family=st.sampled_from(sorted(registry.names())),
       text=st.one_of(st.text(), st.text(alphabet=NOTATION, max_size=80)))
def test_any_text_never_raises(family, text):
    named = mentioned_slots(family, text)
    assert isinstance(named, frozenset) and all(isinstance(s, str) for s in named)
    assert isinstance(line_slot(family, text), str)


@given(family=st.sampled_from(sorted(registry.names())),
       value=st.one_of(st.none(), st.integers(), st.binary()))
def test_non_strings_name_nothing(family, value):
    assert mentioned_slots(family, value) == frozenset()   # type: ignore[arg-type]


def _doc_examples():
    """(family, held slot, request, offered?) for every example line of game/RESPONDER.md."""
    doc = (Path(__file__).resolve().parents[2] / "mira_math" / "game" / "RESPONDER.md").read_text(encoding="utf-8")
    family, held, rows = None, None, []
    for line in doc.splitlines():
        heading = re.match(r"### (\w+)$", line)
        if heading:
            family, held = heading.group(1), None
        offered = re.match(r"- offered \(held `([^`]+)`\): (.*)$", line)
        if offered:
            held = offered.group(1)
            rows += [(family, held, r, True) for r in re.findall(r"«([^»]*)»", offered.group(2))]
        elif line.startswith("- declined:"):
            rows += [(family, held, r, False) for r in re.findall(r"«([^»]*)»", line)]
    return rows


def test_responder_md_documents_only_registered_families():
    """Each registered family's section and examples are required by
    tests/generators/test_family_complete.py; here: no section for a family that is not one."""
    assert {f for f, _, _, _ in _doc_examples()} <= set(registry.names())


@pytest.mark.parametrize("family,held,request_text,offered", _doc_examples())
def test_responder_md_examples(family, held, request_text, offered):
    reading = read_request(family, request_text)
    assert (reading.own == {held} and not reading.foreign and not reading.too_long) is offered, reading


def test_notation_tables_are_for_registered_families_only():
    assert set(families()) <= set(registry.names())   # the converse: test_family_complete.py


@pytest.mark.parametrize("family,text,expected", [
    ("recurrence_missing_init", "What is the rule for offering?", set()),     # English, not notation
    ("recurrence_missing_init", "What is the rule?", {"rule"}),
    ("moment_problem", "Can you sum it up?", set()),
    ("bayes_missing_prior", "Do you have any prior knowledge?", {"(instructions)"}),
    ("bayes_missing_prior", "What is the prior probability?", {"P(H)"}),
    ("circuit_missing_resistance", "What is the value of 2nd?", set()),
    ("circuit_missing_resistance", "aR2xhbmNlMTIz", set()),                       # base64-like
    ("circuit_missing_resistance", "R2%3F", set()),                               # URL-encoded
    ("circuit_missing_resistance", "What is R2? I need it to compute R_eq.", {"R2"}),
    ("crt_reconstruction", "What is x" + " " * 5000 + "mod m_3?", {"congruence 3"}),
])
def test_reading_rules_9_to_12(family, text, expected):
    assert mentioned_slots(family, text) == expected


def test_normalise_collapses_whitespace_and_long_requests_are_not_read():
    assert normalise("R1 \n\t  R2") == "R1 R2"
    long = "What is R2? " + "please " * 200
    assert read_request("circuit_missing_resistance", long).too_long
    assert read_request("circuit_missing_resistance", "What is R2?").own == {"R2"}
