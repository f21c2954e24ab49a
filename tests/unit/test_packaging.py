"""Installing the project prints no warning of ours: pyproject.toml is read by the build
backend it names (setuptools) without a deprecation or any other warning, and the
license is an SPDX expression (a TOML table there is deprecated)."""

from __future__ import annotations

import warnings
from pathlib import Path

from setuptools.config.pyprojecttoml import apply_configuration, read_configuration
from setuptools.dist import Distribution

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"


def test_the_build_backend_reads_pyproject_without_a_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dist = apply_configuration(Distribution(), PYPROJECT)
    assert [f"{w.category.__name__}: {w.message}" for w in caught] == []
    assert dist.get_name() == "belot-platform"


def test_the_license_is_an_spdx_expression() -> None:
    project = read_configuration(PYPROJECT)["project"]
    assert project["license"] == "MIT"
