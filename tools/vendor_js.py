"""Vendor the web client's JavaScript libraries and its cards' pictures into web/vendor/,
byte for byte as npm publishes them, and write web/vendor/MANIFEST.json (docs/web-drand.md
and docs/web-client.md "Cards" say why).

Each package is pinned below with its version and the sha512 ``integrity`` npm's registry
lists for its tarball. The tarball is fetched with ``npm pack`` (npm's ordinary client),
its sha512 is computed here and must equal the pin, and only the ES modules the entry
points import (followed through relative and ``@noble/...`` imports), the LICENSE and the
package.json are copied, unmodified. The manifest records each copied file's SHA-256; the
unit test tests/unit/test_web_vendor.py checks the committed files against it offline.

    python tools/vendor_js.py            # fetch, check, (re)write web/vendor/
    python tools/vendor_js.py --check    # fetch, check, and compare with web/vendor/ only

To update: change VERSION and the two integrities (``npm view @noble/curves@X
dist.integrity``), run the script, read the diff of web/vendor/, run the tests.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import posixpath
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parents[1]
VENDOR: Final = ROOT / "web" / "vendor"
MANIFEST: Final = VENDOR / "MANIFEST.json"


@dataclass(frozen=True)
class Pin:
    name: str
    version: str
    integrity: str  # npm's "sha512-<base64>" of the tarball
    entries: tuple[str, ...]  # the modules web/js imports; their imports follow
    assets: tuple[str, ...] = ()  # other files the page loads as they are (not modules)


#: @noble/curves depends on exactly one @noble/hashes version; both are pinned here.
PINS: Final = (
    Pin(
        "@noble/curves",
        "2.4.0",
        "sha512-P4/62zrgfH33CneE3Dn4WhJVA22YUU0eR51wKIan4NVRvwsA0YnPTwWGpNbpuacSujmSFLvyzpyuR30+fbq2Ew==",
        ("bls12-381.js", "ed25519.js"),
    ),
    Pin(
        "@noble/hashes",
        "2.4.0",
        "sha512-X5XaVWZIBCT7HHZGm5I7ZQXDwLG+bGXuSrMQAW+7Zvl87h1kmc1ZB1VSRJcpUfoUrGQp4Fkoxm5kZ+Ms+aW+eA==",
        ("sha2.js", "utils.js"),
    ),
    #: The cards' pictures (web/js/cardart.js draws them with <use>): no module at all.
    Pin(
        "svg-cards",
        "4.0.2",
        "sha512-YQVC0+bVQtvGbKoQZAHPgVSrKUymPK+aG9NQjJul9jp/a+lFcm8aWKh7YmKVinSjpaBTbogTLKAPi5YQEFRYLg==",
        (),
        ("svg-cards.svg",),
    ),
)
#: Copied besides the modules: the licence and the package's own description.
ALWAYS: Final = ("LICENSE", "package.json")

# Static `import ... from "x"`, `export ... from "x"` and `import "x"` statements, which
# tsc writes at the start of a line (a doc comment's example starts with " *"). A module
# this misses would fail to load in the tests (web/test/drand.test.mjs, the browser test).
_IMPORT_RE: Final = re.compile(
    r"""^(?:(?:import|export)\b[^;"']*?\bfrom\s*|import\s*)(["'])([^"'\n]+)\1""", re.MULTILINE
)


class VendorError(Exception):
    pass


def sri_sha512(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def npm_pack(pin: Pin, dest: Path) -> bytes:
    """The package's tarball as the registry serves it, checked against the pin."""
    proc = subprocess.run(
        ["npm", "pack", f"{pin.name}@{pin.version}", "--json", "--pack-destination", str(dest)],
        capture_output=True,
        encoding="utf-8",
        cwd=dest,
        check=False,
    )
    if proc.returncode != 0:
        raise VendorError(f"npm pack {pin.name}@{pin.version} failed: {proc.stderr.strip()}")
    info = json.loads(proc.stdout)[0]
    data = (dest / str(info["filename"])).read_bytes()
    got = sri_sha512(data)
    if got != pin.integrity:
        raise VendorError(f"{pin.name}@{pin.version}: tarball is {got}, pinned {pin.integrity}")
    if info.get("integrity") != pin.integrity:
        raise VendorError(f"{pin.name}@{pin.version}: npm reports {info.get('integrity')}")
    return data


def tar_files(data: bytes) -> dict[str, bytes]:
    """Every regular file of an npm tarball, by its path under ``package/``."""
    out: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            path = posixpath.normpath(member.name)
            if not path.startswith("package/") or ".." in path.split("/"):
                raise VendorError(f"unexpected path in tarball: {member.name}")
            f = tar.extractfile(member)
            assert f is not None
            out[path.removeprefix("package/")] = f.read()
    return out


