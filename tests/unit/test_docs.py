"""The documentation holds together: the README stays a short user's page, every relative
link in it and in ``docs/`` reaches a file (and a heading, where it names one), and no
file of the repository cites a document that is not in it.

The specification and the seeds it distils live in ``docs/`` (``docs/specification.md``,
``docs/seeds/``), so code and docs cite them there: a reference to the specification's
old file names, to a design or style page outside the repository, or to a path above
it names something a reader of this repository cannot open.

Anchors follow GitHub's heading ids: the heading's text as rendered (code spans and
emphasis unwrapped, a link's text kept), lower case, every character that is not a
letter, digit, underscore, space or hyphen dropped, each space made a hyphen, and a
repeated id suffixed ``-1``, ``-2``…
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"

#: The README's limit: a user's first page, not a manual.
README_MAX_LINES = 200

#: Pages written on branches merged after this one; a link to one is allowed while it is
#: missing and checked like any other once it exists. Empty this set once they are in.
PENDING: frozenset[str] = frozenset()

#: Citations of documents outside the repository. The patterns are written so that this
#: file does not match them itself.
OUTSIDE = (
    (re.compile(r"(?<!docs/)\b(?:RULES|DESIGN|STYLE)\.md"), "a document outside the repository"),
    (re.compile(r"\.\./shared\b|/work/share[d]\b"), "a path outside the repository"),
)
#: The seeds are under docs/seeds/: outside docs/ a file names them by that path.
SEED = re.compile(r"(?<!docs/)\bseeds/[0]\d\d")

LINK = re.compile(r"!?\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"`[^`]*`")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
#: A page of ours named in a file (docs/ and its bench/ pages; other projects' docs/ paths
#: in recorded data have deeper paths).
DOC_PAGE = re.compile(r"(?<![\w/:.-])docs/(?:bench/)?[\w-]+\.md\b")


def markdown_pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1."""
    out, fenced = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, line))
    return out


def slug(heading: str) -> str:
    """GitHub's id for a heading's text."""
    text = LINK.sub(lambda m: m.group("text"), heading)
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"(?<!\w)_|_(?!\w)", "", text)
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, line in prose_lines(path):
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return frozenset(out)


def links(path: Path) -> list[tuple[int, str]]:
    out = []
    for number, line in prose_lines(path):
        for m in LINK.finditer(CODE_SPAN.sub("", line)):
            out.append((number, m.group("target")))
    return out


#: What .gitignore leaves out, for a copy of the repository without git.
IGNORED = frozenset(
    {".git", ".venv", ".belot", "__pycache__", ".pytest_cache", ".mypy_cache",
     ".ruff_cache", ".hypothesis", "build", "dist", "node_modules", "artifacts"}
)  # fmt: skip


def repo_files() -> list[Path]:
    """The repository's files: tracked and new ones git does not ignore (without git, every
    file outside what .gitignore names)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        return [
            p
            for p in ROOT.rglob("*")
            if p.is_file()
            and not IGNORED.intersection(p.relative_to(ROOT).parts)
            and not any(part.endswith(".egg-info") for part in p.relative_to(ROOT).parts)
        ]
    return [ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def text_of(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None


def test_the_readme_is_a_short_page() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; keep it to a page"


def test_slugs_follow_github() -> None:
    assert slug("The fair deal, and how to check a deck yourself") == (
        "the-fair-deal-and-how-to-check-a-deck-yourself"
    )
    assert slug("Bots and `belot simulate`") == "bots-and-belot-simulate"
    assert slug("5. Tournaments (000/003)") == "5-tournaments-000003"
    assert slug("Failover (`tests/integration/test_failover.py`)") == (
        "failover-testsintegrationtest_failoverpy"
    )
    assert slug("**Bold** and [a link](x.md) — dash") == "bold-and-a-link--dash"


@pytest.mark.parametrize("page", markdown_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for number, target in links(page):
        if SCHEME.match(target):
            continue
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        name = dest.relative_to(ROOT).as_posix() if dest.is_relative_to(ROOT) else str(dest)
        if not dest.exists():
            if name not in PENDING:
                broken.append(f"line {number}: {target}: no such file")
            continue
        if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"line {number}: {target}: no heading #{anchor} in {name}")
    assert not broken, "\n".join(broken)


def test_no_file_cites_a_document_outside_the_repository() -> None:
    found = []
    for path in repo_files():
        text = text_of(path)
        if text is None:
            continue
        name = path.relative_to(ROOT).as_posix()
        in_docs = name.startswith("docs/")
        for number, line in enumerate(text.splitlines(), 1):
            for pattern, what in OUTSIDE:
                if pattern.search(line):
                    found.append(f"{name}:{number}: {what}: {line.strip()[:120]}")
            if not in_docs and SEED.search(line):
                found.append(f"{name}:{number}: a seed not under docs/seeds/: {line.strip()[:120]}")
    assert not found, "\n".join(found)


def test_every_docs_page_a_file_names_exists() -> None:
    missing = []
    for path in repo_files():
        text = text_of(path)
        if text is None:
            continue
        for m in DOC_PAGE.finditer(text):
            page = m.group(0)
            if not (ROOT / page).is_file() and page not in PENDING:
                missing.append(f"{path.relative_to(ROOT).as_posix()}: {page}")
    assert not missing, "\n".join(sorted(set(missing)))


def test_the_specification_and_the_seeds_are_in_the_repository() -> None:
    spec = (DOCS / "specification.md").read_text(encoding="utf-8")
    for section in ("1. Cards", "2. Rulesets", "3. Melds", "4. AI seats", "5. Tournaments"):
        assert f"## {section}" in spec, section
    assert "## 6. Fair deal" in spec
    seeds = sorted(p.name[:3] for p in (DOCS / "seeds").glob("*.txt"))
    assert seeds == ["000", "001", "002", "003", "004"]
