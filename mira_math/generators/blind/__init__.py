"""The blind tier (docs/decisions/data-blind-tier.md): instances of three kinds mixed in one split,
the solver not told which. A *control* is determined by its view (some lack an irrelevant
quantity: the right play is still to answer at once); an *incomplete* instance lacks one or
two needed facts; an *irrelevant-gaps* instance lacks needed facts and also a quantity whose
value does not change the answer. The holder holds the needed facts and the irrelevant ones.

:mod:`.contract` is what a family provides, :mod:`.build` turns a seed into an instance,
:mod:`.prove` redoes every proof from the stored record, and :mod:`.families` holds one module
per family, each registering itself in :data:`mira_math.generators.registry.BLIND`.
"""
