"""Everything is declared in setup.cfg; this file only bundles the committed release.

A wheel must carry the frozen release (``mira-math/``) and the datasheet (``dataset_card.md``),
which live at the repository root so that ``load_dataset("mira-math", ...)`` works from a
clone. ``build_py`` copies them into ``mira_math/_bundle/`` of the build, where
:mod:`mira_math.generators.layout` finds them in an installed (non-editable) package."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithRelease(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:      # an editable install reads the checkout's own folders
            return
        bundle = Path(self.build_lib) / "mira_math" / "_bundle"
        if bundle.exists():
            shutil.rmtree(bundle)
        shutil.copytree(ROOT / "mira-math", bundle / "mira-math")
        shutil.copy2(ROOT / "dataset_card.md", bundle / "dataset_card.md")


setup(cmdclass={"build_py": BuildWithRelease})
