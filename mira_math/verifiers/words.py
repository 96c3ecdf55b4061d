"""Values and hedges written in words or in Unicode, recognised by rule.

A hand-made list of number words or hedges is always one entry short, so the classes are
described by how their words are built, not by listing them:

- a character Unicode gives a numeric value (``unicodedata.numeric``: ``¾``, ``⅝``, ``⁵``,
  ``₄``, ``Ⅻ``, ``五``) states a value;
- an English number word is a cardinal, an ordinal or a fraction built from the cardinal
  roots (``twenty-one``, ``a twelfth``, ``three quarters``, ``five hundredths``, ``a dozen``):
  the ordinal and plural suffixes are undone and the root looked up; a German, French,
  Spanish, Italian, Portuguese or Dutch number word is one that segments wholly into that
  language's number morphemes (``einundzwanzig``, ``fünftel``, ``veintiuno``, ``ventitré``);
- a hedge is an epistemic adverb (English ``-ly``, German ``-lich``/``-weise``, Romance
  ``-mente``/``-ement``, Dutch ``-lijk``) that is not one of the few adverbs of certainty or
  order, a word of a hedging stem in any inflection (``tentative``, ``approximated``,
  ``estimating``), or a modal or epistemic verb (``might``, ``I think``, ``seems``).

Each predicate takes one lower-cased word (as ``[^\\W\\d_]+`` splits the text) and is
memoised, so a pass over a text stays linear.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

# ---------------------------------------------------------------- numbers

_EN_CARDINALS = frozenset("""zero nought naught nil one two three four five six seven eight nine
ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty
forty fifty sixty seventy eighty ninety hundred thousand million billion trillion dozen""".split())
# Ordinals that are not a cardinal + "th" (their cardinal's spelling changes).
_EN_IRREGULAR_ORDINALS = {"third": "three", "fifth": "five", "eighth": "eight", "ninth": "nine",
                          "twelfth": "twelve", "half": "two", "halve": "two", "quarter": "four"}
# "first" and "second" are ordinals too, but in prose ("the second coin", "first, ...") far
# more often than as values; "one" is kept (a value after an answer is what it usually is).

# Number morphemes of the other languages the reader supports (a word counts when it is
# made wholly of them, at least one of them a root): compounds come for free.
_MORPHEMES = {
    "de": ("null eins zwei drei vier fünf fuenf sechs sechzehn sieben siebzehn acht neun zehn elf "
           "zwölf zwoelf zwanzig dreißig dreissig vierzig fünfzig sechzig siebzig achtzig neunzig "
           "hundert tausend million millionen milliarde hälfte haelfte halb halbe halbes drittel "
           "dritt viertel achtel siebtel sieb tel stel te ten ter tes ste sten und e ein einund"),
    "fr": ("zéro zero un une deux trois quatre quatr cinq cinqu six sept huit neuf neuv dix onze onz "
           "douze douz treize treiz quatorze quatorz quinze quinz seize seiz vingt vingts trente "
           "trent quarante quarant cinquante cinquant soixante soixant cent cents mille million "
           "millions demi demie moitié tiers quart quarts ième ièmes et"),
    "es": ("cero uno una un dos dós tres trés cuatro cinco seis séis siete ocho nueve diez once "
           "doce trece catorce quince dieci veinte veinti treinta cuarenta cincuenta sesenta "
           "setenta ochenta noventa cien ciento cientos quinientos mil millón medio media mitad "
           "tercio tercios cuarto cuartos quinto quintos sexto sextos séptimo octavo noveno "
           "décimo avo avos y"),
    "it": ("zero uno una un due tre tré quattro cinque sei sette otto nove dieci undici dodici "
           "tredici quattordici quindici sedici diciassette diciotto diciannove venti ventuno "
           "ventotto trenta trent quaranta quarant cinquanta cinquant sessanta sessant settanta "
           "settant ottanta ottant novanta novant cento mille mila milione mezzo mezza metà "
           "terzo terzi quarto quarti quinto quinti sesto sesti decimo decimi undic dodic tredic "
           "quattordic quindic sedic centesim millesim esimo esimi esima esime"),
    "pt": ("zero um uma dois duas três tres quatro cinco seis sete oito nove dez onze doze treze "
           "catorze quatorze quinze dezesseis dezessete dezoito dezenove vinte trinta quarenta "
           "cinquenta sessenta setenta oitenta noventa cem cento mil metade meio meia terço "
           "terços quarto quartos quinto quintos décimo décimos avos e"),
    "nl": ("nul een één twee drie vier vijf zes zeven acht negen tien elf twaalf dertien veertien "
           "twintig dertig veertig vijftig zestig zeventig tachtig negentig honderd duizend "
           "miljoen half helft derde kwart vierde vijfde tiende ste de en ën"),
}
# Morphemes that join or end a compound but are no value alone ("und", "et", "y", "e", "en",
# "tel", "ième", "avo", "ste", "de"), and articles that are also the word for one: alone,
# they are prose ("ein Bruch", "une fraction", "un valore", "een breuk").
_BOUND = frozenset("und e ein einund et un une y uno una um een en ën de ste te ten ter tes sten "
                   "tel stel ième ièmes avo avos esimo esimi esima esime media sieb".split())
_ROOTS = {lang: frozenset(text.split()) for lang, text in _MORPHEMES.items()}
# Words of the other languages that are common English words ("due", "once", "dose", "tree"
# cannot form across languages): never a value here.
_ENGLISH_COLLISIONS = frozenset("once due".split())


def _segments(word: str, roots: "frozenset[str]") -> bool:
    """Whether ``word`` is a concatenation of ``roots`` with at least one free root."""
    n = len(word)
    # reach[i]: (can reach i, a free root used on the way)
    reach = [(False, False)] * (n + 1)
    reach[0] = (True, False)
    for i in range(n):
        ok, free = reach[i]
        if not ok:
            continue
        for j in range(i + 1, min(n, i + 12) + 1):
            piece = word[i:j]
            if piece in roots:
                new_free = free or piece not in _BOUND
                if not reach[j][0] or (new_free and not reach[j][1]):
                    reach[j] = (True, reach[j][1] or new_free)
    return reach[n][0] and reach[n][1]


def _english_number(word: str) -> bool:
    if word in _EN_CARDINALS:
        return True
    stem = word[:-1] if word.endswith("s") and len(word) > 3 else word   # plural fractions
    if stem in _EN_CARDINALS and stem != word and stem not in ("one",):  # "tens", "hundreds"
        return True
    if stem in _EN_IRREGULAR_ORDINALS:
        return True
    if stem.endswith("th") and len(stem) > 4:
        root = stem[:-2]
        if root.endswith("ie"):            # twentieth -> twenty
            root = root[:-2] + "y"
        return root in _EN_CARDINALS
    if word == "halves":
        return True
    return False


@lru_cache(maxsize=65536)
def is_number_word(word: str) -> bool:
    """Whether the lower-cased ``word`` is a number word: a cardinal, ordinal (from
    "third" on) or fraction in English, or a number word of a supported language."""
    if len(word) < 2:
        return False
    if _english_number(word):
        return True
    if word in _ENGLISH_COLLISIONS or len(word) > 40:
        return False
    return any(_segments(word, roots) for roots in _ROOTS.values())


def has_numeric_character(text: str) -> bool:
    """Whether ``text`` holds a character other than an ASCII digit that Unicode gives a
    numeric value (vulgar fractions, superscripts, subscripts, other scripts' digits)."""
    if text.isascii():
        return False
    return any(ch >= "\x80" and unicodedata.numeric(ch, None) is not None for ch in text)


# ---------------------------------------------------------------- hedges

# Adverbs of certainty, order and manner that state an answer rather than hedge it, in the
# languages whose adverb suffixes mark a hedge below.
_CERTAIN_ADVERBS = frozenset("""
exactly precisely definitely certainly clearly finally simply only directly surely obviously
evidently consequently accordingly ultimately lastly firstly secondly thirdly really truly
fully totally entirely completely identically uniquely numerically explicitly formally
correspondingly immediately namely strictly
exactement précisément finalement simplement seulement directement évidemment clairement
vraiment enfin
exactamente precisamente finalmente simplemente solamente directamente claramente
esattamente precisamente semplicemente solamente direttamente chiaramente
exatamente simplesmente somente diretamente claramente
schließlich schliesslich endlich letztlich natürlich natuerlich lediglich ausschließlich
deutlich eindeutig tatsächlich
uiteindelijk duidelijk eigenlijk""".split())
# "tatsächlich" (in fact) and "eigenlijk" are corrections, not hedges: they are listed as
# hedge words below, which take precedence.

# Stems whose every inflection hedges (adjective, adverb, verb, noun): "tentative",
# "tentatively", "approximated", "estimating", "guesstimate", "presumably".
_HEDGE_STEMS = ("assum", "tentativ", "provisional", "provisoir", "preliminar", "approx", "aproxim",
                "approssim", "estimat", "guess", "presum", "suppos", "probabl", "probabilm",
                "possibl", "posibl", "possibil", "possivel", "possível", "plausib", "apparent",
                "seeming", "likel", "unlikel", "conjectur", "hypothetic", "roughly", "vraisembl",
                "wahrscheinl", "vermut", "möglich", "moeglich", "eventuell", "schätz", "schaetz",
                "ungefähr", "ungefaehr", "circa", "alrededor", "quizá", "quiza",
                "talvez", "forse", "waarschijnl", "mogelijk", "ongeveer", "misschien", "ongeveer")
# Words inside a hedging stem's prefix that do not hedge: "probability", "possibility" is a
# hedge ("one possibility is"), "probabilidad"/"probabilità" name the quantity.
_NOT_HEDGE_PREFIXES = ("probabilit", "probabilid", "probabilté", "probabilità", "probabilidade",
                       "wahrscheinlichkeit", "waarschijnlijkheid", "likelihood")
# Closed classes that never state an exact value: conjunctions of alternatives, negations,
# quantifiers of imprecision, modal and epistemic verbs, corrections, operators and quantity
# words (compared whole; the suffix and stem rules above add the open classes).
HEDGE_WORDS = frozenset("""
or nor not never neither either maybe perhaps about around nearly almost close closer
unsure uncertain alternatively equivalently otherwise else instead corrected correction correcting
actually wait sorry oops mistake typo wrong incorrect rather except unless but if least most than
between within range plus minus times divided over percent percentage per cent sqrt root squared
cubed power log ln exp mod modulo congruent isn aren wasn doesn don vs versus updated revised
respectively none undefined infinity inf nan disregard ignore scratch retract negative reciprocal
inverse twice double triple square cube opposite complement negated think thinks thought believe
believes seem seems seemed suppose assume assumed guessing hmm may might could would should must
ish ballpark sure confident fairly pretty somewhere bet cannot without unknown missing determined
reckon suspect feel feels appears appear imagine say said
oder vielleicht ungefähr etwa nicht kein keine aber eher bzw beziehungsweise glaube denke
sonst falsch nein korrigiert korrektur tatsächlich eigentlich ca
ou peut sinon plutôt crois pense presque faux corrigé non pas env environ
quizás quizá quizas quiza vez probablemente cerca creo pienso pero sino incorrecto corregido no
unos unas aprox
forse oppure circa penso credo invece sbagliato
ou talvez cerca acho não nao
misschien ongeveer denk geloof niet eigenlijk""".split())


# Words that make a stated value conditional or say it cannot be given yet: "Insufficient
# information: 1/4", "Depends on P(H): 1/4" is no answer.
_CONDITION_WORDS = frozenset("""insufficient insufficiently depends depending undetermined
indeterminate underdetermined unless""".split())

# The doubts: the part of the hedges that qualifies an answer when written after it ("ANSWER:
# 1/4" then "(This is a guess.)", "Confidence: low.", "I assumed a uniform prior"): the hedging
# stems, the condition words, and the closed class below of doubt, belief and correction words.
# Operators, negations and conjunctions ("or", "not", "no", "over"), which explanatory prose
# after an answer uses freely, are hedges inside an answer but not doubts.
DOUBT_WORDS = frozenset("""
maybe perhaps unsure uncertain uncertainty doubt doubtful confidence confident sure think believe
seem seems seemed appears guessing hmm actually wait sorry oops mistake typo wrong incorrect
corrected correction
vielleicht glaube denke eigentlich falsch peut crois pense plutôt quizás quizá quizas quiza creo
pienso forse penso credo talvez acho misschien denk geloof""".split()) | _CONDITION_WORDS


# Words of a hedging stem that count cases rather than doubt a value ("the number of possible
# values is 5", "there are 6 possibilities"): prose, not a doubt, around an answer.
_COUNTING_WORDS = frozenset({"possible", "possibilities"})


@lru_cache(maxsize=65536)
def is_doubt(word: str) -> bool:
    """Whether the lower-cased ``word``, written after an answer, makes it a guess, an
    assumption, a conditional value or a correction (every doubt is also a hedge)."""
    if word in DOUBT_WORDS:
        return True
    if word in _COUNTING_WORDS:
        return False
    return word.startswith(_HEDGE_STEMS) and not word.startswith(_NOT_HEDGE_PREFIXES)


@lru_cache(maxsize=65536)
def is_hedge(word: str) -> bool:
    """Whether the lower-cased ``word`` hedges, corrects or qualifies a stated value."""
    if word in HEDGE_WORDS or word in DOUBT_WORDS:
        return True
    if word.startswith(_NOT_HEDGE_PREFIXES):
        return False
    if word.startswith(_HEDGE_STEMS):
        return True
    if word in _CERTAIN_ADVERBS or len(word) < 5:
        return False
    if word.endswith("ly"):
        # an adverb; "-ply" (apply, multiply) and "-ily"/"-lly" nouns aside
        return not word.endswith(("ply", "family", "anomaly", "assembly", "italy"))
    if word.endswith(("mente", "weise")):
        return True
    if word.endswith("lich") or word.endswith("lijk"):
        return True
    if word.endswith(("ablement", "iblement", "ivement", "ellement", "amment", "emment")):
        return True
    return False
