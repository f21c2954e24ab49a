"""The tile layout of C2SP tlog-tiles: the tree served as immutable files of 256 hashes.

A tile at tile level L, index N holds the hashes of the tree's nodes at tree level 8L,
indices ``N*256`` to ``N*256 + 255``: level 0 tiles hold leaf hashes, level 1 tiles the
roots of 256-leaf subtrees, and so on. The seven tree levels between two tile levels are
not served: a node at tree level ``8L + k`` (0 < k < 8) is the perfect subtree over 2**k
consecutive hashes of one tile, and is rehashed from them (:func:`node_from_tile`). The
rightmost tile of a level is *partial* when the tree's size does not fill it: its width
is ``floor(size / 256**L) mod 256`` and its path ends in ``.p/<width>``. Paths number
tiles in three-digit groups, all but the last prefixed ``x`` (index 1234067 is
``x001/x234/067``), so that they can be files in directories of at most 1000 entries.

Why tiles, when the library can name the exact nodes a proof needs
(:mod:`translog.proof`)? Because tiles are immutable and few: a client computes any
proof from the tiles it fetches, a CDN caches them forever, and a monitor replays the
whole log from the level-0 tiles and the entry bundles. :func:`node_tile` says which tile
holds what a stored node is made from, so a client that knows only the checkpoint's size
fetches at most one tile per proof element.

Entry bundles (``tile/entries/<N>[.p/<W>]``) hold the entries of one level-0 tile, each
prefixed with its length as a big-endian uint16 (:func:`encode_bundle`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from translog.errors import OutOfRange, TileMalformed
from translog.hashing import HASH_SIZE, Hash, check_hash, node_hash
from translog.tree import NodeId, check_size

TILE_HEIGHT = 8
TILE_WIDTH = 1 << TILE_HEIGHT
#: The spec's bound on ``<L>``: 63 tile levels cover any 64-bit tree.
MAX_TILE_LEVEL = 63
#: An entry in a bundle is prefixed with a uint16 length.
MAX_ENTRY_SIZE = 0xFFFF


@dataclass(frozen=True, order=True, slots=True)
class Tile:
    """One tile: ``level`` is the tile level (tree level ``8 * level``), ``width`` the
    number of hashes it holds, 256 for a full tile."""

    level: int
    index: int
    width: int = TILE_WIDTH

    def __post_init__(self) -> None:
        if not 0 <= self.level <= MAX_TILE_LEVEL:
            raise TileMalformed(f"tile level {self.level} is not in [0, {MAX_TILE_LEVEL}]")
        check_size(self.index, "tile index")
        if not 1 <= self.width <= TILE_WIDTH:
            raise TileMalformed(f"tile width {self.width} is not in [1, {TILE_WIDTH}]")

    @property
    def is_partial(self) -> bool:
        return self.width < TILE_WIDTH

    def path(self) -> str:
        """``tile/<L>/<N>[.p/<W>]``."""
        return f"tile/{self.level}/{_encode_index(self.index)}{self._suffix()}"

    def entries_path(self) -> str:
        """``tile/entries/<N>[.p/<W>]``: the bundle of this level-0 tile's entries."""
        if self.level != 0:
            raise TileMalformed("only level-0 tiles have an entry bundle")
        return f"tile/entries/{_encode_index(self.index)}{self._suffix()}"

    def _suffix(self) -> str:
        return f".p/{self.width}" if self.is_partial else ""

    def nodes(self) -> tuple[NodeId, ...]:
        """The stored nodes this tile is the concatenation of."""
        base = self.index * TILE_WIDTH
        level = self.level * TILE_HEIGHT
        return tuple(NodeId(level, base + i) for i in range(self.width))

    def split(self, data: bytes) -> tuple[Hash, ...]:
        """The tile's hashes from its bytes (which must be exactly ``width`` hashes)."""
        if len(data) != self.width * HASH_SIZE:
            raise TileMalformed(f"{self.path()} is {self.width * HASH_SIZE} bytes, not {len(data)}")
        return tuple(data[i : i + HASH_SIZE] for i in range(0, len(data), HASH_SIZE))