def imports_of(source: str) -> list[str]:
    return [m.group(2) for m in _IMPORT_RE.finditer(source)]


def resolve(
    spec: str, importer: tuple[str, str], packages: dict[str, dict[str, bytes]]
) -> tuple[str, str]:
    """(package, path) a specifier names: relative to the importer, or a pinned package
    through its package.json ``exports``."""
    pkg, path = importer
    if spec.startswith("./") or spec.startswith("../"):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
        if target.startswith(".."):
            raise VendorError(f"{pkg}/{path} imports {spec} outside its package")
        return pkg, target
    for name in packages:
        if spec == name or spec.startswith(name + "/"):
            sub = "." + spec[len(name) :]
            exports = json.loads(packages[name]["package.json"])["exports"]
            if sub not in exports:
                raise VendorError(f"{name} does not export {sub} (imported by {pkg}/{path})")
            return name, posixpath.normpath(exports[sub])
    raise VendorError(f"{pkg}/{path} imports {spec}, which is not a pinned package")


def closure(packages: dict[str, dict[str, bytes]]) -> dict[str, set[str]]:
    """Every module the entry points need, by package."""
    need: dict[str, set[str]] = {p.name: set() for p in PINS}
    todo = [(p.name, e) for p in PINS for e in p.entries]
    while todo:
        pkg, path = todo.pop()
        if path in need[pkg]:
            continue
        if path not in packages[pkg]:
            raise VendorError(f"{pkg} has no {path}")
        need[pkg].add(path)
        for spec in imports_of(packages[pkg][path].decode()):
            todo.append(resolve(spec, (pkg, path), packages))
    return need


def build(tmp: Path) -> tuple[dict[str, bytes], dict[str, Any]]:
    """The files to vendor (path under web/vendor/ → bytes) and the manifest."""
    tarballs = {p.name: npm_pack(p, tmp) for p in PINS}
    packages = {name: tar_files(data) for name, data in tarballs.items()}
    for p in PINS:
        meta = json.loads(packages[p.name]["package.json"])
        if (meta["name"], meta["version"]) != (p.name, p.version):
            raise VendorError(
                f"{p.name}@{p.version}: its package.json says {meta['name']}@{meta['version']}"
            )
        for dep, wanted in meta.get("dependencies", {}).items():
            pinned = {q.name: q.version for q in PINS}.get(dep)
            if pinned != wanted:
                raise VendorError(f"{p.name} depends on {dep}@{wanted}; pinned: {pinned}")
    need = closure(packages)
    files: dict[str, bytes] = {}
    manifest: dict[str, Any] = {
        "_about": "Files copied unmodified from npm tarballs by tools/vendor_js.py "
        "(see docs/web-drand.md). integrity: npm's sha512 of the tarball; files: SHA-256 "
        "of each copied file, by its path in the package.",
        "packages": [],
    }
    for p in PINS:
        chosen = sorted(need[p.name] | set(ALWAYS) | set(p.assets))
        hashes: dict[str, str] = {}
        entry = {
            "package": p.name,
            "version": p.version,
            "integrity": p.integrity,
            "tarball": f"https://registry.npmjs.org/{p.name}/-/{p.name.split('/')[-1]}-{p.version}.tgz",
            "files": hashes,
        }
        for path in chosen:
            body = packages[p.name][path]
            files[f"{p.name}/{path}"] = body
            hashes[path] = hashlib.sha256(body).hexdigest()
        manifest["packages"].append(entry)
    return files, manifest


def vendored_now() -> dict[str, bytes]:
    """What web/vendor/ holds today (the manifest aside)."""
    return {
        p.relative_to(VENDOR).as_posix(): p.read_bytes()
        for p in sorted(VENDOR.rglob("*"))
        if p.is_file() and p != MANIFEST
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="belot-vendor-") as tmp:
        try:
            files, manifest = build(Path(tmp))
        except VendorError as e:
            print(f"vendor_js: {e}", file=sys.stderr)
            return 1
    text = json.dumps(manifest, indent=2) + "\n"
    if args.check:
        now = vendored_now() if VENDOR.is_dir() else {}
        bad = sorted(k for k in files.keys() | now.keys() if files.get(k) != now.get(k))
        if not MANIFEST.is_file() or MANIFEST.read_text(encoding="utf-8") != text:
            bad.append("MANIFEST.json")
        for path in bad:
            print(f"differs from npm's tarball: web/vendor/{path}", file=sys.stderr)
        if not bad:
            print(f"web/vendor/ is the pinned tarballs' {len(files)} files, byte for byte")
        return 1 if bad else 0
    for pin in PINS:
        shutil.rmtree(VENDOR / pin.name, ignore_errors=True)
    for path, body in files.items():
        out = VENDOR / path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(body)
    MANIFEST.write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} files and {MANIFEST.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
