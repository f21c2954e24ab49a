"""The web client's vendored libraries (web/vendor/, tools/vendor_js.py): every file is
the one the manifest names, byte for byte, nothing else is there, every module they
import is there; nothing in web/ loads code from another site; the page's import map
maps the vendored packages, and only it gets a CSP hash. Offline."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from services.gateway.web import SERVED_DIRS, StaticSite, import_map_hashes

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
VENDOR = WEB / "vendor"
MANIFEST = json.loads((VENDOR / "MANIFEST.json").read_text(encoding="utf-8"))


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vendor_js", ROOT / "tools" / "vendor_js.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["vendor_js"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


TOOL = load_tool()


def package(name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in MANIFEST["packages"] if p["package"] == name)
    return found


def test_the_manifest_is_the_tools_pins() -> None:
    assert [(p["package"], p["version"], p["integrity"]) for p in MANIFEST["packages"]] == [
        (p.name, p.version, p.integrity) for p in TOOL.PINS
    ]
    assert [p.name for p in TOOL.PINS] == ["@noble/curves", "@noble/hashes", "svg-cards"]
    for p in MANIFEST["packages"]:
        assert re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==", p["integrity"]), p


def test_every_vendored_file_is_the_manifests_and_nothing_else_is_there() -> None:
    expected = {"MANIFEST.json"}
    for p in MANIFEST["packages"]:
        for path, digest in p["files"].items():
            file = VENDOR / p["package"] / path
            assert file.is_file(), f"missing: {file}"
            assert hashlib.sha256(file.read_bytes()).hexdigest() == digest, f"changed: {file}"
            expected.add(f"{p['package']}/{path}")
        assert {"LICENSE", "package.json"} <= set(p["files"]), p["package"]
    present = {f.relative_to(VENDOR).as_posix() for f in VENDOR.rglob("*") if f.is_file()}
    assert present == expected, present ^ expected


#: Each vendored package's licence, as its package.json says (its LICENSE file beside it).
LICENCES = {"@noble/curves": "MIT", "@noble/hashes": "MIT", "svg-cards": "LGPL-2.1"}


def test_each_vendored_package_json_is_the_pinned_version() -> None:
    versions = {p["package"]: p["version"] for p in MANIFEST["packages"]}
    for name, version in versions.items():
        meta = json.loads((VENDOR / name / "package.json").read_text(encoding="utf-8"))
        assert (meta["name"], meta["version"], meta["license"]) == (name, version, LICENCES[name])
        # The only dependency allowed is another pinned package, at its pinned version.
        for dep, wanted in meta.get("dependencies", {}).items():
            assert versions.get(dep) == wanted, (name, dep, wanted)
    assert "dependencies" not in json.loads(
        (VENDOR / "@noble/hashes/package.json").read_text(encoding="utf-8")
    )


def test_every_module_a_vendored_module_imports_is_vendored() -> None:
    files: dict[str, dict[str, bytes]] = {
        p["package"]: {path: (VENDOR / p["package"] / path).read_bytes() for path in p["files"]}
        for p in MANIFEST["packages"]
    }
    modules = [(name, path) for name, fs in files.items() for path in fs if path.endswith(".js")]
    assert ("@noble/curves", "bls12-381.js") in modules
    assert ("@noble/curves", "ed25519.js") in modules
    for name, path in modules:
        for spec in TOOL.imports_of(files[name][path].decode()):
            target = TOOL.resolve(spec, (name, path), files)
            assert target[1] in files[target[0]], f"{name}/{path} imports {spec}"
    # The closure the tool computes is exactly what is vendored.
    need = TOOL.closure(files)
    for name, fs in files.items():
        assert need[name] == {p for p in fs if p.endswith(".js")}, name


# A module specifier in our own JavaScript: `from "x"`, `import "x"`, `import("x")`,
# anywhere in the file (a comment that looks like one must be reworded).
SPECIFIER = re.compile(r"""(?:\bfrom|\bimport)\s*\(?\s*(["'`])([^"'`\n]+)\1""")
#: Code that could load more code at run time; none of it is in the vendored modules. A
#: method of that name is not the global (ed25519's FFT has ``eval(a, x) {...}`` and calls
#: ``Poly.monomial.eval(...)``), and a comment line runs nothing.
LOADERS = re.compile(
    r"(?<![.\w])import\s*\(|\bimportScripts\b|\bnew\s+Worker\b"
    r"|(?<![.\w])eval\s*\((?![^()]*\)\s*\{)|\bnew\s+Function\b|\bfetch\s*\("
)
#: A whole-line comment (a ``//`` after code may be inside a string: that line is read whole).
LINE_COMMENT = re.compile(r"^[ \t]*//[^\n]*", re.MULTILINE)


def without_comments(text: str) -> str:
    return LINE_COMMENT.sub("", text)


#: What the tests' tools take from npm (package.json pins them; the page never loads them).
TEST_PACKAGES = frozenset({"acorn", "acorn-walk"})


def check_specifier(rel: str, spec: str) -> None:
    assert "//" not in spec and ":" not in spec.replace("node:", "", 1), (rel, spec)
    if spec.startswith("node:"):  # Node's own modules: tests and their loader only
        assert rel.startswith(("test/", "node/")), (rel, spec)
    elif spec in TEST_PACKAGES:  # the words scan's parser: a tool of the tests only
        assert rel.startswith("node/"), (rel, spec)
    elif not spec.startswith(("./", "../")):  # bare: only what the import map resolves
        assert spec.startswith(("@noble/curves/", "@noble/hashes/")), (rel, spec)


def test_nothing_in_web_imports_from_another_site() -> None:
    seen = 0
    for file in sorted(p for ext in ("*.js", "*.mjs") for p in WEB.rglob(ext)):
        rel = file.relative_to(WEB).as_posix()
        text = file.read_text(encoding="utf-8")
        if rel.startswith("vendor/"):
            # The vendored modules' comments hold prose and examples: their statements are
            # read as the vendoring tool reads them, and they may load nothing at run time.
            specs = TOOL.imports_of(text)
            code = without_comments(text)
            assert not LOADERS.search(code), (rel, LOADERS.search(code))
        else:
            specs = [m.group(2) for m in SPECIFIER.finditer(text)]
        for spec in specs:
            check_specifier(rel, spec)
        seen += len(specs)
    assert seen > 50
    # The page: every script, style and link is a path on the gateway.
    index = (WEB / "index.html").read_text(encoding="utf-8")
    for attr in re.findall(r"""\b(?:src|href)\s*=\s*["']([^"']*)["']""", index):
        assert attr.startswith(("/", "#", "data:")) and not attr.startswith("//"), attr
    for css in WEB.rglob("*.css"):
        assert not re.search(
            r"""@import|url\(\s*['"]?(?:https?:)?//""", css.read_text(encoding="utf-8")
        ), css


def import_map() -> dict[str, Any]:
    maps = re.findall(
        r'<script type="importmap">(.*?)</script>',
        (WEB / "index.html").read_text(encoding="utf-8"),
        re.S,
    )
    assert len(maps) == 1
    parsed: dict[str, Any] = json.loads(maps[0])
    return parsed


def test_the_import_map_maps_the_vendored_packages_to_the_served_files() -> None:
    modules = [p for p in MANIFEST["packages"] if any(f.endswith(".js") for f in p["files"])]
    assert import_map() == {
        "imports": {p["package"] + "/": f"/vendor/{p['package']}/" for p in modules}
    }
    index = (WEB / "index.html").read_text(encoding="utf-8")
    # It must come before the first module script, or the browser ignores it.
    assert index.index('type="importmap"') < index.index('type="module"')
    site = StaticSite(WEB)
    for p in MANIFEST["packages"]:
        for path in p["files"]:
            if path.endswith(".js"):
                served = site.resolve(f"/vendor/{p['package']}/{path}")
                assert served == VENDOR / p["package"] / path, path
    assert site.resolve("/vendor/MANIFEST.json") == VENDOR / "MANIFEST.json"
    card_art = "/vendor/svg-cards/svg-cards.svg"  # web/js/cardart.js ART_URL
    assert site.resolve(card_art) == VENDOR / "svg-cards" / "svg-cards.svg"
    for path in ("/vendor/@noble/curves/LICENSE", "/node/importmap.mjs", "/vendor/@/x.js",
                 "/vendor/@noble/../../README.md", "/vendor/@noble/curves/.x.js"):  # fmt: skip
        assert site.resolve(path) is None, path


def sha256_source(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_only_the_import_map_gets_a_csp_hash() -> None:
    index = (WEB / "index.html").read_text(encoding="utf-8")
    text = re.findall(r'<script type="importmap">(.*?)</script>', index, re.S)[0]
    assert import_map_hashes(index) == (sha256_source(text),)
    page = (
        '<script type="importmap">{"imports": {}}</script>\r\n'
        '<script>alert(1)</script><script type="module">alert(2)</script>'
        '<script type="importmap" src="/x.json"></script>'
        "<script type='importmap'>{\"a\":\r\n1}</SCRIPT >"
    )
    assert import_map_hashes(page) == (
        sha256_source('{"imports": {}}'),
        sha256_source('{"a":\n1}'),  # as the HTML parser reads CR LF: LF
    )
    assert import_map_hashes("<script>x</script>") == ()


@pytest.mark.parametrize("path", ["/", "/index.html"])
def test_the_page_is_loaded_with_its_hash(path: str) -> None:
    site = StaticSite(WEB)
    file = site.resolve(path)
    assert file is not None
    assert site.load(file).script_hashes == import_map_hashes(
        (WEB / "index.html").read_text(encoding="utf-8")
    )
    js = site.resolve("/js/app.js")
    assert js is not None and site.load(js).script_hashes == ()


def test_the_image_carries_every_served_folder() -> None:
    """The Dockerfile copies each folder the gateway serves that web/ has (vendor/ among
    them: without it the page's import map points at nothing)."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    folders = [d for d in SERVED_DIRS if (WEB / d).is_dir()]
    assert "vendor" in folders
    for d in folders:
        assert f"COPY web/{d} /app/web/{d}\n" in dockerfile, d