def _encode_index(index: int) -> str:
    groups = []
    while True:
        groups.append(f"{index % 1000:03d}")
        index //= 1000
        if index == 0:
            break
    groups.reverse()
    return "/".join([*("x" + g for g in groups[:-1]), groups[-1]])


def _decode_index(parts: Sequence[str], path: str) -> int:
    index = 0
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        digits = part if last else part.removeprefix("x")
        if (not last and not part.startswith("x")) or len(digits) != 3 or not digits.isdigit():
            raise TileMalformed(f"{path!r}: tile index group {part!r} is not [x]ddd")
        index = index * 1000 + int(digits)
    # One spelling per index: "x000/005" is not 5.
    if _encode_index(index) != "/".join(parts):
        raise TileMalformed(f"{path!r}: the tile index is not in its canonical form")
    return index


def _decimal(text: str) -> int | None:
    """The value of an ASCII decimal of at most 3 digits (a level or a width) with no
    leading zeroes, else None."""
    if not 0 < len(text) <= 3 or not text.isascii() or not text.isdigit():
        return None
    if len(text) > 1 and text[0] == "0":
        return None
    return int(text)


def _parse_index(rest: str, path: str) -> tuple[int, int]:
    """(index, width) of ``<N>[.p/<W>]``."""
    width = TILE_WIDTH
    if ".p/" in rest:
        rest, _, w = rest.partition(".p/")
        partial = _decimal(w)
        if partial is None or not 1 <= partial < TILE_WIDTH:
            raise TileMalformed(f"{path!r}: a partial width is 1 to 255, no leading zeroes")
        width = partial
    parts = rest.split("/")
    if len(parts) > 7:
        raise TileMalformed(f"{path!r}: a tile index has at most 7 groups")
    return _decode_index(parts, path), width


def parse_tile_path(path: str) -> Tile:
    """The tile named by ``tile/<L>/<N>[.p/<W>]``; raises :class:`TileMalformed`."""
    if not path.startswith("tile/"):
        raise TileMalformed(f"{path!r} does not start with tile/")
    level_text, _, rest = path.removeprefix("tile/").partition("/")
    if level_text == "entries":
        raise TileMalformed(f"{path!r} is an entry bundle, not a hash tile")
    level = _decimal(level_text)
    if level is None:
        raise TileMalformed(f"{path!r}: the tile level is a decimal with no leading zeroes")
    index, width = _parse_index(rest, path)
    try:
        return Tile(level, index, width)
    except OutOfRange as e:
        raise TileMalformed(f"{path!r}: {e.message}") from None


def parse_entries_path(path: str) -> Tile:
    """The level-0 tile whose entries ``tile/entries/<N>[.p/<W>]`` names."""
    if not path.startswith("tile/entries/"):
        raise TileMalformed(f"{path!r} does not start with tile/entries/")
    index, width = _parse_index(path.removeprefix("tile/entries/"), path)
    try:
        return Tile(0, index, width)
    except OutOfRange as e:
        raise TileMalformed(f"{path!r}: {e.message}") from None


def tile_width(level: int, index: int, size: int) -> int:
    """How many hashes tile (``level``, ``index``) has in a tree of ``size`` leaves:
    256 when full, 0 when it does not exist yet."""
    check_size(size)
    available = (size >> (TILE_HEIGHT * level)) - index * TILE_WIDTH
    return max(0, min(TILE_WIDTH, available))


def tile_at(level: int, index: int, size: int) -> Tile:
    """Tile (``level``, ``index``) as a tree of ``size`` has it (partial or full);
    raises :class:`OutOfRange` if the tree does not have it yet."""
    width = tile_width(level, index, size)
    if width == 0:
        raise OutOfRange(f"a tree of {size} has no tile {level}/{index}")
    return Tile(level, index, width)


def partial_tiles(size: int) -> tuple[Tile, ...]:
    """The partial tiles of a tree of ``size`` leaves, lowest level first: the ones a
    checkpoint of that size obliges the log to serve besides the full ones."""
    check_size(size)
    tiles = []
    level = 0
    while size >> (TILE_HEIGHT * level):
        width = (size >> (TILE_HEIGHT * level)) % TILE_WIDTH
        if width:
            tiles.append(Tile(level, (size >> (TILE_HEIGHT * (level + 1))), width))
        level += 1
    return tuple(tiles)


def node_tile(node: NodeId, size: int) -> Tile:
    """The tile (as a tree of ``size`` has it) whose hashes ``node`` is made from. The
    node must be complete in that tree."""
    check_size(size)
    if not node.is_complete(size):
        raise OutOfRange(f"node {node.level}/{node.index} is not complete in a tree of {size}")
    level, k = divmod(node.level, TILE_HEIGHT)
    first = node.index << k  # its first descendant at tree level 8 * level
    return tile_at(level, first >> TILE_HEIGHT, size)


def node_from_tile(node: NodeId, tile: Tile, data: bytes) -> Hash:
    """The hash of ``node`` from the bytes of the tile :func:`node_tile` named."""
    if len(data) != tile.width * HASH_SIZE:
        raise TileMalformed(f"{tile.path()} is {tile.width * HASH_SIZE} bytes, not {len(data)}")
    level, k = divmod(node.level, TILE_HEIGHT)
    first = (node.index << k) - tile.index * TILE_WIDTH
    if level != tile.level or first < 0 or first + (1 << k) > tile.width:
        raise OutOfRange(f"node {node.level}/{node.index} is not in {tile.path()}")
    # 2**k consecutive hashes of the tile are the leaves of a perfect subtree.
    row = [data[i * HASH_SIZE : (i + 1) * HASH_SIZE] for i in range(first, first + (1 << k))]
    while len(row) > 1:
        row = [node_hash(row[i], row[i + 1]) for i in range(0, len(row), 2)]
    return row[0]


def nodes_from_tiles(
    nodes: Sequence[NodeId], size: int, tiles: Mapping[Tile, bytes]
) -> tuple[Hash, ...]:
    """The hashes of ``nodes`` from fetched tiles (keyed by the :func:`node_tile` of
    each): what a tile client hands :meth:`translog.proof.ProofPlan.assemble`."""
    out = []
    for node in nodes:
        tile = node_tile(node, size)
        if tile not in tiles:
            raise OutOfRange(f"node {node.level}/{node.index} needs {tile.path()}")
        out.append(node_from_tile(node, tile, tiles[tile]))
    return tuple(out)


def tiles_for(nodes: Iterable[NodeId], size: int) -> tuple[Tile, ...]:
    """The distinct tiles a set of nodes is made from, in order."""
    return tuple(sorted({node_tile(node, size) for node in nodes}))


def tile_data(hashes: Sequence[Hash]) -> bytes:
    """A tile's bytes from its hashes (each checked)."""
    if not 1 <= len(hashes) <= TILE_WIDTH:
        raise TileMalformed(f"a tile holds 1 to {TILE_WIDTH} hashes, not {len(hashes)}")
    return b"".join(check_hash(h, "tile hash") for h in hashes)


def encode_bundle(entries: Sequence[bytes]) -> bytes:
    """An entry bundle: each entry prefixed with its length as a big-endian uint16."""
    if not 1 <= len(entries) <= TILE_WIDTH:
        raise TileMalformed(f"a bundle holds 1 to {TILE_WIDTH} entries, not {len(entries)}")
    out = bytearray()
    for entry in entries:
        if len(entry) > MAX_ENTRY_SIZE:
            raise TileMalformed(f"an entry of {len(entry)} bytes does not fit a uint16 length")
        out += len(entry).to_bytes(2, "big") + entry
    return bytes(out)


def parse_bundle(data: bytes, width: int | None = None) -> tuple[bytes, ...]:
    """The entries of a bundle; with ``width``, there must be exactly that many."""
    entries = []
    at = 0
    while at < len(data):
        if at + 2 > len(data):
            raise TileMalformed("an entry bundle ends inside a length prefix")
        n = int.from_bytes(data[at : at + 2], "big")
        if at + 2 + n > len(data):
            raise TileMalformed("an entry bundle ends inside an entry")
        entries.append(bytes(data[at + 2 : at + 2 + n]))
        at += 2 + n
    if width is not None and len(entries) != width:
        raise TileMalformed(f"the bundle holds {len(entries)} entries, not {width}")
    return tuple(entries)
